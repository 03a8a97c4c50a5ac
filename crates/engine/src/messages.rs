//! The exact texts the engine itself puts into tool_results and user
//! messages (cancel, interrupt, denial, sibling abort, limits). Models are
//! trained on Claude Code's wording, so these follow it where it exists.

pub use orbit_tool::INTERRUPT_MESSAGE_FOR_TOOL_USE;

/// Result of a tool that had not started when the user interrupted (L5).
pub const CANCEL_MESSAGE: &str = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.";

/// Result of a tool_use of a response whose stream was cut after another
/// call of it had started (so the response is kept rather than retried):
/// this call never ran.
pub const STREAM_CUT_TOOL_NOT_RUN_MESSAGE: &str = "<tool_use_error>This tool call was not run: the response was cut off by a network error before it started. Call it again if it is still needed.</tool_use_error>";

/// The `errors` line of an interrupted run.
pub const INTERRUPT_MESSAGE: &str = "[Request interrupted by user]";

/// The user message that asks the model to go on after a `max_tokens` stop
/// (L4), Claude Code's recovery text.
pub const MAX_TOKENS_CONTINUE_MESSAGE: &str = "Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.";

/// How much of a failed sibling's subject the cancel text quotes, in chars.
pub const SIBLING_DESCRIPTION_CHARS: usize = 40;

/// `Reached maximum number of turns (N)` (L3).
pub fn max_turns_error(max_turns: u32) -> String {
    format!("Reached maximum number of turns ({max_turns})")
}

/// `Reached maximum budget ($X)` (L3); `X` printed like JavaScript prints
/// numbers (`0.5`, `2`).
pub fn max_budget_error(max_budget_usd: f64) -> String {
    format!("Reached maximum budget (${max_budget_usd})")
}

/// The result of a call cancelled because a parallel call failed (X5), e.g.
/// `Cancelled: parallel tool call Bash(false) errored`: the failed call's
/// tool name and its subject (command, path, pattern or URL, from its
/// facts) cut to [`SIBLING_DESCRIPTION_CHARS`].
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
    format!("<tool_use_error>Error calling tool ({tool_name}): {detail}</tool_use_error>")
}

/// The result of a tool whose call panicked: the panic is contained, the
/// model sees an error like any other failed call.
pub fn tool_panic_error(tool_name: &str, detail: &str) -> String {
    format!(
        "<tool_use_error>Error calling tool ({tool_name}): the tool crashed: {detail}</tool_use_error>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_texts_match_claude_code() {
        assert_eq!(max_turns_error(2), "Reached maximum number of turns (2)");
        assert_eq!(max_budget_error(0.5), "Reached maximum budget ($0.5)");
        assert_eq!(max_budget_error(2.0), "Reached maximum budget ($2)");
    }

    #[test]
    fn sibling_text_quotes_the_command_cut_to_40_chars() {
        assert_eq!(
            sibling_error_message("Bash", "false"),
            "Cancelled: parallel tool call Bash(false) errored"
        );
        let long = "x".repeat(45);
        assert_eq!(
            sibling_error_message("Bash", &long),
            format!(
                "Cancelled: parallel tool call Bash({}…) errored",
                "x".repeat(40)
            )
        );
    }
}
