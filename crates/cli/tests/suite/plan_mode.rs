//! The plan workflow and AskUserQuestion (issue 33) through the binary
//! against the fake server: in plan mode with someone to ask, the system
//! prompt says to finish with `ExitPlanMode`; the terminal UI shows the
//! plan and approving it switches the mode (the next write runs), keeping
//! planning changes nothing; the Python SDK gets both tools through
//! `can_use_tool`; headless (`-p`) neither is offered, and a call gets
//! Claude Code's "disabled" text or a clear "no user can answer".

use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::clients::Pane;
use super::common::{Scratch, tool_results_text};
use super::harness::{assert_contains, open, orbit_ok, write_call};
use super::mcp::python;
use super::sdk::{Printed, sdk_program};

const PLAN: &str = "# Plan\n\n1. Write **notes.txt**\n2. Check it";

/// The replies of one plan: ExitPlanMode, then a Write, then a text.
fn plan_then_write() -> Vec<Reply> {
    vec![
        Reply::tool_use("toolu_plan", "ExitPlanMode", json!({"plan": PLAN})),
        write_call("toolu_write", Path::new("notes.txt"), "planned\n"),
        Reply::text("All done."),
    ]
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn system_text(body: &Value) -> String {
    body["system"].to_string()
}

/// orbit in plan mode in a pane, asked to "plan then write" by a model
/// that answers [`plan_then_write`]: its plan dialog on the screen.
fn tui_plan_dialog() -> (Scratch, FakeAnthropic, Pane, String) {
    let (scratch, server, pane) = open(plan_then_write(), &["--permission-mode", "plan"]);
    pane.submit("plan then write");
    let screen = pane.wait_for("Would you like to proceed with this plan?");
    (scratch, server, pane, screen)
}

#[test]
fn tui_approving_the_plan_switches_the_mode_and_the_write_runs() {
    let (scratch, server, pane, screen) = tui_plan_dialog();
    assert_contains(&screen, "Here is the plan:");
    assert_contains(&screen, "Write notes.txt");
    pane.keys(&["1"]);
    let screen = pane.wait_for("All done.");
    assert!(scratch.path().join("notes.txt").is_file(), "{screen}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert!(tool_names(&bodies[0]).contains(&"ExitPlanMode".to_string()));
    assert!(system_text(&bodies[0]).contains("ExitPlanMode"));
    let approved = tool_results_text(&bodies[1]);
    assert_contains(&approved, "The user approved your plan");
    assert_contains(&approved, "acceptEdits");
    assert!(!body::tool_results(&bodies[2])[0].is_error);
}

#[test]
fn tui_keep_planning_tells_the_model_and_changes_nothing() {
    let (scratch, server, pane, _) = tui_plan_dialog();
    pane.keys(&["3"]);
    pane.wait_for("What should change?");
    pane.submit("add tests");
    pane.wait_for("All done.");
    assert!(!scratch.path().join("notes.txt").exists());
    let bodies = server.bodies();
    let told = tool_results_text(&bodies[1]);
    assert!(told.contains("keep planning: add tests"), "{told}");
    // Still plan mode: the write is refused without an ask.
    let refused = tool_results_text(&bodies[2]);
    assert!(refused.contains("plan mode"), "{refused}");
}

#[test]
fn headless_plan_mode_offers_neither_tool() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_plan", "ExitPlanMode", json!({"plan": PLAN})),
        Reply::tool_use("toolu_q", "AskUserQuestion", database_question()),
        Reply::text("ok"),
    ]);
    orbit_ok(
        &scratch,
        &server,
        &["-p", "plan it", "--permission-mode", "plan"],
    );
    let bodies = server.bodies();
    let names = tool_names(&bodies[0]);
    assert!(!names.contains(&"ExitPlanMode".to_string()), "{names:?}");
    assert!(!names.contains(&"AskUserQuestion".to_string()), "{names:?}");
    assert!(!system_text(&bodies[0]).contains("ExitPlanMode"));
    assert_contains(
        &tool_results_text(&bodies[1]),
        "No such tool available: ExitPlanMode. ExitPlanMode is disabled for this session",
    );
    // A question with no one to answer it: a clear "no user" result.
    assert_contains(
        &tool_results_text(&bodies[2]),
        "No user can answer questions in this session",
    );
}

