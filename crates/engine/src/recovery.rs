//! Recovery turns (issue 17), a profile setting for small models
//! (`EngineConfig::recovery_reminders`): when the reply that would end the
//! prompt imitates a tool exchange (`<tool_call>`, `<tool_response>`, a
//! `{"name": …, "arguments": …}` object written as text), or tells the user
//! what to run instead of acting while no tool has run yet in this prompt,
//! the query loop appends [`RECOVERY_REMINDER`] as a user message and asks
//! again — at most [`MAX_RECOVERY_REMINDERS`] times per prompt. An imitated
//! exchange is never an answer, so it is reminded even after a tool ran (the
//! evaluation's `append-config`: a refused Write, then the refusal echoed
//! inside `<tool_response>` as the final answer); advice to the user after
//! tools ran may be the answer ("run `pytest` to check"), so it is not.
//! A reply that echoes the harness's own invitation ("Call another tool.",
//! from the local chat template's line after a tool result) is never an
//! answer either. When the last tool call of the prompt failed and the
//! model replies with text, the profile asks once more with
//! [`RECOVERY_AFTER_ERROR`]: a small model tends to give up after an error
//! it could fix (an `old_string` it guessed, a Write refused before a Read).
//! That reminder questions an answer that may be right (a test run that
//! failed, as asked, then the failing test named): when the model answers
//! it with text again, without a call, it stood by its answer, so the
//! questioned answer is the run's result ([`Recovery::take_questioned`]) —
//! the reply to orbit's question ("The task is done.") is not an answer
//! to the user.
//! When the last step loaded deferred tools (the engine's ToolSearch) and
//! the model answers with text, it is asked once to call the loaded tool
//! ([`RECOVERY_AFTER_LOAD`]): a small model tends to answer from the loaded
//! definition, inventing the result.
//!
//! Data flow: the loop owns one [`Recovery`] per prompt, tells it when a
//! message held a tool_use, and asks [`Recovery::reminder_for`] with the
//! final answer before ending the run. Detection looks at the text only;
//! it never looks at tool names.

use orbit_tool::texts::engine::{RECOVERY_AFTER_ERROR, RECOVERY_AFTER_LOAD, RECOVERY_REMINDER};

/// At most this many recovery reminders per submitted prompt.
pub const MAX_RECOVERY_REMINDERS: u32 = 2;

/// Markup of a tool exchange that small models write as text.
const EXCHANGE_TAGS: [&str; 4] = [
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
];

/// Phrases (lowercase) of a reply that tells the user what to do instead
/// of doing it.
const DESCRIBING_PHRASES: [&str; 12] = [
    "you need to run",
    "you need to first",
    "you need to read",
    "you need to open",
    "you can use the following command",
    "you can run the following",
    "run the following command",
    "use the following command",
    "you can use the `",
    "you should run",
    "you will need to",
    "you'll need to",
];

/// Phrases (lowercase) of a reply that echoes the harness's invitation to
/// call a tool instead of calling one.
const HARNESS_ECHOES: [&str; 4] = [
    "call another tool",
    "call the next tool",
    "call a tool now",
    "next tool call",
];

/// The recovery state of one prompt.
#[derive(Debug)]
pub(crate) struct Recovery {
    enabled: bool,
    tool_ran: bool,
    last_call_failed: bool,
    just_loaded_tools: bool,
    /// The answer [`RECOVERY_AFTER_ERROR`] questioned, until a tool runs.
    questioned: Option<String>,
    sent: u32,
}

impl Recovery {
    /// A prompt's state; `enabled` is the profile's setting.
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            tool_ran: false,
            last_call_failed: false,
            just_loaded_tools: false,
            questioned: None,
            sent: 0,
        }
    }

    /// A message of this prompt held a tool_use: advice to the user is an
    /// answer from now on.
    /// `failed`: every result of the step was an error; `loaded`: the step
    /// loaded deferred tools.
    pub(crate) fn tool_ran(&mut self, failed: bool, loaded: bool) {
        self.tool_ran = true;
        self.questioned = None;
        self.last_call_failed = failed;
        self.just_loaded_tools = loaded;
    }

    /// The answer [`RECOVERY_AFTER_ERROR`] questioned, when the model
    /// replied to the reminder with text only: it is the run's answer.
    pub(crate) fn take_questioned(&mut self) -> Option<String> {
        self.questioned.take()
    }

    /// The reminder to send instead of ending the prompt with `answer`, if
    /// any (counted: the caller sends it).
    pub(crate) fn reminder_for(&mut self, answer: &str) -> Option<&'static str> {
        if !self.enabled || self.sent >= MAX_RECOVERY_REMINDERS {
            return None;
        }
        let describes = !self.tool_ran && describes_instead_of_acting(answer);
        let reminder = if self.last_call_failed {
            if !answer.trim().is_empty() {
                self.questioned = Some(answer.to_string());
            }
            RECOVERY_AFTER_ERROR
        } else if self.just_loaded_tools {
            RECOVERY_AFTER_LOAD
        } else if imitates_tool_exchange(answer) || echoes_harness(answer) || describes {
            RECOVERY_REMINDER
        } else {
            return None;
        };
        // One reminder per failure or load: the answer after it stands.
        self.last_call_failed = false;
        self.just_loaded_tools = false;
        self.sent += 1;
        Some(reminder)
    }
}

