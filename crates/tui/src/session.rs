//! The sessions the UI runs and how it gets another: an [`OpenedSession`]
//! (engine, `/mcp` status, close hook) and the CLI's [`SessionFactory`]
//! that opens a [`SessionChoice`] for `/clear`, `/resume` and `/continue`.
//! A leaf: the app, the commands and the trust question all name these.

use orbit_engine::QueryEngine;

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
    /// The custom slash commands, with the folder's trust (`orbit-commands`:
    /// the expansion `-p` and the SDK use too).
    pub commands: orbit_commands::PromptExpander,
    /// The `statusLine` command, if the settings set one.
    pub status_line: Option<crate::status_line::StatusLineConfig>,
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

/// Whether `engine`'s session has its transcript on disk (under the
/// project's canonical folder): there is something to resume.
pub(crate) fn transcript_saved(engine: &QueryEngine) -> bool {
    let config = engine.config();
    let root = config
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| config.cwd.clone());
    orbit_session::transcript_path(&config.data_dir, &root, engine.session_id()).is_file()
}
