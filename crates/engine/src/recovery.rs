//! Reply checks: the query loop's side of the generic hook
//! [`orbit_tool::ReplyCheck`] (`EngineConfig::reply_check`, set by a model
//! profile such as the small-model one in `orbit-profile`). The engine
//! knows no phrases and no limits; it keeps the facts of one prompt and
//! asks the check whenever a reply would end the prompt.
//!
//! Data flow: the loop owns one [`ReplyChecks`] per prompt, reports each
//! tool step ([`ReplyChecks::tool_step`]: a [`StepRecord`] — every result
//! failed, deferred tools loaded, a call may have written, a command ran —
//! and the step's calls and results, whose text joins what the prompt
//! showed the model, up to [`SHOWN_MAX_BYTES`]), and asks [`ReplyChecks::reminder_for`] with the final
//! answer before ending the run; a reminder is appended as a user message
//! and the model is asked again. The last step's facts are dropped once a
//! reminder followed them (the next reply answers the reminder, not the
//! step). A reminder that questions the reply keeps it: when the model
//! answers the reminder with text only, that questioned reply is the
//! run's answer ([`ReplyChecks::take_questioned`]); a tool call drops it.

use std::sync::Arc;

use orbit_protocol::Message;
use orbit_tool::reply_check::{ReplyCheck, ReplyFacts, StepFacts};

/// Most bytes of tool inputs and results kept per prompt for
/// [`ReplyFacts::shown`]; past it the check is told nothing (`None`).
pub(crate) const SHOWN_MAX_BYTES: usize = 1 << 20;

/// One tool step's facts for the reply check, gathered while the step is
/// committed.
#[derive(Debug, Default, Clone)]
pub(crate) struct StepRecord {
    /// The step's outcome.
    pub(crate) facts: StepFacts,
    /// A call of the step that is not read-only by its facts started and
    /// did not report that it changed nothing.
    pub(crate) may_have_written: bool,
    /// A call of the step that runs a command started.
    pub(crate) ran_command: bool,
    /// The files the step's started calls name as written.
    pub(crate) written: Vec<std::path::PathBuf>,
}

