//! What the app is asked to do, as data: [`Work`] queued by keys and
//! submissions, [`Job`]s that run with the engine streaming, and the
//! [`Action`] a slash command or the trust answer returns. Commands and the
//! trust question decide; `App` (the only holder of the engine, factory and
//! terminal) applies, so neither of them reaches into the app.

use std::path::PathBuf;

use crate::session::SessionChoice;

/// Something to do when nothing runs.
pub(crate) enum Work {
    /// A prompt and the `@path` mentions the composer found in it.
    Prompt(String, Vec<PathBuf>),
    Shell(String),
    Command {
        name: String,
        args: String,
    },
    Open(SessionChoice),
    /// The answer to "Trust this folder?" (yes / no).
    Trust(bool),
}

/// A job the app runs with the engine (Esc interrupts it).
pub(crate) enum Job {
    Turn(String),
    Compact(Option<String>),
    Shell(String),
}

/// What a command (or the trust answer) leaves for the app to do.
pub(crate) enum Action {
    /// Ends this session and opens another (`/clear`, `/resume`).
    Open(SessionChoice),
    /// Reopens the session with `choice` (no end-of-session hooks); on
    /// success the note is shown (trust granted).
    Reopen { choice: SessionChoice, note: String },
    /// Runs a job.
    Job(Job),
    /// Runs a turn for this prompt (no attachments).
    Prompt(String),
    /// Runs a custom command (`/name args` as typed) through
    /// `orbit_commands::prepare_prompt`: its `!`/`@` inlined through the
    /// permission gate (asks answered here), its `allowed-tools` and
    /// `model` for that turn only.
    Command(String),
    /// Gives the terminal to `$VISUAL` / `$EDITOR` on this file
    /// (`/memory N`), then takes it back.
    Edit(PathBuf),
    /// Switches the model (`/model NAME`) unless a PreModelSwitch hook
    /// refuses it.
    Model(String),
}
