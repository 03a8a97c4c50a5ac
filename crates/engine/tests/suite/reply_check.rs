//! The generic reply hook (`EngineConfig::reply_check`) through the real
//! loop and client: what the check is shown, that its reminder is the next
//! request's last user message, and that a reminder questioning a reply
//! keeps that reply as the answer when the model answers with text only.

use std::sync::{Arc, Mutex};

use orbit_engine::{Reminder, ReplyCheck, ReplyFacts, StepFacts};
use orbit_protocol::ResultSubtype;
use orbit_test_support::{FakeAnthropic, Reply};
use orbit_tool::ToolOutput;
use serde_json::{Value, json};

use super::support::*;

/// What the check was shown: reply, tool ran, last step, reminders sent.
type Seen = (String, bool, Option<StepFacts>, u32);
/// And the facts of the prompt around them: the prompt, a call that may
/// write started, the reply answers a questioning reminder.
type Around = (String, bool, bool);
/// Whether a call that runs a command started in the prompt, per reply.
type Ran = Vec<bool>;

/// Sends `script[n]` for the n-th reply it is asked about, recording the
/// facts it was shown.
#[derive(Debug)]
struct Scripted {
    script: Vec<Option<Reminder>>,
    seen: Mutex<Vec<Seen>>,
    around: Mutex<Vec<Around>>,
    ran: Mutex<Ran>,
}

impl Scripted {
    fn new(script: Vec<Option<Reminder>>) -> Arc<Self> {
        Arc::new(Self {
            script,
            seen: Mutex::default(),
            around: Mutex::default(),
            ran: Mutex::default(),
        })
    }
}

impl ReplyCheck for Scripted {
    fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder> {
        let mut seen = self.seen.lock().unwrap();
        seen.push((
            facts.reply.to_string(),
            facts.tool_ran,
            facts.last_step,
            facts.reminders_sent,
        ));
        self.around.lock().unwrap().push((
            facts.prompt.to_string(),
            facts.may_have_written,
            facts.answers_question,
        ));
        self.ran.lock().unwrap().push(facts.ran_command);
        self.script.get(seen.len() - 1).cloned().flatten()
    }
}

/// An engine in a scratch dir whose reply check is `check`.
fn checked_engine(
    server: &FakeAnthropic,
    check: &Arc<Scripted>,
    tools: Vec<Arc<dyn orbit_tool::Tool>>,
) -> (tempfile::TempDir, orbit_engine::QueryEngine) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.reply_check = Some(check.clone());
    let engine = engine(server, cfg, tools);
    (dir, engine)
}

fn reminder(text: &str, questions_reply: bool) -> Option<Reminder> {
    Some(Reminder {
        text: text.to_string(),
        questions_reply,
    })
}

/// The last message of a request body: (role, its text).
fn last_message(body: &Value) -> (String, String) {
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    let text = match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<String>(),
        _ => String::new(),
    };
    (last["role"].as_str().unwrap().to_string(), text)
}

