//! The built-in tools' texts (`orbit-tools`), one module per tool: its
//! description (what the model reads in the tool list), its answers, its
//! refusals (unwrapped: the engine adds `<tool_use_error>`), its notes and
//! reminders. This module holds the texts several tools share: the file
//! texts of Read, Write and Edit (Node's `EISDIR`/`EACCES` wording, as
//! Claude Code passes it on), T5's read-before-write refusals, and the
//! path texts of Glob, Grep and LS.

use std::fmt::Display;
use std::path::Path;

pub mod bash;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod ls;
pub mod read;
pub mod todo;
pub mod web_fetch;
pub mod web_search;
pub mod write;

/// Refusal text for Write/Edit of an existing file never read (T5, §8;
/// Claude Code's text).
pub const NOT_READ_MESSAGE: &str =
    "File has not been read yet. Read it first before writing to it.";

/// Refusal text for Write/Edit of a file changed on disk since it was read
/// (T5; Claude Code's text).
pub const MODIFIED_MESSAGE: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// Read or Edit of a missing file (Claude Code's text, with the cwd the
/// relative path was resolved against).
pub fn file_not_found(cwd: &Path) -> String {
    format!(
        "File does not exist. Note: your current working directory is {}.",
        cwd.display()
    )
}

/// A directory where a file was expected; `operation` is the system call
/// Node would have named (`read` for Read and Edit, `open` for Write).
pub fn is_a_directory(operation: &str, path: &Path) -> String {
    format!(
        "EISDIR: illegal operation on a directory, {operation} '{}'",
        path.display()
    )
}

/// Write or Edit of a read-only file.
pub fn permission_denied(path: &Path) -> String {
    format!("EACCES: permission denied, open '{}'", path.display())
}

/// A FIFO, socket or device where a file was expected; `verb` is `read`,
/// `write` or `edit`, `kind` what the path is (`a FIFO`, `a character
/// device`, … as `orbit_untrusted` names it).
pub fn not_a_regular_file(verb: &str, path: &Path, kind: &str) -> String {
    format!(
        "Cannot {verb} {}: it is {kind}, not a regular file",
        path.display()
    )
}

/// An I/O error while reading a file.
pub fn cannot_read(path: &Path, error: impl Display) -> String {
    format!("Cannot read {}: {error}", path.display())
}

/// An I/O error while writing a file.
pub fn cannot_write(path: &Path, error: impl Display) -> String {
    format!("Cannot write {}: {error}", path.display())
}

/// The parent directories of a new file could not be made.
pub fn cannot_create_directory(path: &Path, error: impl Display) -> String {
    format!("Cannot create directory {}: {error}", path.display())
}

/// A search path that does not exist; `kind` is `Directory` (Glob, LS) or
/// `Path` (Grep). Claude Code's text, with the cwd note.
pub fn path_not_found(kind: &str, path: &Path, cwd: &Path) -> String {
    format!(
        "{kind} does not exist: {}. Note: your current working directory is {}.",
        path.display(),
        cwd.display()
    )
}

/// Glob or LS was given a file where a directory was expected.
pub fn not_a_directory(path: &Path) -> String {
    format!("Path is not a directory: {}", path.display())
}

/// A tool's blocking task failed (panicked or was dropped): `Read failed:
/// …`.
pub fn task_failed(tool_name: &str, error: impl Display) -> String {
    format!("{tool_name} failed: {error}")
}

/// A search or fetch stopped by its cancel token: `Grep was cancelled`.
pub fn cancelled(tool_name: &str) -> String {
    format!("{tool_name} was cancelled")
}
