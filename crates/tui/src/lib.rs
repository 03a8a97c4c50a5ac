//! orbit's interactive terminal UI (`orbit` without `-p`).
//!
//! Data flow: the CLI builds the session with the approver from
//! [`approver`] and calls [`run`]. The app (`app`) waits on three sources
//! at once — terminal events (crossterm's event stream: keys, pastes,
//! resizes), the running turn's [`orbit_protocol::EngineEvent`]s and the
//! engine's permission asks ([`ApprovalInbox`]) — and, when the CLI
//! redirected stderr, the lines written to it ([`NoticeSink`]), and blocks
//! when none has anything (no polling: 0% CPU when idle). Each change goes into the
//! [`Screen`], which inserts final lines into the terminal's scrollback
//! above an inline viewport and redraws the live region at the bottom
//! (`term`: raw mode, bracketed paste, synchronized updates). Submissions
//! from the input box (`orbit_composer`) become turns, `!` shell commands,
//! `#` notes or slash commands (`commands`); `/clear` and `/resume` swap
//! the engine through the CLI's [`SessionFactory`].
#![deny(missing_docs)]

mod action;
mod answer;
mod app;
mod commands;
mod dialog;
mod diff;
mod front;
mod highlight;
mod markdown;
mod notices;
mod plan_dialog;
mod question_dialog;
mod replay;
mod rewind;
pub mod sanitize;
mod screen;
mod session;
mod shell_diff;
mod status;
mod status_line;
mod style_command;
mod subagents;
mod submit;
mod term;
mod theme;
mod tools;
mod trust;
mod typed_line;
mod wrap;

pub use app::{ExitInfo, TuiError, TuiOptions};
pub use dialog::{ApprovalInbox, approver};
pub use notices::{NoticeFeed, NoticeSink, notice_channel};
pub use screen::Screen;
pub use session::{McpStatus, OpenedSession, SessionChoice, SessionFactory};
pub use status::StatusInfo;
pub use status_line::StatusLineConfig;
pub use term::LIVE_ROWS;
pub use theme::Theme;
pub use trust::TrustAsk;

/// Runs the interactive UI on the process's terminal until the person
/// exits; the session is saved by the engine as it goes, and the last line
/// printed says how to resume it.
pub async fn run(session: OpenedSession, options: TuiOptions) -> Result<ExitInfo, TuiError> {
    app::run(session, options).await
}