/// The reply-check state of one prompt.
#[derive(Debug)]
pub(crate) struct ReplyChecks {
    check: Option<Arc<dyn ReplyCheck>>,
    prompt: String,
    tool_ran: bool,
    may_have_written: bool,
    ran_command: bool,
    /// The names (last path part) of the files the prompt's started calls
    /// named as written, once each.
    written: Vec<String>,
    /// The prompt's tool inputs and results as text; None once past
    /// [`SHOWN_MAX_BYTES`].
    shown: Option<String>,
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
            written: Vec::new(),
            shown: Some(String::new()),
            last_step: None,
            questioned: None,
            sent: 0,
        }
    }

    /// A message of this prompt held a tool_use: `step` is its record,
    /// `calls` the assistant message, `results` the user message that
    /// answered it (their text is what the step showed the model).
    pub(crate) fn tool_step(
        &mut self,
        step: StepRecord,
        calls: &Message,
        results: Option<&Message>,
    ) {
        self.tool_ran = true;
        self.may_have_written |= step.may_have_written;
        self.ran_command |= step.ran_command;
        self.questioned = None;
        self.last_step = Some(step.facts);
        if self.check.is_none() {
            return;
        }
        for path in &step.written {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !name.is_empty() && !self.written.contains(&name) {
                self.written.push(name);
            }
        }
        self.show(calls, results);
    }

    /// Adds the text of a step's calls (their inputs as JSON) and results.
    fn show(&mut self, calls: &Message, results: Option<&Message>) {
        let Some(shown) = &mut self.shown else {
            return;
        };
        let inputs = calls.tool_uses().map(|t| t.input.to_string());
        let outputs = results
            .into_iter()
            .flat_map(Message::tool_results)
            .map(|r| r.content.as_text());
        for text in inputs.chain(outputs) {
            if shown.len() + text.len() > SHOWN_MAX_BYTES {
                self.shown = None;
                return;
            }
            shown.push_str(&text);
            shown.push('\n');
        }
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
            written: &self.written,
            shown: self.shown.as_deref(),
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

    use orbit_protocol::{ContentBlock, ToolResultBlock};
    use orbit_tool::reply_check::Reminder;
    use serde_json::json;

    use super::*;

    /// What the check was shown: reply, prompt, tool ran, may have
    /// written, last step, sent, shown.
    type Seen = (
        String,
        String,
        bool,
        bool,
        Option<StepFacts>,
        u32,
        Option<String>,
    );

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
                facts.shown.map(str::to_string),
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

    fn record(all_failed: bool, loaded_tools: bool, may_have_written: bool) -> StepRecord {
        StepRecord {
            facts: step(all_failed, loaded_tools),
            may_have_written,
            ran_command: false,
            written: Vec::new(),
        }
    }

    /// A step's messages: one Bash call of `command` and its result `out`.
    fn exchange(command: &str, out: &str) -> (Message, Message) {
        let calls = Message::assistant(vec![ContentBlock::tool_use(
            "toolu_1",
            "Bash",
            json!({ "command": command }),
        )]);
        let results = Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::text(
            "toolu_1", out, false,
        ))]);
        (calls, results)
    }

    #[test]
    fn no_check_sends_nothing() {
        let mut checks = ReplyChecks::new(None, "p");
        let (calls, results) = exchange("ls", "a.txt");
        checks.tool_step(record(true, false, true), &calls, Some(&results));
        assert_eq!(checks.reminder_for("<tool_call>"), None);
        assert_eq!(checks.take_questioned(), None);
    }

    #[test]
    fn the_check_sees_the_prompt_facts_and_a_reminder_drops_the_step() {
        let recorder = Arc::new(Recorder::default());
        let mut checks = ReplyChecks::new(Some(recorder.clone()), "sort it");
        let (calls, results) = exchange("sort x.txt", "a\nb");
        assert_eq!(checks.reminder_for("a").as_deref(), Some("re a"));
        checks.tool_step(record(true, true, false), &calls, Some(&results));
        assert_eq!(checks.reminder_for("b").as_deref(), Some("re b"));
        assert_eq!(checks.reminder_for("stop"), None);
        // The model stood by "b": it is the answer.
        assert_eq!(checks.take_questioned().as_deref(), Some("b"));
        assert_eq!(checks.take_questioned(), None);
        // An empty reply is never kept; a tool step drops a kept one.
        assert_eq!(checks.reminder_for(" ").as_deref(), Some("re  "));
        assert_eq!(checks.take_questioned(), None);
        assert_eq!(checks.reminder_for("c").as_deref(), Some("re c"));
        checks.tool_step(record(false, false, true), &calls, None);
        assert_eq!(checks.take_questioned(), None);
        checks.tool_step(record(false, false, false), &calls, None);
        assert_eq!(checks.reminder_for("stop"), None);
        let one = r#"{"command":"sort x.txt"}
a
b
"#;
        let three =
            format!("{one}{{\"command\":\"sort x.txt\"}}\n{{\"command\":\"sort x.txt\"}}\n");
        let seen = |reply: &str, ran, wrote, step, sent, shown: &str| {
            (
                reply.to_string(),
                "sort it".to_string(),
                ran,
                wrote,
                step,
                sent,
                Some(shown.to_string()),
            )
        };
        let step = |all_failed, loaded_tools| Some(step(all_failed, loaded_tools));
        assert_eq!(
            *recorder.seen.lock().unwrap(),
            vec![
                seen("a", false, false, None, 0, ""),
                seen("b", true, false, step(true, true), 1, one),
                seen("stop", true, false, None, 2, one),
                seen(" ", true, false, None, 2, one),
                seen("c", true, false, None, 3, one),
                // Once a call that may write started, it stays so.
                seen("stop", true, true, step(false, false), 4, &three),
            ]
        );
    }

    #[test]
    fn what_was_shown_is_dropped_past_its_cap() {
        let recorder = Arc::new(Recorder::default());
        let mut checks = ReplyChecks::new(Some(recorder.clone()), "p");
        let big = "x".repeat(SHOWN_MAX_BYTES / 2);
        let (calls, results) = exchange("cat big", &big);
        checks.tool_step(record(false, false, false), &calls, Some(&results));
        assert_eq!(checks.reminder_for("stop"), None);
        checks.tool_step(record(false, false, false), &calls, Some(&results));
        assert_eq!(checks.reminder_for("stop"), None);
        let seen = recorder.seen.lock().unwrap();
        assert!(seen[0].6.as_ref().is_some_and(|s| s.contains(&big)));
        assert_eq!(seen[1].6, None, "past the cap nothing is claimed");
    }

    /// Records the written names it is shown; never reminds.
    #[derive(Debug, Default)]
    struct Written(Mutex<Vec<Vec<String>>>);

    impl ReplyCheck for Written {
        fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder> {
            self.0.lock().unwrap().push(facts.written.to_vec());
            None
        }
    }

    #[test]
    fn written_files_reach_the_check_by_name_once_each() {
        let recorder = Arc::new(Written::default());
        let mut checks = ReplyChecks::new(Some(recorder.clone()), "p");
        let (calls, results) = exchange("sort a.txt > /w/a_sorted.txt", "");
        let step = |paths: &[&str]| StepRecord {
            written: paths.iter().map(std::path::PathBuf::from).collect(),
            ..record(false, false, true)
        };
        checks.tool_step(step(&["/w/a_sorted.txt"]), &calls, Some(&results));
        checks.tool_step(step(&["/w/a_sorted.txt", "/w/sub/b.txt"]), &calls, None);
        assert_eq!(checks.reminder_for("done"), None);
        assert_eq!(
            *recorder.0.lock().unwrap(),
            vec![vec!["a_sorted.txt".to_string(), "b.txt".to_string()]]
        );
    }
}
