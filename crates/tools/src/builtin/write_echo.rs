//! Write's guard against echoed status texts (issue 17): a small model
//! sometimes "writes" the result it expects ("The file notes.md has been
//! updated successfully.") into the file it meant to change.
//!
//! [`is_tool_result_text`] renders each of orbit's tool-result templates
//! (the formatting functions of `orbit_tool::texts`) with a marker where
//! the template shows a value, splits it there, and matches the trimmed
//! content against the pieces: the first as a prefix, the last as a suffix,
//! the middle ones in order. A value may be missing ("The file has been
//! updated successfully." matches `The file PATH has been updated
//! successfully.`). Only one short line is a candidate: every template is
//! one line, and real file content rarely is one of them.

use std::path::Path;

use orbit_tool::texts::{engine, permissions, tools};

/// Stands where a template shows a value (a path, a tool name, a rule).
const MARK: &str = "\u{1}";

/// Longest content checked against the templates, in bytes (the longest
/// template with a long path stays below it).
const STATUS_TEXT_MAX_BYTES: usize = 1024;

/// The tool-result templates a model might echo into a file, rendered with
/// [`MARK`] for each value.
fn templates() -> Vec<String> {
    let at = Path::new(MARK);
    vec![
        tools::write::updated(at),
        tools::write::created(at),
        tools::edit::success(MARK, false),
        tools::edit::success(MARK, true),
        tools::edit::NO_CHANGES_MESSAGE.to_string(),
        tools::edit::FILE_EXISTS_MESSAGE.to_string(),
        tools::NOT_READ_MESSAGE.to_string(),
        tools::MODIFIED_MESSAGE.to_string(),
        tools::file_not_found(at),
        tools::permission_denied(at),
        tools::write::STATUS_TEXT_REFUSAL.to_string(),
        permissions::denied_by_rule(MARK, MARK),
        permissions::denied_in_plan_mode(MARK),
        permissions::not_granted(MARK),
        permissions::ask_rule(MARK, MARK),
        permissions::deny_rule_unsure(MARK, MARK),
        permissions::outside_workspace(MARK, at, true),
        permissions::outside_workspace(MARK, at, false),
        permissions::protected_path(MARK, at, MARK),
        engine::CANCEL_MESSAGE.to_string(),
        engine::INTERRUPT_MESSAGE.to_string(),
        engine::INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string(),
    ]
}

/// Whether `content`, trimmed, is one of orbit's tool-result texts.
pub(crate) fn is_tool_result_text(content: &str) -> bool {
    let text = content.trim();
    if text.is_empty() || text.len() > STATUS_TEXT_MAX_BYTES || text.contains('\n') {
        return false;
    }
    templates().iter().any(|t| matches_template(t, text))
}

/// `text` is `template` with any values (possibly empty) where it has
/// [`MARK`]s.
fn matches_template(template: &str, text: &str) -> bool {
    let pieces: Vec<&str> = template.split(MARK).collect();
    let [first, middle @ .., last] = pieces.as_slice() else {
        // No value in the template: the whole text.
        return text == template;
    };
    let Some(rest) = text.strip_prefix(first.trim_end()) else {
        return false;
    };
    let Some(mut rest) = rest.strip_suffix(last.trim_start()) else {
        return false;
    };
    for piece in middle {
        match rest.find(piece.trim()) {
            Some(i) => rest = &rest[i + piece.trim().len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Echoed status texts are caught with or without their values; file
    /// content that merely resembles one is not.
    #[test]
    fn status_texts_are_recognised_by_their_templates() {
        let table = [
            ("The file has been updated successfully.", true),
            ("The file notes.md has been updated successfully.\n", true),
            (
                "  The file /tmp/x/notes.md has been updated successfully.  ",
                true,
            ),
            ("File created successfully at: /tmp/a.txt", true),
            ("File created successfully at:", true),
            (
                "The file a.py has been updated. All occurrences were successfully replaced.",
                true,
            ),
            (
                "File has not been read yet. Read it first before writing to it.",
                true,
            ),
            (
                "orbit requested permissions to use Bash, but you haven't granted it yet.",
                true,
            ),
            (
                "Permission to use Bash has been denied by the rule `Bash(rm:*)`.",
                true,
            ),
            ("[Request interrupted by user]", true),
            ("", false),
            ("hello world\n", false),
            ("The file format is described below.", false),
            (
                "The file has been updated successfully.\nSecond line of real content.",
                false,
            ),
            ("# Notes\nFile created successfully at: /tmp/a.txt\n", false),
            ("Request interrupted by user", false),
        ];
        for (content, expected) in table {
            assert_eq!(is_tool_result_text(content), expected, "{content:?}");
        }
    }

    #[test]
    fn a_huge_single_line_is_not_checked() {
        let long = format!(
            "The file {} has been updated successfully.",
            "x".repeat(STATUS_TEXT_MAX_BYTES)
        );
        assert!(!is_tool_result_text(&long));
    }
}
