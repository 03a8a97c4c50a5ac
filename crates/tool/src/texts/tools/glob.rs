//! Glob's texts: its description, the empty and truncated answers (Claude
//! Code's), and a bad pattern. Missing or non-directory paths use the
//! shared texts of [`super`].

use std::fmt::Display;

/// Glob's description.
pub const DESCRIPTION: &str = "Fast file pattern matching for any codebase size.\n\
- Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\" (`*` stays within one directory, `**` crosses directories)\n\
- Returns matching file paths sorted by modification time, newest first (at most 100)\n\
- Respects .gitignore and skips hidden files\n\
- Use it to find files by name; use Grep to search file contents";

/// Appended when more files matched than Glob returns.
pub const GLOB_TRUNCATED_NOTE: &str =
    "(Results are truncated. Consider using a more specific path or pattern.)";

/// The answer when nothing matched (also Grep's in its file modes).
pub const NO_FILES_FOUND: &str = "No files found";

/// The pattern does not compile.
pub fn invalid_pattern(pattern: &str, error: impl Display) -> String {
    format!("Invalid glob pattern `{pattern}`: {error}")
}
