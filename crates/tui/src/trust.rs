//! "Trust this folder?" asked once at start: in an untrusted folder whose
//! project settings or `.mcp.json` carry what trust would enable (hooks,
//! env, MCP servers…), the CLI passes a [`TrustAsk`]; the UI shows it as a
//! picker before anything runs. Yes records the folder through the ask's
//! own function (what `orbit trust` does) and reopens the session so the
//! settings apply; No (or Esc) continues untrusted. A first prompt waits
//! for the answer.

use std::path::PathBuf;

use orbit_engine::QueryEngine;

use crate::action::{Action, Work};
use crate::screen::{Picker, PickerKind, Screen, Tone};
use crate::session::{SessionChoice, transcript_saved};

/// The question for an untrusted folder (see the module docs).
pub struct TrustAsk {
    /// The folder.
    pub dir: PathBuf,
    /// What trusting it would enable, e.g. `hooks (.orbit/settings.json)`.
    pub would_enable: Vec<String>,
    /// Records the folder as trusted; the error is shown to the person.
    pub trust: Box<dyn FnOnce() -> Result<(), String> + Send>,
}

/// The picker that asks.
pub(crate) fn picker(ask: &TrustAsk) -> Picker {
    Picker {
        title: format!(
            "Trust this folder? {} is not trusted; trusting it enables: {}",
            ask.dir.display(),
            ask.would_enable.join("; ")
        ),
        items: vec![
            (
                "yes".to_string(),
                "Yes, trust this folder (as `orbit trust` does; remembered)".to_string(),
            ),
            (
                "no".to_string(),
                "No, continue without them (Esc)".to_string(),
            ),
        ],
        selected: 0,
        kind: PickerKind::Trust,
    }
}

/// The picker's answer: trusting records the folder and asks the app to
/// reopen the same session so the settings apply; no (or a failure) is a
/// note. The app then submits the waiting first prompt.
pub(crate) fn answer(
    ask: TrustAsk,
    yes: bool,
    engine: &QueryEngine,
    screen: &mut Screen,
) -> Option<Action> {
    let what = ask.would_enable.join("; ");
    if !yes {
        screen.note(
            &format!("Not trusted: {what} stay off (`orbit trust` trusts it later)."),
            Tone::Dim,
        );
        return None;
    }
    if let Err(err) = (ask.trust)() {
        screen.note(&format!("Could not trust the folder: {err}"), Tone::Error);
        return None;
    }
    // The same session, reopened with the folder trusted.
    let choice = if transcript_saved(engine) {
        SessionChoice::Resume(engine.session_id().to_string())
    } else {
        SessionChoice::New
    };
    Some(Action::Reopen {
        choice,
        note: format!("Trusted {}: {what} now apply.", ask.dir.display()),
    })
}

/// The work a picker answer gives.
pub(crate) fn work(value: Option<&str>) -> Work {
    Work::Trust(value == Some("yes"))
}
