//! Subagents in the interactive UI (tmux, as `tui.rs`): a subagent's Bash
//! in default mode asks through the same dialog as the session's own calls,
//! naming the subagent; approved, it runs. While a subagent runs, its
//! `Agent` call is one live line with the tool it runs now and how many it
//! ran; Ctrl-O expands it to its latest calls.

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::clients::Pane;
use super::common::Scratch;

/// Whether a request is the subagent's (its first message is the task).
fn is_subagent(body: &Value) -> bool {
    body["messages"][0].to_string().contains("SUB-TASK")
}

/// The parent delegates one task; the subagent makes `calls` one reply
/// each, then answers SUB-DONE; the parent then answers ALL-DELEGATED.
fn server(calls: Vec<(&'static str, Value)>) -> FakeAnthropic {
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(move |_, body| {
        let results = body::messages(body)
            .iter()
            .filter(|m| !body::message_tool_results(m).is_empty())
            .count();
        Some(Reply::turn(match (is_subagent(body), results) {
            (false, 0) => Turn::new().tool_use(
                "toolu_agent",
                "Agent",
                json!({"description": "make the file", "prompt": "SUB-TASK", "subagent_type": "general-purpose"}),
            ),
            (false, _) => Turn::new().text("ALL-DELEGATED"),
            (true, n) if n < calls.len() => {
                let (name, input) = calls[n].clone();
                Turn::new().tool_use(format!("toolu_sub{n}"), name, input)
            }
            (true, _) => Turn::new().text("SUB-DONE"),
        }))
    });
    server
}

#[test]
fn a_subagent_s_bash_ask_shows_the_dialog_naming_it_and_approve_runs_it() {
    let scratch = Scratch::new();
    let server = server(vec![("Bash", json!({"command": "touch from-sub.txt"}))]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("delegate it");
    // The ask and the subagent's progress come by separate channels: wait
    // for both the dialog naming it and its live line with the tool.
    let live = "◌ Agent(make the file) · general-purpose · Bash(touch from-sub.txt) · 1 tool use";
    let screen = pane.wait_until("the dialog and the live line", |s| {
        s.contains("Asked by subagent general-purpose (a") && s.contains(live)
    });
    assert!(
        screen.contains("Allow Bash(touch from-sub.txt)?"),
        "{screen}"
    );
    assert!(!scratch.path().join("from-sub.txt").exists());
    pane.keys(&["1"]);
    pane.wait_for("ALL-DELEGATED");
    assert!(scratch.path().join("from-sub.txt").is_file());
    let sub_second = server
        .bodies()
        .into_iter()
        .filter(is_subagent)
        .nth(1)
        .unwrap();
    assert!(!body::tool_results(&sub_second)[0].is_error);
    pane.exit();
}

#[test]
fn a_running_subagent_is_one_live_line_that_ctrl_o_expands() {
    let scratch = Scratch::new();
    scratch.write("notes.txt", "a needle here\n");
    let server = server(vec![
        ("Grep", json!({"pattern": "needle"})),
        ("Bash", json!({"command": "sleep 4"})),
    ]);
    let pane = Pane::start(
        &scratch,
        &server.env(),
        &["--permission-mode", "bypassPermissions"],
    );
    pane.submit("delegate it");
    let line = "◌ Agent(make the file) · general-purpose · Bash(sleep 4) · 2 tool uses";
    let screen = pane.wait_for(line);
    // One line: the subagent's calls are not in the parent's scrollback.
    assert!(!screen.contains("⎿ Grep(needle)"), "{screen}");
    pane.keys(&["C-o"]);
    let screen = pane.wait_until("the expanded calls", |s| {
        s.contains("    ⎿ Grep(needle)") && s.contains("    ⎿ Bash(sleep 4)")
    });
    assert!(screen.contains(line), "{screen}");
    let screen = pane.wait_for("ALL-DELEGATED");
    let visible = pane.visible();
    assert!(!visible.contains("◌ Agent("), "{visible}\n{screen}");
    pane.exit();
}

/// A background agent's result reaches the model while the UI is idle: the
/// parent's turn ends ("PARENT-WAITING"), the agent finishes later, and its
/// task notification is the next turn's message ("PARENT-FINAL").
#[test]
fn a_background_agent_s_result_starts_a_turn_in_the_idle_ui() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, body| {
        let last = body::last_message(body).to_string();
        let results = body::messages(body)
            .iter()
            .filter(|m| !body::message_tool_results(m).is_empty())
            .count();
        Some(Reply::turn(if is_subagent(body) {
            if results == 0 {
                Turn::new().tool_use("toolu_s", "Bash", json!({"command": "sleep 1; echo BG-OUT"}))
            } else {
                Turn::new().text("BG-ANSWER")
            }
        } else if last.contains("task-notification") {
            Turn::new().text("PARENT-FINAL")
        } else if results == 0 {
            Turn::new().tool_use(
                "toolu_agent",
                "Agent",
                json!({"description": "slow work", "prompt": "SUB-TASK", "run_in_background": true}),
            )
        } else {
            Turn::new().text("PARENT-WAITING")
        }))
    });
    let pane = Pane::start(&scratch, &server.env(), &["--dangerously-skip-permissions"]);
    pane.submit("delegate in the background");
    pane.wait_until("the parent's turn ends first", |s| {
        s.contains("PARENT-WAITING")
    });
    let screen = pane.wait_until("the notification's turn", |s| s.contains("PARENT-FINAL"));
    assert!(screen.contains("A background agent finished"), "{screen}");
    let sent = serde_json::to_string(&server.bodies()).unwrap();
    assert!(
        sent.contains("BG-ANSWER"),
        "the agent's result reached the model"
    );
}
