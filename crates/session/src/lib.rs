//! Session transcripts: one JSONL file per session at
//! `$ORBIT_HOME/projects/<cwd slug>/<session id>.jsonl`, beside the
//! session's persisted tool results ([`paths`]).
//!
//! - [`record`]: the format, a versioned serde enum ([`Record`]), one record
//!   per line, appended in the order the session changed.
//! - [`TranscriptWriter`]: appends on a thread of its own; `sync` makes
//!   everything appended durable (`fdatasync`) — the engine awaits it right
//!   before each model request.
//! - [`load`]: replays a transcript into a [`LoadedSession`] (from the last
//!   compaction boundary on), dropping a torn last line and answering
//!   tool_uses a crash cut off.
//! - [`sidechain`]: subagents' transcripts, beside their parent's.
//! - [`fork`]: a transcript's prompts and conversation rewind (the
//!   removed tail kept as a fork file).
//! - [`listing`]: a project's sessions, newest first (`orbit sessions`,
//!   `--continue`).
//!
//! This crate knows records and files, not the engine: `orbit-engine`
//! records its `Session` through a writer and restores it from a
//! `LoadedSession`.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod fork;
pub mod history;
pub mod listing;
pub mod paths;
mod reader;
pub mod record;
pub mod sidechain;
mod writer;

use std::path::PathBuf;

pub use listing::{SessionSummary, civil_from_days, find_anywhere, latest, list_all, list_project};
pub use paths::{file_component, is_valid_session_id, project_dir, project_slug, transcript_path};
pub use reader::{LoadedSession, Repair, load};
pub use record::{
    CompactionRecord, CompactionTrigger, DenialRecord, Header, MessageRecord, Record,
    ReplacementsRecord, ResultRecord, SnapshotRecord, TRANSCRIPT_VERSION, UsageRecord,
};
pub use sidechain::{SidechainMeta, sidechain_path};
pub use writer::TranscriptWriter;

/// Why a transcript could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file could not be read.
    #[error("cannot read session transcript {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line other than the last is not a record (the file was damaged,
    /// not torn by a crash).
    #[error("session transcript {path} is damaged at line {line}: {reason}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Written by a newer orbit.
    #[error(
        "session transcript {path} uses format version {version}; this orbit reads up to version {TRANSCRIPT_VERSION} (upgrade orbit)"
    )]
    NewerFormat {
        /// The file.
        path: PathBuf,
        /// The version found.
        version: u32,
    },
    /// Appending or syncing failed.
    #[error("cannot write session transcript {path}: {reason}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}
