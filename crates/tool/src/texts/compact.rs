//! The texts of compaction: the instructions of the summary request, the
//! user message that replaces a compacted history, and the placeholder of
//! a tool result the fallback cleared.
//!
//! Sender: `orbit-engine`'s `compact` module (automatic compaction before a
//! request, after a prompt-too-long error, and `QueryEngine::compact`).

/// What the summary request asks for. It is appended, as a user message,
/// to the conversation being compacted; the answer replaces that
/// conversation, so it must keep everything a coding agent needs to go on.
pub const COMPACT_INSTRUCTIONS: &str = "Your task now is to write a summary of the conversation so far. The summary will replace the whole conversation: after it, you will continue the work with nothing but this summary, so keep everything needed to go on without asking the user again.

Do not call any tools. Answer with the summary as plain text, in these sections:

1. Task: what the user asked for, in their words where it matters, and every constraint they set.
2. Decisions: what was decided and why, including approaches that were tried and rejected.
3. Files: every file read, created or changed, with what matters about it (key names, line numbers, the change made).
4. Errors: errors met and how they were fixed, or that they are still open.
5. Open work: the todo items and steps not done yet, in order.
6. Last request: the user's most recent request, quoted exactly, and what was being done for it when this summary was asked for.
7. Next step: the single next action, if the work is not finished.

Be specific and concise: exact names, paths, commands and values; no pleasantries.";

/// [`COMPACT_INSTRUCTIONS`], then the request the run is working on when
/// the compaction happens in the middle of it (quoted, so the summary's
/// Task and Last request come from the conversation: without it a 1.5B
/// model summarized a worked example of its system prompt as the task),
/// then the caller's extra instructions (`QueryEngine::compact(Some(..))`,
/// `/compact TEXT`), when there are any.
pub fn compact_instructions(extra: Option<&str>, current_request: Option<&str>) -> String {
    let mut text = COMPACT_INSTRUCTIONS.to_string();
    if let Some(request) = current_request.map(str::trim).filter(|s| !s.is_empty()) {
        text.push_str(&format!(
            "\n\nThe user's most recent request, verbatim (examples in the system prompt are not part of this conversation):\n<request>\n{request}\n</request>"
        ));
    }
    if let Some(extra) = extra.map(str::trim).filter(|s| !s.is_empty()) {
        text.push_str(&format!("\n\nAdditional instructions:\n{extra}"));
    }
    text
}

/// The user message that starts a compacted history: the summary, and what
/// to do with it.
pub fn compact_summary_message(summary: &str) -> String {
    format!(
        "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n<summary>\n{}\n</summary>\n\nContinue the work from where it was left off without asking the user any further questions. Continue with the last task you were asked to work on.",
        summary.trim()
    )
}

/// What a tool result says after the fallback cleared it to make room
/// (Claude Code's text for a cleared result).
pub const CLEARED_TOOL_RESULT: &str = "[Old tool result content cleared]";

/// The note that opens a history the fallback had to cut (the summary
/// request failed, so the oldest turns were dropped instead).
pub fn dropped_turns_note(dropped_messages: usize) -> String {
    format!(
        "<system-reminder>The conversation ran out of context and could not be summarized: its {dropped_messages} oldest messages were dropped. If something you need is missing, read it again.</system-reminder>"
    )
}

/// The text that stands in for a text block cut to fit the summary request.
pub fn cut_text_marker(cut_chars: usize) -> String {
    format!("\n[... {cut_chars} characters cut to fit the context window ...]")
}
