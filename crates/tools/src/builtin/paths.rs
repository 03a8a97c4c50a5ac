//! Paths as the search tools (Glob, Grep, LS) take and show them: an
//! optional `path` input resolved to the directory a search starts from
//! (`.` and `..` folded), a directory checked before it is walked, a found
//! path shown relative to the cwd, and the facts of a call that only reads
//! one path.

use std::path::{Component, Path, PathBuf};

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

/// The facts of a call that only reads `path` (Read, and the searches from
/// their root): read-only, concurrency-safe.
pub(crate) fn read_facts(path: PathBuf, subject: &str) -> CallFacts {
    CallFacts::about(subject).only_reads().reading(path)
}
