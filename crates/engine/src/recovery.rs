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
    tool_ran: bool,
    last_step: Option<StepFacts>,
    /// The reply a reminder questioned, until a tool runs.
    questioned: Option<String>,
    sent: u32,
}

impl ReplyChecks {
    /// A prompt's state; `check` is the profile's (None: no checks).
    pub(crate) fn new(check: Option<Arc<dyn ReplyCheck>>) -> Self {
        Self {
            check,
            tool_ran: false,
            last_step: None,
            questioned: None,
            sent: 0,
        }
    }

    /// A message of this prompt held a tool_use. `all_failed`: every
    /// result of the step was an error; `loaded_tools`: the step loaded
    /// deferred tools.
    pub(crate) fn tool_step(&mut self, all_failed: bool, loaded_tools: bool) {
        self.tool_ran = true;
        self.questioned = None;
        self.last_step = Some(StepFacts {
            all_failed,
            loaded_tools,
        });
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
            tool_ran: self.tool_ran,
            last_step: self.last_step,
            reminders_sent: self.sent,
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

    /// What the check was shown: reply, tool ran, last step, sent.
    type Seen = (String, bool, Option<StepFacts>, u32);

    /// Records the facts it is shown; questions every reply but "stop".
    #[derive(Debug, Default)]
    struct Recorder {
        seen: Mutex<Vec<Seen>>,
    }

    impl ReplyCheck for Recorder {
        fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder> {
            self.seen.lock().unwrap().push((
                facts.reply.to_string(),
                facts.tool_ran,
                facts.last_step,
                facts.reminders_sent,
            ));
            (facts.reply != "stop").then(|| Reminder {
                text: format!("re {}", facts.reply),
                questions_reply: true,
            })
        }
    }

    #[test]
    fn no_check_sends_nothing() {
        let mut checks = ReplyChecks::new(None);
        checks.tool_step(true, false);
        assert_eq!(checks.reminder_for("<tool_call>"), None);
        assert_eq!(checks.take_questioned(), None);
    }

    #[test]
    fn the_check_sees_the_prompt_facts_and_a_reminder_drops_the_step() {
        let recorder = Arc::new(Recorder::default());
        let mut checks = ReplyChecks::new(Some(recorder.clone()));
        assert_eq!(checks.reminder_for("a").as_deref(), Some("re a"));
        checks.tool_step(true, true);
        assert_eq!(checks.reminder_for("b").as_deref(), Some("re b"));
        assert_eq!(checks.reminder_for("stop"), None);
        // The model stood by "b": it is the answer.
        assert_eq!(checks.take_questioned().as_deref(), Some("b"));
        assert_eq!(checks.take_questioned(), None);
        // An empty reply is never kept; a tool step drops a kept one.
        assert_eq!(checks.reminder_for(" ").as_deref(), Some("re  "));
        assert_eq!(checks.take_questioned(), None);
        assert_eq!(checks.reminder_for("c").as_deref(), Some("re c"));
        checks.tool_step(false, false);
        assert_eq!(checks.take_questioned(), None);
        let step = |all_failed, loaded_tools| {
            Some(StepFacts {
                all_failed,
                loaded_tools,
            })
        };
        assert_eq!(
            *recorder.seen.lock().unwrap(),
            vec![
                ("a".to_string(), false, None, 0),
                ("b".to_string(), true, step(true, true), 1),
                ("stop".to_string(), true, None, 2),
                (" ".to_string(), true, None, 2),
                ("c".to_string(), true, None, 3),
            ]
        );
    }
}
