//! R3 (empty results) and R4 (error results): what the model sees when a
//! tool printed nothing or failed (Claude Code's empty-result guard in
//! `toolResultStorage.ts` and `formatError` in `toolErrors.ts`). The texts
//! live in `orbit_tool::texts::engine`.
//!
//! Why R3 exists: some models read an empty tool_result as the end of their
//! turn and stop; a short placeholder keeps them going.

use orbit_protocol::{ToolResultContent, ToolResultContentBlock};
use orbit_tool::texts::engine::truncated_error;

pub(crate) use orbit_tool::texts::engine::{EMPTY_ERROR_TEXT, empty_result_placeholder};

/// Error text longer than this (chars) is cut in the middle.
pub(crate) const MAX_ERROR_CHARS: usize = 10_000;
/// Chars kept from each end of a cut error.
pub(super) const ERROR_HALF_CHARS: usize = MAX_ERROR_CHARS / 2;

/// R4 `formatError`: trims the message; empty → `Command failed with no
/// output`; over 10,000 chars → first 5,000 + `\n\n... [N characters
/// truncated] ...\n\n` + last 5,000, N = chars − 10,000.
pub fn format_error(message: &str) -> String {
    let full = message.trim();
    if full.is_empty() {
        return EMPTY_ERROR_TEXT.to_string();
    }
    let len = full.chars().count();
    if len <= MAX_ERROR_CHARS {
        return full.to_string();
    }
    let start_end = char_byte_offset(full, ERROR_HALF_CHARS);
    let tail_start = char_byte_offset(full, len - ERROR_HALF_CHARS);
    truncated_error(
        &full[..start_end],
        len - MAX_ERROR_CHARS,
        &full[tail_start..],
    )
}

/// `isToolResultContentEmpty`: whitespace-only text, or a list with no image
/// whose text blocks are all whitespace-only (an empty list counts).
pub(crate) fn is_tool_result_content_empty(content: &ToolResultContent) -> bool {
    match content {
        ToolResultContent::Text(t) => t.trim().is_empty(),
        ToolResultContent::Blocks(blocks) => blocks.iter().all(|b| match b {
            ToolResultContentBlock::Text { text } => text.trim().is_empty(),
            ToolResultContentBlock::Image { .. } | ToolResultContentBlock::Document { .. } => false,
        }),
    }
}

/// Byte offset of char number `n` (or the end).
fn char_byte_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}
