//! R1: a result larger than its tool's `max_result_size_chars` is saved whole
//! to disk and replaced by a `<persisted-output>` block holding the size, the
//! path and a preview (Claude Code's `maybePersistLargeToolResult`,
//! `generatePreview`, `buildLargeToolResultMessage`, `formatFileSize`).
//!
//! Flow: [`maybe_persist_large_tool_result`] measures the text (chars) →
//! over the threshold, [`ToolResultStorage::write`] saves it byte-exact →
//! [`persisted_output_message`] builds the text the model sees (its wording
//! is `orbit_tool::texts::engine::persisted_output`). If the write
//! fails the original block is returned unchanged and a warning is logged.
//! R2 (the budget) reuses [`persisted_output_message`], so both paths send
//! the same shape.

use std::path::Path;

use orbit_protocol::{ToolResultBlock, ToolResultContent};
use orbit_tool::texts::engine::persisted_output;

use super::storage::ToolResultStorage;

pub(crate) use orbit_tool::texts::engine::PERSISTED_OUTPUT_TAG;
pub use orbit_tool::texts::units::format_file_size;

/// How much of a persisted result the model sees inline.
pub(crate) const PREVIEW_SIZE_CHARS: usize = 2_000;

/// `generatePreview`: the first `max_chars` chars, cut back to the last
/// newline inside them when that newline is past char `max_chars / 2` (the
/// newline itself is dropped); otherwise (one long line) cut at `max_chars`.
/// Returns the preview and whether anything was left out.
pub fn generate_preview(content: &str, max_chars: usize) -> (&str, bool) {
    let Some((cut_byte, _)) = content.char_indices().nth(max_chars) else {
        return (content, false);
    };
    let truncated = &content[..cut_byte];
    if let Some(nl_byte) = truncated.rfind('\n') {
        let nl_char = truncated[..nl_byte].chars().count();
        if nl_char > max_chars / 2 {
            return (&content[..nl_byte], true);
        }
    }
    (truncated, true)
}

/// The text that replaces a persisted result (`buildLargeToolResultMessage`):
///
/// ```text
/// <persisted-output>
/// Output too large (223.5KB). Full output saved to: PATH
///
/// Preview (first 2KB):
/// PREVIEW
/// ...
/// </persisted-output>
/// ```
///
/// The `...` line is present only when the preview left something out.
/// Pure: depends only on `text` and `path`, so R2 can compute it before the
/// write and freeze it.
pub fn persisted_output_message(text: &str, path: &Path) -> String {
    let (preview, has_more) = generate_preview(text, PREVIEW_SIZE_CHARS);
    persisted_output(
        text.len() as u64,
        path,
        PREVIEW_SIZE_CHARS,
        preview,
        has_more,
    )
}

/// True for text that is already a `<persisted-output>` block (R1 ran).
pub(super) fn is_persisted_output(content: &ToolResultContent) -> bool {
    matches!(content, ToolResultContent::Text(t) if t.starts_with(PERSISTED_OUTPUT_TAG))
}

/// R1 for one block. Results containing an image are never persisted (the
/// image would be lost, and their text is normally small); a text-only list
/// of blocks is persisted as its texts joined by `\n`. `threshold_chars` of
/// `usize::MAX` opts out (Read bounds itself).
pub(crate) async fn maybe_persist_large_tool_result(
    storage: &ToolResultStorage,
    block: ToolResultBlock,
    threshold_chars: usize,
    full_text: Option<String>,
) -> ToolResultBlock {
    if block.content.has_image() || block.content.text_len_chars() <= threshold_chars {
        return block;
    }
    // The raw output (e.g. Bash before trimming) is what the file must hold.
    let text = full_text.unwrap_or_else(|| block.content.as_text());
    match storage.write(&block.tool_use_id, &text).await {
        Ok(path) => ToolResultBlock {
            content: ToolResultContent::Text(persisted_output_message(&text, &path)),
            ..block
        },
        Err(err) => {
            tracing::warn!(
                tool_use_id = %block.tool_use_id,
                error = %err,
                "could not persist large tool result; sending it inline"
            );
            block
        }
    }
}
