//! What the result-pipeline tests (R1–R4, the R2 budget) share: a
//! [`ToolResultStorage`] in a temp dir of its own ([`store`]), one whose
//! data dir cannot be created ([`unwritable_store`]), and one output run
//! through the pipeline as Bash's ([`as_bash`]).

use std::ops::Deref;
use std::path::Path;

use orbit_engine::results::{ToolResultStorage, process_tool_result};
use orbit_protocol::ToolResultBlock;
use orbit_tools::ToolOutput;
use orbit_tools::builtin::bash::BASH_MAX_RESULT_SIZE_CHARS;
use tempfile::TempDir;

/// A storage and the temp dir it lives in (removed on drop).
pub struct Store {
    storage: ToolResultStorage,
    _dir: TempDir,
}

impl Deref for Store {
    type Target = ToolResultStorage;

    fn deref(&self) -> &ToolResultStorage {
        &self.storage
    }
}

/// Results of session `session-1` of project `/work/my.proj`, under a
/// fresh temp data dir.
pub fn store() -> Store {
    let dir = tempfile::tempdir().unwrap();
    let storage = ToolResultStorage::new(
        &dir.path().join("home"),
        Path::new("/work/my.proj"),
        "session-1",
    );
    Store { storage, _dir: dir }
}

/// A storage whose data dir is a path under a regular file: it cannot be
/// created, even by root.
pub fn unwritable_store() -> Store {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let storage = ToolResultStorage::new(&blocker.join("sub"), Path::new("/w"), "s");
    Store { storage, _dir: dir }
}

/// `output` of call `id` through the result pipeline as Bash's (its
/// 30,000-char limit).
pub async fn as_bash(storage: &ToolResultStorage, id: &str, output: ToolOutput) -> ToolResultBlock {
    process_tool_result(storage, "Bash", BASH_MAX_RESULT_SIZE_CHARS, id, output).await
}
