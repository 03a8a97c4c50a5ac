//! orbit's interactive terminal UI (`orbit` without `-p`).
//!
//! Data flow: the CLI builds the session with the approver from
//! [`approver`] and calls [`run`]. The app (`app`) waits on three sources
//! at once — terminal events (crossterm's event stream: keys, pastes,
//! resizes), the running turn's [`orbit_protocol::EngineEvent`]s and the
//! engine's permission asks ([`ApprovalInbox`]) — and blocks when none has
//! anything (no polling: 0% CPU when idle). Each change goes into the
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
pub mod sanitize;
mod screen;
mod status;
mod submit;
mod term;
mod theme;
mod tools;
mod trust;
mod wrap;

use std::path::PathBuf;

use orbit_engine::QueryEngine;

pub use dialog::{ApprovalInbox, approver};
pub use screen::Screen;
pub use status::StatusInfo;
pub use term::LIVE_ROWS;
pub use theme::Theme;
pub use trust::TrustAsk;

/// The MCP servers' status, one printable line each (`/mcp`).
pub type McpStatus = Box<dyn Fn() -> Vec<String> + Send>;

/// A session the UI runs: its engine and what `/mcp` shows.
pub struct OpenedSession {
    /// The engine (new or resumed).
    pub engine: QueryEngine,
    /// The MCP servers' status; None when none is configured.
    pub mcp: Option<McpStatus>,
    /// Run when the UI leaves this session (exit, `/clear`, `/resume`):
    /// e.g. kill its background shells.
    pub on_close: Option<Box<dyn FnOnce() + Send>>,
}

/// Which session `/clear`, `/resume` and `/continue` open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new, empty session.
    New,
    /// The session with this id (this project's).
    Resume(String),
}

/// Builds sessions the way the CLI does (same flags, same approver).
pub trait SessionFactory {
    /// Opens `choice`; the error is shown to the person.
    fn open(&mut self, choice: SessionChoice) -> Result<OpenedSession, String>;
}

/// How the UI is set up.
pub struct TuiOptions {
    /// A first prompt to submit at once (`orbit "PROMPT"`).
    pub initial_prompt: Option<String>,
    /// Where the engine's asks arrive (the other half of [`approver`]).
    pub inbox: ApprovalInbox,
    /// Builds the sessions `/clear` and `/resume` switch to.
    pub sessions: Box<dyn SessionFactory>,
    /// Where submitted prompts are remembered (the composer's history).
    pub history_file: Option<PathBuf>,
    /// The home directory (user custom commands); None: project ones only.
    pub home: Option<PathBuf>,
    /// False when `NO_COLOR` is set.
    pub color: bool,
    /// "Trust this folder?", asked once at start; None: nothing to ask.
    pub trust: Option<TrustAsk>,
}

/// How the UI ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// The session that was open at the end (`orbit --resume <id>`).
    pub session_id: String,
}

/// What can stop the UI.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, read or written.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Runs the interactive UI on the process's terminal until the person
/// exits; the session is saved by the engine as it goes, and the last line
/// printed says how to resume it.
pub async fn run(session: OpenedSession, options: TuiOptions) -> Result<ExitInfo, TuiError> {
    app::run(session, options).await
}
