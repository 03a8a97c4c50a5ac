//! Write's texts (T4/T5): its description and its two answers (Claude
//! Code's). Refusals use the shared file texts of [`super`].

use std::path::Path;

/// Write's description.
pub const DESCRIPTION: &str = "Writes a file to the local filesystem, replacing it if it exists and creating parent \
directories. An existing file must have been read with Read in this session, and the write is refused if the \
file changed on disk since. Prefer Edit for changing existing files; create new files only when needed.";

/// An existing file was replaced.
pub fn updated(path: &Path) -> String {
    format!("The file {} has been updated successfully.", path.display())
}

/// A new file was created.
pub fn created(path: &Path) -> String {
    format!("File created successfully at: {}", path.display())
}

/// Write's refusal of a content that is one of orbit's own tool-result
/// texts (issue 17: a small model overwrote a file with "The file has been
/// updated successfully."). orbit's text.
pub const STATUS_TEXT_REFUSAL: &str = "Refused: the content is one of orbit's own tool-result messages, not \
file content. Do not write a status message into the file. Write the file's real content, or, if the task \
is done, reply to the user in plain text.";
