//! The texts the engine itself puts into tool_results and user messages:
//! cancel, interrupt, sibling abort, fatal errors, limits, and the result
//! pipeline's placeholders (R1, R3, R4). Models are trained on Claude
//! Code's wording, so these follow it where it exists.
//!
//! Senders: `orbit-engine`'s executor (cancel, interrupt, sibling, panic),
//! orchestrator (fatal errors), query loop (stream cut, `max_tokens`,
//! limits) and result pipeline (`results::{errors, persist}`); this crate's
//! [`crate::workspace`] (cwd reset) and every tool that stops on its cancel
//! token ([`INTERRUPT_MESSAGE_FOR_TOOL_USE`]).

use std::path::Path;

use super::tool_use_error;
use super::units::format_file_size;

/// What a cancelled call is answered with (Claude Code's text, which models
/// know). Tools that stop on `CallContext::cancel` return it; the engine's
/// executor uses it for the calls it cancels itself.
pub const INTERRUPT_MESSAGE_FOR_TOOL_USE: &str = "[Request interrupted by user for tool use]";

/// Result of a tool that had not started when the user interrupted (L5;
/// Claude Code's text).
pub const CANCEL_MESSAGE: &str = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.";

/// Result of a tool_use of a response whose stream was cut after another
/// call of it had started (so the response is kept rather than retried):
/// this call never ran.
pub const STREAM_CUT_TOOL_NOT_RUN_MESSAGE: &str = "<tool_use_error>This tool call was not run: the response was cut off by a network error before it started. Call it again if it is still needed.</tool_use_error>";

/// The `errors` line of an interrupted run (Claude Code's text).
pub const INTERRUPT_MESSAGE: &str = "[Request interrupted by user]";

/// The user message that asks the model to go on after a `max_tokens` stop
/// (L4), Claude Code's recovery text.
pub const MAX_TOKENS_CONTINUE_MESSAGE: &str = "Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.";

/// How much of a failed sibling's subject the cancel text quotes, in chars.
pub const SIBLING_DESCRIPTION_CHARS: usize = 40;

/// `Reached maximum number of turns (N)` (L3, Claude Code's text).
pub fn max_turns_error(max_turns: u32) -> String {
    format!("Reached maximum number of turns ({max_turns})")
}

/// `Reached maximum budget ($X)` (L3, Claude Code's text); `X` printed
/// like JavaScript prints numbers (`0.5`, `2`).
pub fn max_budget_error(max_budget_usd: f64) -> String {
    format!("Reached maximum budget (${max_budget_usd})")
}

/// The result of a call cancelled because a parallel call failed (X5),
/// e.g. `Cancelled: parallel tool call Bash(false) errored`: the failed
/// call's tool name and its subject (command, path, pattern or URL, from
/// its facts) cut to [`SIBLING_DESCRIPTION_CHARS`] (Claude Code's text).
pub fn sibling_error_message(failed_tool_name: &str, failed_subject: &str) -> String {
    let mut cut: String = failed_subject
        .chars()
        .take(SIBLING_DESCRIPTION_CHARS)
        .collect();
    if cut.len() < failed_subject.len() {
        cut.push('…');
    }
    format!("Cancelled: parallel tool call {failed_tool_name}({cut}) errored")
}

/// The result of a call whose tool reported a fatal error (orbit broke, not
/// the call): the model sees an error naming the tool.
pub fn tool_fatal_error(tool_name: &str, detail: &str) -> String {
    tool_use_error(&format!("Error calling tool ({tool_name}): {detail}"))
}

/// The result of a tool whose call panicked: the panic is contained, the
/// model sees an error like any other failed call.
pub fn tool_panic_error(tool_name: &str, detail: &str) -> String {
    tool_use_error(&format!(
        "Error calling tool ({tool_name}): the tool crashed: {detail}"
    ))
}

/// [`tool_fatal_error`]'s detail when parsing a call's input panicked (the
/// orchestrator's `prepare`).
pub const PARSE_PANICKED_DETAIL: &str = "parsing its input panicked";

/// [`tool_panic_error`]'s detail when the call's task was cancelled
/// instead of finishing.
pub const TASK_CANCELLED_DETAIL: &str = "the task was cancelled";

/// [`tool_panic_error`]'s detail when the panic carried no message.
pub const UNKNOWN_PANIC_DETAIL: &str = "panic";

/// [`tool_fatal_error`]'s detail when the typed adapter was asked to run a
/// call it had already run or never validated (an engine bug).
pub fn call_not_validated_detail(tool_name: &str) -> String {
    format!("{tool_name}: the call was run twice or never validated")
}

