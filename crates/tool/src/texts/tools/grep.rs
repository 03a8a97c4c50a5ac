//! Grep's texts: its description, the answers of its three output modes
//! (Claude Code's layout), notes, and refusals of a bad regex, glob or
//! type. Empty file-mode answers use
//! [`super::glob::NO_FILES_FOUND`]; a missing path uses
//! [`super::path_not_found`].

use std::fmt::Display;

/// Grep's description.
pub const DESCRIPTION: &str = "Search file contents with ripgrep's engine.\n\
- Full regex syntax (e.g. \"log.*Error\", \"function\\s+\\w+\"); escape literal braces (`interface\\{\\}`)\n\
- Filter files with glob (\"*.js\", \"*.{ts,tsx}\") or type (\"js\", \"py\", \"rust\")\n\
- output_mode: \"files_with_matches\" (default, paths newest first), \"content\" (matching lines; -A/-B/-C, -n), \"count\"\n\
- multiline: true lets patterns span lines (. matches newlines)\n\
- Respects .gitignore; skips binary files. Use it instead of grep/rg in Bash";

/// The answer in content and count modes when nothing matched.
pub const NO_MATCHES_FOUND: &str = "No matches found";

/// Appended when the search stopped at its output cap.
pub const GREP_CAPPED_NOTE: &str =
    "(Search stopped early: too much output. Narrow the pattern, path or glob, or use head_limit.)";

/// Appended to a content line cut at its length limit (ripgrep's marker).
pub const LONG_LINE_MARKER: &str = " [... omitted end of long line]";

/// `files_with_matches`: `Found N file(s)` then one path per line.
pub fn files_found(paths: &[String]) -> String {
    format!(
        "Found {}\n{}",
        count_of(paths.len(), "file"),
        paths.join("\n")
    )
}

/// `count`: one `path:N` line per file, then the total (`M` counts
/// matching lines, as `rg -c` does).
pub fn count_summary(lines: &[String], total_occurrences: u64, files: usize) -> String {
    let occurrences = if total_occurrences == 1 {
        "occurrence"
    } else {
        "occurrences"
    };
    format!(
        "{}\n\nFound {total_occurrences} total {occurrences} across {}.",
        lines.join("\n"),
        count_of(files, "file")
    )
}

/// The pattern does not compile.
pub fn invalid_regex(pattern: &str, error: impl Display) -> String {
    format!("Invalid regex pattern `{pattern}`: {error}")
}

/// One of the `glob` filters does not compile.
pub fn invalid_glob(glob: &str, error: impl Display) -> String {
    format!("Invalid glob `{glob}`: {error}")
}

/// The `glob` filters do not combine.
pub fn invalid_glob_filter(error: impl Display) -> String {
    format!("Invalid glob filter: {error}")
}

/// `type` names no ripgrep file type.
pub fn invalid_file_type(file_type: &str, error: impl Display) -> String {
    format!(
        "Invalid file type `{file_type}`: {error}. Use a ripgrep type name such as rust, py, js, ts, go, java, c, cpp, md, json"
    )
}

/// `1 file`, `2 files`.
pub fn count_of(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
