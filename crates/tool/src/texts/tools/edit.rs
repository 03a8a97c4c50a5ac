//! Edit's texts (T4/T5, §8): its description, its refusals in Claude
//! Code's order and wording, and its answers.

/// Edit's description.
pub const DESCRIPTION: &str = "Performs an exact string replacement in a file. old_string must match the file exactly, \
including indentation, without the line-number prefix Read shows, and must be unique in the file unless \
replace_all is true (which replaces every occurrence, e.g. to rename). Read the file first unless you know \
its exact text; an edit of a file that changed on disk since you read it is refused. An empty old_string on \
a missing file creates it with new_string. CRLF line endings are kept.";

/// §8 no-op text.
pub const NO_CHANGES_MESSAGE: &str =
    "No changes to make: old_string and new_string are exactly the same.";

/// Empty `old_string` on an existing, non-blank file.
pub const FILE_EXISTS_MESSAGE: &str = "Cannot create new file - file already exists.";

/// A file over Edit's size cap (Claude Code's wording; orbit's cap is
/// smaller, so an edit never holds more than a few copies of it).
pub fn file_too_large(size_bytes: u64, max_bytes: u64) -> String {
    use crate::texts::units::format_file_size;
    format!(
        "File is too large to edit ({}). Maximum editable file size is {}.",
        format_file_size(size_bytes),
        format_file_size(max_bytes)
    )
}

/// `old_string` is not in the file.
pub fn string_not_found(old_string: &str) -> String {
    format!("String to replace not found in file.\nString: {old_string}")
}

/// `old_string` matches `matches` times and `replace_all` is false.
pub fn ambiguous_match(matches: usize, old_string: &str) -> String {
    format!(
        "Found {matches} matches of the string to replace, but replace_all is false. To replace all \
occurrences, set replace_all to true. To replace only one occurrence, please provide more context to \
uniquely identify the instance.\nString: {old_string}"
    )
}

/// Claude Code's success texts: one replacement, or all of them.
pub fn success(shown_path: &str, replace_all: bool) -> String {
    if replace_all {
        format!(
            "The file {shown_path} has been updated. All occurrences were successfully replaced."
        )
    } else {
        format!("The file {shown_path} has been updated successfully.")
    }
}
