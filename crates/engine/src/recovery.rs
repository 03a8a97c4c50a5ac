//! Reply checks: the query loop's side of the generic hook
//! [`orbit_tool::ReplyCheck`] (`EngineConfig::reply_check`, set by a model
//! profile such as the small-model one in `orbit-profile`). The engine
//! knows no phrases and no limits; it keeps the facts of one prompt and
//! asks the check whenever a reply would end the prompt.
//!
//! Data flow: the loop owns one [`ReplyChecks`] per prompt, reports each
//! tool step ([`ReplyChecks::tool_step`]: every result failed, deferred
//! tools loaded), and asks [`ReplyChecks::reminder_for`] with the final
//! answer before ending the run; a reminder is appended as a user message
//! and the model is asked again. The last step's facts are dropped once a
//! reminder followed them (the next reply answers the reminder, not the
//! step). A reminder that questions the reply keeps it: when the model
//! answers the reminder with text only, that questioned reply is the
//! run's answer ([`ReplyChecks::take_questioned`]); a tool call drops it.

use std::sync::Arc;

use orbit_tool::reply_check::{ReplyCheck, ReplyFacts, StepFacts};

/// The reply-check state of one prompt.
#[derive(Debug)]
pub(crate) struct ReplyChecks {
    check: Option<Arc<dyn ReplyCheck>>,
    prompt: String,
    tool_ran: bool,
    may_have_written: bool,
    ran_command: bool,
    last_step: Option<StepFacts>,
    /// The reply a reminder questioned, until a tool runs.
    questioned: Option<String>,
    sent: u32,
}

impl ReplyChecks {
    /// A prompt's state; `check` is the profile's (None: no checks).
    pub(crate) fn new(check: Option<Arc<dyn ReplyCheck>>, prompt: &str) -> Self {
        Self {
            prompt: if check.is_some() {
                prompt.to_string()
            } else {
                String::new()
            },
            check,
            tool_ran: false,
            may_have_written: false,
            ran_command: false,
            last_step: None,
            questioned: None,
            sent: 0,
        }
    }

    /// A message of this prompt held a tool_use: `step` is its outcome
    /// (every result an error, tools loaded, every call printed nothing);
    /// `may_have_written`: a call of the step that is not read-only by its
    /// facts started and did not report that it changed nothing;
    /// `ran_command`: a call of the step that runs a command started.
    pub(crate) fn tool_step(&mut self, step: StepFacts, may_have_written: bool, ran_command: bool) {
        self.tool_ran = true;
        self.may_have_written |= may_have_written;
        self.ran_command |= ran_command;
        self.questioned = None;
        self.last_step = Some(step);
    }

    /// The questioned reply, when the model replied to its reminder with
    /// text only: it is the run's answer.
    pub(crate) fn take_questioned(&mut self) -> Option<String> {
        self.questioned.take()
    }

    /// The reminder to send instead of ending the prompt with `answer`, if
    /// any (counted: the caller sends it).
    pub(crate) fn reminder_for(&mut self, answer: &str) -> Option<String> {
        let reminder = self.check.as_ref()?.check(&ReplyFacts {
            reply: answer,
            prompt: &self.prompt,
            tool_ran: self.tool_ran,
            may_have_written: self.may_have_written,
            ran_command: self.ran_command,
            last_step: self.last_step,
            reminders_sent: self.sent,
            answers_question: self.questioned.is_some(),
        })?;
        if reminder.questions_reply && !answer.trim().is_empty() {
            self.questioned = Some(answer.to_string());
        }
        self.last_step = None;
        self.sent += 1;
        Some(reminder.text)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::Mutex;

    use orbit_tool::reply_check::Reminder;

    use super::*;

    /// What the check was shown: reply, prompt, tool ran, may have
    /// written, last step, sent.
    type Seen = (String, String, bool, bool, Option<StepFacts>, u32);

    /// Records the facts it is shown; questions every reply but "stop".
    #[derive(Debug, Default)]
    struct Recorder {
        seen: Mutex<Vec<Seen>>,
    }

    impl ReplyCheck for Recorder {
        fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder> {
            self.seen.lock().unwrap().push((
                facts.reply.to_string(),
                facts.prompt.to_string(),
                facts.tool_ran,
                facts.may_have_written,
                facts.last_step,
                facts.reminders_sent,
            ));
            (facts.reply != "stop").then(|| Reminder {
                text: format!("re {}", facts.reply),
                questions_reply: true,
            })
        }
    }

    fn step(all_failed: bool, loaded_tools: bool) -> StepFacts {
        StepFacts {
            all_failed,
            loaded_tools,
            printed_nothing: false,
        }
    }

    #[test]
    fn no_check_sends_nothing() {
        let mut checks = ReplyChecks::new(None, "p");
        checks.tool_step(step(true, false), true, false);
        assert_eq!(checks.reminder_for("<tool_call>"), None);
        assert_eq!(checks.take_questioned(), None);
    }

    #[test]
    fn the_check_sees_the_prompt_facts_and_a_reminder_drops_the_step() {
        let recorder = Arc::new(Recorder::default());
        let mut checks = ReplyChecks::new(Some(recorder.clone()), "sort it");
        assert_eq!(checks.reminder_for("a").as_deref(), Some("re a"));
        checks.tool_step(step(true, true), false, false);
        assert_eq!(checks.reminder_for("b").as_deref(), Some("re b"));
        assert_eq!(checks.reminder_for("stop"), None);
        // The model stood by "b": it is the answer.
        assert_eq!(checks.take_questioned().as_deref(), Some("b"));
        assert_eq!(checks.take_questioned(), None);
        // An empty reply is never kept; a tool step drops a kept one.
        assert_eq!(checks.reminder_for(" ").as_deref(), Some("re  "));
        assert_eq!(checks.take_questioned(), None);
        assert_eq!(checks.reminder_for("c").as_deref(), Some("re c"));
        checks.tool_step(step(false, false), true, false);
        assert_eq!(checks.take_questioned(), None);
        checks.tool_step(step(false, false), false, false);
        assert_eq!(checks.reminder_for("stop"), None);
        let seen = |reply: &str, ran, wrote, step, sent| {
            (
                reply.to_string(),
                "sort it".to_string(),
                ran,
                wrote,
                step,
                sent,
            )
        };
        let step = |all_failed, loaded_tools| Some(step(all_failed, loaded_tools));
        assert_eq!(
            *recorder.seen.lock().unwrap(),
            vec![
                seen("a", false, false, None, 0),
                seen("b", true, false, step(true, true), 1),
                seen("stop", true, false, None, 2),
                seen(" ", true, false, None, 2),
                seen("c", true, false, None, 3),
                // Once a call that may write started, it stays so.
                seen("stop", true, true, step(false, false), 4),
            ]
        );
    }
}