#[tokio::test]
async fn the_check_sees_the_prompts_facts_and_its_reminders_reach_the_model() {
    let server = FakeAnthropic::start(vec![
        Reply::text("<tool_call>Slow</tool_call>"),
        Reply::tool_use("toolu_1", "Missing", json!({})),
        Reply::text("It failed."),
        Reply::text("I stand by it."),
    ]);
    let check = Scripted::new(vec![
        reminder("Call a tool.", false),
        reminder("Fix it.", true),
        None,
    ]);
    let (_dir, mut engine) = checked_engine(&server, &check, vec![]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    // The model stood by the questioned reply: it is the answer.
    assert_eq!(r.result, "It failed.");
    assert_eq!(r.num_turns, 4);
    let failed = Some(StepFacts {
        all_failed: true,
        ..StepFacts::default()
    });
    assert_eq!(
        *check.seen.lock().unwrap(),
        vec![
            ("<tool_call>Slow</tool_call>".to_string(), false, None, 0),
            ("It failed.".to_string(), true, failed, 1),
            ("I stand by it.".to_string(), true, None, 2),
        ]
    );
    // A call that failed validation never started: nothing may have
    // been written.
    let around = |answers| ("go".to_string(), false, answers);
    assert_eq!(
        *check.around.lock().unwrap(),
        vec![around(false), around(false), around(true)]
    );
    let bodies = server.bodies();
    assert_eq!(
        last_message(&bodies[1]),
        ("user".to_string(), "Call a tool.".to_string())
    );
    assert_eq!(
        last_message(&bodies[3]),
        ("user".to_string(), "Fix it.".to_string())
    );
    assert_paired(engine.messages());
}

#[tokio::test]
async fn without_a_check_the_first_text_reply_ends_the_prompt() {
    let server = FakeAnthropic::start(vec![Reply::text("<tool_call>Slow</tool_call>")]);
    let mut engine = temp_engine(&server, vec![]);
    let events = run(&mut engine, "go").await;
    assert_succeeded(&events, "<tool_call>Slow</tool_call>");
    assert_eq!(server.request_count(), 1);
}

/// `may_have_written` turns on with the first started call that is not
/// read-only by its facts and did not report that it changed nothing, and
/// stays on for the prompt; read-only calls and a call that changed
/// nothing leave it off.
#[tokio::test]
async fn the_check_is_told_whether_a_call_that_may_write_started() {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Look", json!({})),
        Reply::tool_use("toolu_2", "Noop", json!({})),
        Reply::text("Sorted."),
        Reply::tool_use("toolu_3", "Change", json!({})),
        Reply::text("Now it is."),
    ]);
    let check = Scripted::new(vec![reminder("Nothing changed.", true), None]);
    let look = TestTool::new("Look", |_, _| async { ToolOutput::text("b\na") }).arc();
    let change = TestTool::new("Change", |_, _| async { ToolOutput::text("ok") })
        .writes()
        .arc();
    // May write by its facts, but reports that it changed nothing.
    let noop = TestTool::new("Noop", |_, _| async {
        ToolOutput {
            changed_nothing: true,
            ..ToolOutput::text("changed no file")
        }
    })
    .writes()
    .arc();
    let (_dir, mut engine) = checked_engine(&server, &check, vec![look, noop, change]);
    let events = run(&mut engine, "Sort the list in place.").await;
    assert_succeeded(&events, "Now it is.");
    let prompt = "Sort the list in place.".to_string();
    assert_eq!(
        *check.around.lock().unwrap(),
        vec![(prompt.clone(), false, false), (prompt, true, false)]
    );
}

/// A step whose every call succeeded with no output is reported so (its
/// results are R3's placeholder); one call with output, or an error, is not.
#[tokio::test]
async fn the_check_is_told_when_a_step_printed_nothing() {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Quiet", json!({})),
        Reply::text("It is 144."),
        Reply::tool_use("toolu_2", "Loud", json!({})),
        Reply::text("It is 14."),
    ]);
    let check = Scripted::new(vec![reminder("Nothing printed.", true), None]);
    let quiet = TestTool::new("Quiet", |_, _| async { ToolOutput::text("") }).arc();
    let loud = TestTool::new("Loud", |_, _| async { ToolOutput::text("14") }).arc();
    let (_dir, mut engine) = checked_engine(&server, &check, vec![quiet, loud]);
    let events = run(&mut engine, "What does mystery(12) return?").await;
    assert_succeeded(&events, "It is 14.");
    let steps: Vec<Option<StepFacts>> = check.seen.lock().unwrap().iter().map(|s| s.2).collect();
    assert_eq!(
        steps,
        vec![
            Some(StepFacts {
                printed_nothing: true,
                ..StepFacts::default()
            }),
            Some(StepFacts::default()),
        ]
    );
}

/// The real Bash tool: a command that prints nothing makes a step that
/// printed nothing, and the prompt has run a command.
#[tokio::test]
async fn a_silent_command_is_a_run_that_printed_nothing() {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "true"})),
        Reply::text("It returns 144."),
    ]);
    let check = Scripted::new(vec![None]);
    let (_dir, mut engine) = checked_engine(&server, &check, vec![builtin("Bash")]);
    let events = run(&mut engine, "What does mystery(12) return?").await;
    assert_succeeded(&events, "It returns 144.");
    let seen = check.seen.lock().unwrap();
    assert_eq!(seen[0].2.map(|s| s.printed_nothing), Some(true), "{seen:?}");
    assert_eq!(*check.ran.lock().unwrap(), vec![true]);
}
