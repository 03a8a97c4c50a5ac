//! What the result-pipeline tests (R1–R4, the R2 budget) share: a
//! [`ToolResultStorage`] in a temp dir of its own ([`store`]), one whose
//! data dir cannot be created ([`unwritable_store`]), and one output run
//! through the pipeline as Bash's ([`as_bash`]).

use std::path::Path;

use orbit_engine::{ToolResultStorage, process_tool_result};
use orbit_protocol::ToolResultBlock;
use orbit_tools::ToolOutput;
use orbit_tools::builtin::bash::BASH_MAX_RESULT_SIZE_CHARS;

use super::support::InTempDir;

/// A result storage in a temp dir of its own.
pub type Store = InTempDir<ToolResultStorage>;

/// Results of session `session-1` of project `/work/my.proj`, under a
/// fresh temp data dir.
pub fn store() -> Store {
    InTempDir::new(|dir| {
        ToolResultStorage::new(&dir.join("home"), Path::new("/work/my.proj"), "session-1")
    })
}

/// A storage whose data dir is a path under a regular file: it cannot be
/// created, even by root.
pub fn unwritable_store() -> Store {
    InTempDir::new(|dir| {
        let blocker = dir.join("blocker");
        std::fs::write(&blocker, b"not a directory").unwrap();
        ToolResultStorage::new(&blocker.join("sub"), Path::new("/w"), "s")
    })
}

/// `output` of call `id` through the result pipeline as Bash's (its
/// 30,000-char limit).
pub async fn as_bash(storage: &ToolResultStorage, id: &str, output: ToolOutput) -> ToolResultBlock {
    process_tool_result(storage, "Bash", BASH_MAX_RESULT_SIZE_CHARS, id, output).await
}
