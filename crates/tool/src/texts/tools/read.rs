//! Read's texts (T4, §8): its description, the empty-file and short-file
//! reminders, and its refusals (binary files, size and token limits,
//! images too large). Missing files and directories use the shared texts
//! of [`super`].

use crate::texts::units::format_read_size;

/// Read's description.
pub const DESCRIPTION: &str = "Reads a file from the local filesystem. file_path is absolute or relative to the cwd. \
Returns up to 2000 lines from the start, each as its line number, a tab, then the line (1-based); \
use offset (first line, 1-based) and limit for long files. Lines over 2000 chars are cut. \
Files over 256 KB must be read in parts with offset/limit, or searched with Grep. \
PNG, JPEG, GIF and WebP images are shown as images; other binary files are refused. \
A file must be read before Write or Edit may change it.";

/// The text of an empty file (§8; Claude Code's reminder).
pub const EMPTY_FILE_REMINDER: &str =
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

/// Appended to a line cut at Read's line length limit.
pub const LINE_TRUNCATION_MARKER: &str = "… [truncated]";

/// How to read a file too large for one read (Claude Code's text).
const PARTIAL_READ_HINT: &str = "Please use offset and limit parameters to read specific portions of the file, \
or use the Grep tool to search for specific content.";

/// An offset past the end (Claude Code's reminder): the file has `total`
/// lines.
pub fn shorter_than_offset(offset: u64, total_lines: u64) -> String {
    format!(
        "<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). \
The file has {total_lines} lines.</system-reminder>"
    )
}

/// A binary file that is not a supported image (Claude Code's text);
/// `extension` without the dot, empty when the file has none.
pub fn binary_file(extension: &str) -> String {
    let kind = if extension.is_empty() {
        String::new()
    } else {
        format!(".{extension} ")
    };
    format!(
        "This tool cannot read binary files. The file appears to be a binary {kind}file. \
Please use appropriate tools for binary file analysis."
    )
}

/// A whole-file read over the size limit (Claude Code's text).
pub fn file_too_large(size_bytes: u64, max_bytes: u64) -> String {
    format!(
        "File content ({}) exceeds maximum allowed size ({}). {}",
        format_read_size(size_bytes),
        format_read_size(max_bytes),
        PARTIAL_READ_HINT
    )
}

/// A read whose result is over the token limit (Claude Code's text).
pub fn too_many_tokens(tokens: usize, max_tokens: usize) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({max_tokens}). {PARTIAL_READ_HINT}"
    )
}

/// An image over the size the API accepts.
pub fn image_too_large(size_bytes: u64, max_bytes: u64) -> String {
    format!(
        "Image is too large ({}); the maximum is {}. Resize or compress it before reading.",
        format_read_size(size_bytes),
        format_read_size(max_bytes)
    )
}
