//! `/output-style [name]`: lists the session's output styles (the current
//! one marked) or switches to one for the rest of the session.
//!
//! Data flow: the session's `orbit_memory::output_style::StyleState` (a
//! tool-context extension the session's assembly installed: the unstyled
//! prompt, the current style, the style folders with the folder's trust)
//! → the styles (built-ins, the user's files, a trusted project's) → with
//! a name, `StyleState::switch` gives the new system prompt and the engine
//! uses it from the next request on. The choice is not saved: the
//! `outputStyle` setting picks the style of the next session.

use orbit_engine::QueryEngine;
use orbit_memory::output_style::{OUTPUT_STYLE_KEY, StyleState, find};

use crate::screen::{Screen, Tone};
use crate::wrap::truncate;

/// Runs `/output-style` with `args`.
pub(crate) fn run(engine: &mut QueryEngine, screen: &mut Screen, args: &str) {
    let state = engine
        .tool_context()
        .extension(OUTPUT_STYLE_KEY, StyleState::default);
    let mut warnings = Vec::new();
    let styles = state.styles(&mut |w| warnings.push(w.to_string()));
    for warning in warnings {
        screen.note(&warning, Tone::Error);
    }
    let current = state.current_name();
    let name = args.trim();
    if name.is_empty() {
        for style in &styles {
            let mark = if style.name.eq_ignore_ascii_case(&current) {
                "●"
            } else {
                " "
            };
            let line = format!(
                "  {mark} {:<14} {}",
                style.name,
                truncate(&style.description, 70)
            );
            screen.note(&line, Tone::Plain);
        }
        screen.note("/output-style NAME switches for this session", Tone::Dim);
        return;
    }
    let Some(style) = find(&styles, name) else {
        screen.note(
            &format!("No output style {name} (/output-style lists them)"),
            Tone::Error,
        );
        return;
    };
    let chosen = (!style.is_default()).then(|| style.clone());
    let label = style.name.clone();
    match state.switch(&engine.config().system_prompt, chosen) {
        Some(prompt) => {
            engine.set_system_prompt(prompt);
            screen.note(
                &format!("Output style set to {label} for the next requests"),
                Tone::Plain,
            );
        }
        None => screen.note(
            "This session's system prompt was replaced (--system-prompt): output styles do not apply",
            Tone::Error,
        ),
    }
}