/// Whether a final reply imitates a tool exchange: tool-call markup, or a
/// `{"name": …, "arguments": …}` object, written as text.
fn imitates_tool_exchange(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    EXCHANGE_TAGS.iter().any(|tag| lower.contains(tag))
        || (has_json_key(&lower, "name")
            && (has_json_key(&lower, "arguments") || has_json_key(&lower, "parameters")))
}

/// Whether a final reply repeats the harness's invitation to call a tool.
fn echoes_harness(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    HARNESS_ECHOES.iter().any(|p| lower.contains(p))
}

/// Whether a final reply tells the user what to do instead of doing it.
fn describes_instead_of_acting(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    DESCRIBING_PHRASES.iter().any(|p| lower.contains(p))
}

/// `"key"` followed (after optional whitespace) by `:`.
fn has_json_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_imitated_exchanges_and_instructions_to_the_user() {
        let table = [
            ("<tool_call>\n{\"name\": \"Read\"}\n</tool_call>", true),
            (
                "<tool_response>MAGIC=1</tool_response>\nThe value is 1.",
                true,
            ),
            (
                "{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}",
                true,
            ),
            ("{\"name\" : \"Edit\", \"parameters\": {}}", true),
            ("You need to first read the file config.txt.", true),
            (
                "You can use the following command:\n```\nwc -l data.txt\n```",
                true,
            ),
            ("To rename it, You'll need to open utils.py.", true),
            ("The value of MAGIC is 48213.", false),
            ("data.txt has 12 lines.", false),
            ("Call another tool.", true),
            ("{\"name\": \"orbit\", \"version\": \"1.0\"}", false),
            ("The arguments are named \"name\" and \"arguments\".", false),
            ("", false),
        ];
        for (answer, expected) in table {
            let detected = imitates_tool_exchange(answer)
                || echoes_harness(answer)
                || describes_instead_of_acting(answer);
            assert_eq!(detected, expected, "{answer:?}");
        }
    }

    #[test]
    fn reminders_are_bounded_and_off_by_default_and_advice_after_a_tool_is_an_answer() {
        let imitation = "<tool_response>done</tool_response>";
        let mut off = Recovery::new(false);
        assert_eq!(off.reminder_for(imitation), None);

        let mut on = Recovery::new(true);
        assert_eq!(on.reminder_for("All done."), None);
        for _ in 0..MAX_RECOVERY_REMINDERS {
            assert_eq!(on.reminder_for(imitation), Some(RECOVERY_REMINDER));
        }
        assert_eq!(on.reminder_for(imitation), None);

        // After a tool ran, advice to the user is an answer; an imitated
        // exchange still is not.
        let mut ran = Recovery::new(true);
        ran.tool_ran(false, false);
        assert_eq!(ran.reminder_for("You need to run `pytest` to check."), None);
        assert_eq!(ran.reminder_for(imitation), Some(RECOVERY_REMINDER));
    }

    #[test]
    fn a_text_reply_after_a_failed_call_is_asked_again_once() {
        let mut failed = Recovery::new(true);
        failed.tool_ran(true, false);
        let gave_up = "The string was not found in the file.";
        assert_eq!(failed.reminder_for(gave_up), Some(RECOVERY_AFTER_ERROR));
        // A text reply to the reminder: the questioned answer stands.
        assert_eq!(failed.reminder_for("The task is done."), None);
        assert_eq!(failed.take_questioned().as_deref(), Some(gave_up));
        assert_eq!(failed.take_questioned(), None);
        // A later failure is asked about again; a call after the reminder
        // drops the questioned answer.
        failed.tool_ran(true, false);
        assert_eq!(failed.reminder_for(gave_up), Some(RECOVERY_AFTER_ERROR));
        failed.tool_ran(false, false);
        assert_eq!(failed.reminder_for("Fixed."), None);
        assert_eq!(failed.take_questioned(), None);
        // A call that worked: its answer stands.
        let mut worked = Recovery::new(true);
        worked.tool_ran(false, false);
        assert_eq!(worked.reminder_for("Done: the file is updated."), None);
        // Tools just loaded and a text answer: asked once to call one.
        let mut loaded = Recovery::new(true);
        loaded.tool_ran(false, true);
        let invented = "The timetable says 12:30.";
        assert_eq!(loaded.reminder_for(invented), Some(RECOVERY_AFTER_LOAD));
        assert_eq!(loaded.reminder_for(invented), None);
    }
}
