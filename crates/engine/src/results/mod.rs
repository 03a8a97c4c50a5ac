//! The result pipeline (DESIGN R1–R4): what happens to a tool's output
//! between `Tool::call` and the model.
//!
//! Per result, [`process_tool_result`] runs, in order:
//! map (`ToolOutput` → `tool_result` block) → R3 empty placeholder →
//! R1 persist-if-large → R4 error format. Errors take only the R4 path: they
//! are never persisted and an empty error gets R4's text, not R3's.
//! Before each request the engine runs [`enforce_tool_result_budget`] (R2)
//! over the whole history and sends the view it returns; its decisions are
//! frozen in [`ContentReplacementState`] so the prompt cache stays valid;
//! the engine keeps the sent view (`view`) and runs R2 only over what is new.
//!
//! Submodules: `storage` (paths, slug, atomic write), `beneath` (the
//! write itself, refusing links in a directory a command may change),
//! `persist` (R1 text and preview), `budget` (R2), `view` (the sent view,
//! kept), `errors` (R3/R4; their texts are `orbit_tool::texts::engine`).
//!
//! ## Sizes
//! Thresholds and budgets count Unicode chars of the text parts (images count
//! 0); the size shown in `Output too large (…)` is the UTF-8 byte size of the
//! saved file. A result with an image is never persisted or replaced.
//!
//! ## `max_result_size_chars` per built-in tool (R1)
//! Each tool declares its own threshold (`Tool::max_result_size_chars`); the
//! values the built-ins declare (Claude Code's where it has one):
//!
//! | Tool       | max_result_size_chars | why |
//! |------------|----------------------:|-----|
//! | Bash       | 30,000   | DESIGN R1; build/test logs are long and mostly noise |
//! | Read       | never (`usize::MAX`) | bounded by its own line/size checks; persisting a file only for the model to Read it again would loop |
//! | Grep       | 20,000   | matches are dense; the model should narrow the pattern |
//! | Glob       | 100,000  | path lists, capped by the tool itself |
//! | LS         | 100,000  | directory listings, capped by the tool itself |
//! | Edit/Write | 100,000  | short confirmations; never reached in practice |
//! | TodoWrite  | 100,000  | short confirmation |
//! | WebFetch   | 110,000  | page text, already cut to 100,000 chars by the tool (+ header) |
//! | MCP tools  | 100,000 (recommended) | unknown output; the R2 budget still applies |
//!
//! The per-message budget (R2) defaults to
//! [`DEFAULT_PER_MESSAGE_BUDGET_CHARS`] (200,000 chars); override with
//! `ORBIT_TOOL_RESULT_BUDGET_CHARS` (read by `orbit-config`) or the
//! engine config.

mod beneath;
mod budget;
mod errors;
mod persist;
mod storage;
mod view;

use orbit_protocol::ToolResultBlock;
use orbit_tool::ToolOutput;

pub use budget::{
    ContentReplacementState, DEFAULT_PER_MESSAGE_BUDGET_CHARS, enforce_tool_result_budget,
};
pub use errors::format_error;
use errors::{empty_result_placeholder, is_tool_result_content_empty};
use persist::maybe_persist_large_tool_result;
pub use persist::{format_file_size, generate_preview, persisted_output_message};
pub use storage::{ToolResultStorage, project_slug};
pub(crate) use view::BudgetedView;

/// Whether `output` is a success with no visible text (R3: it becomes the
/// empty placeholder).
pub(crate) fn printed_nothing(output: &ToolOutput) -> bool {
    !output.is_error && is_tool_result_content_empty(&output.content)
}

/// R1–R4 for one result: map → empty placeholder → persist-if-large → error
/// format. `max_result_size_chars` is the tool's declared threshold
/// (`usize::MAX` never persists).
pub async fn process_tool_result(
    storage: &ToolResultStorage,
    tool_name: &str,
    max_result_size_chars: usize,
    tool_use_id: &str,
    output: ToolOutput,
) -> ToolResultBlock {
    if output.is_error {
        return ToolResultBlock::text(tool_use_id, format_error(&output.content.as_text()), true);
    }
    if is_tool_result_content_empty(&output.content) {
        return ToolResultBlock::text(tool_use_id, empty_result_placeholder(tool_name), false);
    }
    let block = ToolResultBlock {
        tool_use_id: tool_use_id.to_string(),
        content: output.content,
        is_error: None,
    };
    maybe_persist_large_tool_result(storage, block, max_result_size_chars, output.full_text).await
}