/// What the model is told (inside `<tool_use_error>`) when a tool that was
/// not ready yet (an MCP server still connecting) did not become ready
/// within `within_ms`.
pub fn tool_not_ready_error(tool_name: &str, within_ms: u128) -> String {
    format!(
        "{tool_name} is not available: it did not become ready within {within_ms} ms. Try again later or do without it."
    )
}

/// What the model is told when the session's working directory went back
/// to the project root `root` (workspace roots; Bash also says it when the
/// cwd it would run in was removed).
pub fn cwd_reset_note(root: &Path) -> String {
    format!("Shell cwd was reset to {}", root.display())
}

/// R3: the placeholder for a successful result with no visible text (some
/// models read an empty tool_result as the end of their turn; Claude
/// Code's text).
pub fn empty_result_placeholder(tool_name: &str) -> String {
    format!("({tool_name} completed with no output)")
}

/// R4: what an error with no text says (Claude Code's `formatError`).
pub const EMPTY_ERROR_TEXT: &str = "Command failed with no output";

/// R4: an error cut in the middle: its first chars, the marker saying how
/// many chars were left out, its last chars (Claude Code's `formatError`).
pub fn truncated_error(head: &str, truncated_chars: usize, tail: &str) -> String {
    format!("{head}\n\n... [{truncated_chars} characters truncated] ...\n\n{tail}")
}

/// R1: the opening tag of a result replaced by its saved file.
pub const PERSISTED_OUTPUT_TAG: &str = "<persisted-output>";
/// R1: the closing tag of a result replaced by its saved file.
pub const PERSISTED_OUTPUT_CLOSING_TAG: &str = "</persisted-output>";

/// R1/R2: the text that replaces a result saved to `path`
/// (`buildLargeToolResultMessage`, Claude Code's layout):
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
/// `saved_bytes` is the saved file's size, `preview_chars` the preview's
/// bound (shown as a size, as Claude Code does); the `...` line is present
/// only when the preview left something out (`has_more`).
pub fn persisted_output(
    saved_bytes: u64,
    path: &Path,
    preview_chars: usize,
    preview: &str,
    has_more: bool,
) -> String {
    let mut msg = String::with_capacity(preview.len() + 256);
    msg.push_str(PERSISTED_OUTPUT_TAG);
    msg.push('\n');
    msg.push_str(&format!(
        "Output too large ({}). Full output saved to: {}\n\n",
        format_file_size(saved_bytes),
        path.display()
    ));
    msg.push_str(&format!(
        "Preview (first {}):\n",
        format_file_size(preview_chars as u64)
    ));
    msg.push_str(preview);
    msg.push_str(if has_more { "\n...\n" } else { "\n" });
    msg.push_str(PERSISTED_OUTPUT_CLOSING_TAG);
    msg
}

/// The name of the synthetic tool `--json-schema` adds (Claude Code's).
pub const STRUCTURED_OUTPUT_TOOL_NAME: &str = "StructuredOutput";

/// The description of the `StructuredOutput` tool (its input schema is the
/// user's `--json-schema`).
pub const STRUCTURED_OUTPUT_DESCRIPTION: &str = "Use this tool to return your final response in the requested structured format. You MUST call this tool exactly once, at the end, with input that matches its schema; its input is the whole answer.";

/// The result of a `StructuredOutput` call whose input matched the schema.
pub const STRUCTURED_OUTPUT_ACCEPTED: &str = "Structured output provided successfully";

/// The user message sent when the model ended its turn without a valid
/// `StructuredOutput` call while `--json-schema` asks for one.
pub const STRUCTURED_OUTPUT_REQUIRED_REMINDER: &str = "<system-reminder>You MUST call the StructuredOutput tool to complete this request. Call it now with input that matches its schema.</system-reminder>";

/// `Failed to provide valid structured output after N attempts`: the
/// `errors` line of `error_max_structured_output_retries` (Claude Code's text).
pub fn structured_output_retries_error(attempts: u32) -> String {
    format!("Failed to provide valid structured output after {attempts} attempts")
}

/// The reminder appended to the tool results when the model called the
/// same tool with the same input `count` times in a row (the runaway-loop
/// guard's first step).
pub fn repeated_tool_call_reminder(tool_name: &str, count: u32) -> String {
    format!(
        "<system-reminder>You have called {tool_name} with the same input {count} times in a row and got the same kind of result each time. Repeating it will not change the outcome. Use what you already have, try a different approach, or give your final answer now.</system-reminder>"
    )
}

/// The `errors` line of `error_repeated_tool_call`: the run stopped because
/// the model kept repeating one call.
pub fn repeated_tool_call_error(tool_name: &str, count: u32) -> String {
    format!(
        "Stopped a runaway loop: the model called {tool_name} with the same input {count} times in a row"
    )
}