/// Runs `fixtures/sdk_plan_mode.py SCENARIO`.
fn py(scenario: &str, scratch: &Scratch, server: &FakeAnthropic) -> Printed {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sdk_plan_mode.py"
    );
    sdk_program(&python(), script, scenario, &[], scratch, server)
}

fn asked(printed: &Printed) -> Vec<String> {
    printed
        .of_kind("asked")
        .iter()
        .map(|l| l["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn python_sdk_approves_the_plan_through_can_use_tool() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(plan_then_write());
    let printed = py("approve", &scratch, &server);
    // The plan reached can_use_tool; after it, default mode asks for the write.
    assert_eq!(
        asked(&printed),
        ["ExitPlanMode", "Write"],
        "{}",
        printed.stderr
    );
    assert_eq!(printed.of_kind("asked")[0]["input"]["plan"], PLAN);
    assert!(scratch.path().join("notes.txt").is_file());
    let approved = tool_results_text(&server.bodies()[1]);
    assert_contains(&approved, "permission mode is now default");
}

#[test]
fn python_sdk_rejecting_the_plan_keeps_plan_mode() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(plan_then_write());
    let printed = py("reject", &scratch, &server);
    assert_eq!(asked(&printed), ["ExitPlanMode"], "{}", printed.stderr);
    assert!(!scratch.path().join("notes.txt").exists());
    let bodies = server.bodies();
    assert!(tool_results_text(&bodies[1]).contains("keep planning: add a test step"));
    assert!(tool_results_text(&bodies[2]).contains("plan mode"));
}

#[test]
fn python_sdk_answers_ask_user_question() {
    let scratch = Scratch::new();
    let server = database_question_then_answer();
    let printed = py("question", &scratch, &server);
    assert_eq!(asked(&printed), ["AskUserQuestion"], "{}", printed.stderr);
    assert_postgres_chosen(&server);
}

#[test]
fn tui_question_dialog_sends_the_chosen_option() {
    let scratch = Scratch::new();
    let server = database_question_then_answer();
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("set up the notes store");
    let screen = pane.wait_for("Which database should the notes use?");
    assert_contains(&screen, "2. Postgres");
    assert_contains(&screen, "Other");
    pane.keys(&["2"]);
    pane.wait_for("Postgres it is.");
    assert_postgres_chosen(&server);
}

/// A model that asks [`database_question`], then answers "Postgres it is.".
fn database_question_then_answer() -> FakeAnthropic {
    FakeAnthropic::start(vec![
        Reply::tool_use("toolu_q", "AskUserQuestion", database_question()),
        Reply::text("Postgres it is."),
    ])
}

/// The model was told the database question was answered "Postgres".
fn assert_postgres_chosen(server: &FakeAnthropic) {
    assert_contains(
        &tool_results_text(&server.bodies()[1]),
        "\"Which database should the notes use?\"=\"Postgres\"",
    );
}

fn database_question() -> Value {
    json!({"questions": [{
        "question": "Which database should the notes use?",
        "header": "Database",
        "multiSelect": false,
        "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "Postgres", "description": "a server"}
        ]
    }]})
}

/// Plan mode entered with Shift+Tab after the session started: the turn's
/// prompt carries the plan-mode reminder (the system prompt does not say
/// it), and the plan is approved as before.
#[test]
fn tui_shift_tab_into_plan_mode_reminds_the_model() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(plan_then_write());
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.keys(&["BTab", "BTab"]);
    pane.wait_for("plan");
    pane.submit("plan then write");
    pane.wait_for("Would you like to proceed with this plan?");
    pane.keys(&["2"]);
    // Approved with "ask before each edit": default mode asks for the write.
    pane.wait_for("Allow Write");
    pane.keys(&["1"]);
    pane.wait_for("All done.");
    let bodies = server.bodies();
    assert!(!system_text(&bodies[0]).contains("Plan mode is on"));
    let sent = body::last_message_texts(&bodies[0]).join("\n");
    assert_contains(&sent, "<system-reminder>\n# Plan mode\nPlan mode is on");
    assert!(sent.ends_with("plan then write"), "{sent}");
    assert!(scratch.path().join("notes.txt").is_file());
    assert!(tool_results_text(&bodies[1]).contains("now default"));
}
