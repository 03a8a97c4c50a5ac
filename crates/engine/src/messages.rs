//! The exact texts the engine itself puts into tool_results and user
//! messages (cancel, interrupt, denial, sibling abort, limits). They live
//! in `orbit_tool::texts::engine`, the one home of every model-facing
//! text; this module keeps the engine's names for them.

pub use orbit_tool::texts::engine::{
    CANCEL_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE, MAX_TOKENS_CONTINUE_MESSAGE,
};

#[cfg(test)]
mod tests {
    use orbit_tool::texts::engine::{max_budget_error, max_turns_error, sibling_error_message};

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
