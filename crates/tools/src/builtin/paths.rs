//! Paths as the search tools (Glob, Grep, LS) take and show them: an
//! optional `path` input resolved to the directory a search starts from
//! (`.` and `..` folded), a directory checked before it is walked, a found
//! path shown relative to the cwd, and the facts of a call that only reads
//! one path. The parallel walks of Glob and Grep share the last part: the
//! regular files among the walked entries ([`walked_file`]), their mtimes
//! ([`modified`]) and what the walker threads find ([`Found`]).

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use orbit_tool::texts::tools as tools_texts;
use orbit_tool::{CallFacts, ToolError, ToolUseContext};

/// Models sometimes send the strings "undefined"/"null" for an omitted path.
pub(crate) fn optional_path(path: &Option<String>) -> Option<&str> {
    match path.as_deref().map(str::trim) {
        None | Some("") | Some("undefined") | Some("null") => None,
        Some(p) => Some(p),
    }
}

/// The directory a search starts from: `path` resolved against the cwd
/// (`.` and `..` folded), or the cwd itself.
pub(crate) fn search_root(path: &Option<String>, ctx: &ToolUseContext) -> PathBuf {
    match optional_path(path) {
        Some(p) => normalize(&ctx.resolve_path(p)),
        None => ctx.cwd(),
    }
}

/// `path` relative to `cwd` when inside it, else absolute (how all search
/// tools show paths).
pub(crate) fn display_path(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}

/// Removes `.` and folds `..` lexically, so results print without them.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The text of a "no such path" error, with the cwd note Claude Code adds.
pub(crate) use orbit_tool::texts::tools::path_not_found as not_found_message;

/// Refuses `dir` unless it is an existing directory: the "Directory does
/// not exist" and "is not a directory" answers of Glob and LS.
pub(crate) fn require_dir(dir: &Path, ctx: &ToolUseContext) -> Result<(), ToolError> {
    if !dir.exists() {
        return Err(ToolError::RespondToModel(not_found_message(
            "Directory",
            dir,
            &ctx.cwd(),
        )));
    }
    if !dir.is_dir() {
        return Err(ToolError::RespondToModel(tools_texts::not_a_directory(dir)));
    }
    Ok(())
}

/// A walked entry that is a regular file; None for an unreadable entry,
/// a directory or a special file (the searches skip those).
pub(crate) fn walked_file(
    entry: Result<ignore::DirEntry, ignore::Error>,
) -> Option<ignore::DirEntry> {
    entry
        .ok()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
}

/// An entry's modification time (the epoch when unknown), which orders
/// search results newest first.
pub(crate) fn modified(entry: &ignore::DirEntry) -> SystemTime {
    entry
        .metadata()
        .ok()
        .and_then(|m| m.modified().ok())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// What the threads of a parallel walk find. A thread that panicked
/// mid-push leaves the list as it was: the rest is kept.
pub(crate) struct Found<T>(Mutex<Vec<T>>);

impl<T> Found<T> {
    pub(crate) fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    pub(crate) fn push(&self, item: T) {
        match self.0.lock() {
            Ok(mut list) => list.push(item),
            Err(poisoned) => poisoned.into_inner().push(item),
        }
    }

    pub(crate) fn into_vec(self) -> Vec<T> {
        match self.0.into_inner() {
            Ok(list) => list,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// The facts of a call that only reads `path` (Read, and the searches from
/// their root): read-only, concurrency-safe.
pub(crate) fn read_facts(path: PathBuf, subject: &str) -> CallFacts {
    CallFacts::about(subject).only_reads().reading(path)
}
