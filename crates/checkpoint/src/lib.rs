//! Per-prompt checkpoints of the working tree, and code rewind.
//!
//! Data flow: the engine tells [`Checkpointer`] (its `Checkpoints` hook,
//! wired by `orbit::SessionSpec`) when a prompt's first writing call is
//! about to run; it snapshots the project into the session's [`Store`]
//! (`<session dir>/checkpoints/`, removed with the session) — through git
//! plumbing into a private index and object store inside a git work tree
//! (`git`), or as a stat manifest with content-addressed copies elsewhere
//! (`plain`) — and again when the prompt ends. Both produce a [`State`]
//! (path → content id, mode); [`rewind_code`] compares states to restore the
//! tree before a prompt, refusing files changed outside orbit unless forced,
//! after recording the current tree so [`undo`] can come back.
//!
//! [`Probe`] is the one before/after mechanism for what a single call
//! changed (size, mtime and hash of the paths its facts name): the hook
//! lists each prompt's changed files with it.
//!
//! Caps (constants): [`STORE_MAX_BYTES`] per session store;
//! [`PLAIN_MAX_FILES`] / [`PLAIN_MAX_TOTAL_BYTES`] for a project outside
//! git (above them checkpoints are off, one line); [`PLAIN_FILE_MAX_BYTES`]
//! per plain file (larger ones are listed as not restorable).

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod disk;
mod git;
mod hook;
mod plain;
mod probe;
mod rewind;
mod state;
mod store;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use hook::Checkpointer;
pub use plain::{PLAIN_FILE_MAX_BYTES, PLAIN_MAX_FILES, PLAIN_MAX_TOTAL_BYTES};
pub use probe::{
    Change, Content, NotKept, PROBE_HASH_MAX_BYTES, PROBE_KEEP_FILE_MAX_BYTES,
    PROBE_KEEP_TOTAL_MAX_BYTES, PathStamp, Probe, StampKind,
};
pub use rewind::{RewindReport, line_counts, preview_code, rewind_code, undo};
pub use state::{FileEntry, MODE_EXEC, MODE_FILE, MODE_LINK, State, changed_paths};
pub use store::{Checkpoint, Kind, Manifest, STORE_DIR_NAME, STORE_MAX_BYTES, Snapshot, Store};

/// A path a checkpoint cannot bring back, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRestorable {
    /// The path (relative to the project when inside it).
    pub path: String,
    /// Why (`outside the project`, `ignored by git`, `over 32 MiB`).
    pub reason: String,
}

impl NotRestorable {
    pub(crate) fn new(path: &str, reason: String) -> Self {
        Self {
            path: path.to_string(),
            reason,
        }
    }
}

/// Why a checkpoint or a rewind failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A git command failed.
    #[error("{0}")]
    Git(String),
    /// The project is over the plain backend's caps.
    #[error("{0}")]
    OverCap(String),
    /// Checkpoints are off for this session (the stated reason).
    #[error("{0}")]
    Off(String),
    /// The store is missing something it recorded.
    #[error("checkpoint store damaged: {0}")]
    Damaged(String),
    /// Files changed outside orbit since the checkpoint.
    #[error(
        "not rewinding: changed outside orbit since the checkpoint: {}; pass --force to overwrite them",
        .0.join(", ")
    )]
    Conflict(Vec<String>),
    /// Nothing to do.
    #[error("{0}")]
    Nothing(String),
}

impl CheckpointError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `id` as one safe file name component.
pub(crate) fn safe_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
