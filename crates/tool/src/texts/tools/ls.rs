//! LS's texts: its description, the truncation note (Claude Code's), and
//! bad `ignore` globs. Missing or non-directory paths use the shared texts
//! of [`super`].

use std::fmt::Display;

/// LS's description.
pub const DESCRIPTION: &str = "Lists files and directories under a path as a tree (at most 1000 entries). \
path may be absolute or relative to the working directory. ignore takes glob patterns to leave out. \
Respects .gitignore and skips hidden files. Prefer Glob and Grep when you know what you are looking for.";

/// Prepended when the listing was cut at `max_entries` (Claude Code's
/// text).
pub fn truncated_note(max_entries: usize) -> String {
    format!(
        "There are more than {max_entries} files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first {max_entries} files and directories are included below:\n\n"
    )
}

/// One `ignore` glob does not compile.
pub fn invalid_ignore_glob(glob: &str, error: impl Display) -> String {
    format!("Invalid ignore glob `{glob}`: {error}")
}

/// The `ignore` globs do not combine.
pub fn invalid_ignore_globs(error: impl Display) -> String {
    format!("Invalid ignore globs: {error}")
}
