//! Subagents through the real Claude Agent SDK (Python `claude-agent-sdk`,
//! pinned in ci/deps.txt) driving the `orbit` binary against the fake
//! Anthropic server (`fixtures/sdk_subagents.py`): `agents={...}` in the
//! SDK's options defines a subagent the model delegates to; its messages
//! reach the SDK with `parent_tool_use_id` (the Agent call's id); the SDK's
//! `SubagentStop` hook callback fires; the subagent's Bash in default mode
//! asks through the SDK's `can_use_tool` with the subagent's `agent_id`, and
//! the answer is honoured (allowed: it runs; denied: the subagent's model is
//! told the SDK's reason, the file is never written).

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::Scratch;
use super::mcp::python;
use super::sdk::{Printed, sdk_program};

/// The id of the parent's Agent call.
const AGENT_CALL: &str = "toolu_agent1";

/// Whether a request is the subagent's (its system prompt is the finder's).
fn is_subagent(body: &Value) -> bool {
    body::system_text(body).contains("FINDER-PROMPT")
}

/// The parent delegates to `finder`; the subagent runs `command` with Bash,
/// then answers FOUND-IT; the parent then answers PARENT-DONE.
fn server(command: &str) -> FakeAnthropic {
    let command = command.to_string();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(move |_, body| {
        let answered = !body::tool_results(body).is_empty();
        Some(Reply::turn(match (is_subagent(body), answered) {
            (false, false) => Turn::new().tool_use(
                AGENT_CALL,
                "Agent",
                json!({"description": "find it", "prompt": "FIND-GO", "subagent_type": "finder"}),
            ),
            (false, true) => Turn::new().text("PARENT-DONE"),
            (true, false) => {
                Turn::new().tool_use("toolu_sub_bash", "Bash", json!({"command": command}))
            }
            (true, true) => Turn::new().text("FOUND-IT"),
        }))
    });
    server
}

fn run(scratch: &Scratch, server: &FakeAnthropic) -> Printed {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sdk_subagents.py"
    );
    sdk_program(&python(), script, "delegate", &[], scratch, server)
}

/// The subagent's requests, in order.
fn subagent_bodies(server: &FakeAnthropic) -> Vec<Value> {
    server.bodies().into_iter().filter(is_subagent).collect()
}

#[test]
fn an_sdk_agents_option_runs_a_delegated_task_with_parent_ids_stop_hook_and_asks() {
    let scratch = Scratch::new();
    let server = server("echo allowed > ran.txt");
    let printed = run(&scratch, &server);
    let stderr = &printed.stderr;
    // The subagent's request: the SDK's prompt and exactly its tools.
    let subs = subagent_bodies(&server);
    assert_eq!(subs.len(), 2, "{stderr}");
    assert_eq!(body::tool_names(&subs[0]), vec!["Read", "Bash"]);
    assert!(subs[0]["messages"].to_string().contains("FIND-GO"));
    // Its Bash asked the SDK once, naming the subagent; allowed, it ran.
    let asked = printed.of_kind("asked");
    assert_eq!(asked.len(), 1, "{:?}\n{stderr}", printed.lines);
    assert_eq!(asked[0]["tool"], "Bash");
    assert_eq!(asked[0]["tool_use_id"], "toolu_sub_bash");
    let agent_id = asked[0]["agent_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        agent_id.starts_with('a') && agent_id.len() == 17,
        "{agent_id:?}"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("ran.txt")).unwrap(),
        "allowed\n"
    );
    let told = body::tool_results(&subs[1]);
    assert!(!told[0].is_error, "{}", told[0].text);
    // The subagent's messages carry the Agent call's id; the parent's none.
    let mine: Vec<&Value> = printed
        .lines
        .iter()
        .filter(|l| l["parent_tool_use_id"] == AGENT_CALL)
        .collect();
    let text = serde_json::to_string(&mine).unwrap();
    assert!(text.contains("\"tool_use\":\"Bash\""), "{text}");
    assert!(text.contains("FOUND-IT"), "{text}");
    assert!(mine.iter().any(|l| l["kind"] == "user"), "{text}");
    let parent_calls = printed
        .of_kind("assistant")
        .into_iter()
        .filter(|l| l["parent_tool_use_id"].is_null())
        .map(|l| l["blocks"].to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(parent_calls.contains(AGENT_CALL), "{parent_calls}");
    assert!(!parent_calls.contains("toolu_sub_bash"), "{parent_calls}");
    // SubagentStop reached the SDK's hook callback, with the same agent id.
    let stops = printed.of_kind("subagent_stop");
    assert_eq!(stops.len(), 1, "{:?}\n{stderr}", printed.lines);
    assert_eq!(stops[0]["agent_id"], agent_id.as_str());
    assert_eq!(stops[0]["agent_type"], "finder");
    assert_eq!(stops[0]["last"], "FOUND-IT");
    // The parent's next request holds only the subagent's answer.
    let parent = server
        .bodies()
        .into_iter()
        .rfind(|b| !is_subagent(b))
        .unwrap();
    let results = body::tool_results(&parent);
    assert_eq!(results.len(), 1);
    assert!(
        results[0].text.starts_with("FOUND-IT"),
        "{}",
        results[0].text
    );
    assert!(!results[0].text.contains("allowed"), "{}", results[0].text);
    let result = printed.of_kind("result");
    assert_eq!(result[0]["result"], "PARENT-DONE");
    assert_eq!(result[0]["is_error"], false);
}

#[test]
fn a_subagent_s_ask_denied_by_can_use_tool_is_not_run_and_the_reason_is_told() {
    let scratch = Scratch::new();
    let server = server("echo forbidden > no.txt");
    let printed = run(&scratch, &server);
    let asked = printed.of_kind("asked");
    assert_eq!(asked.len(), 1, "{}", printed.stderr);
    assert!(asked[0]["agent_id"].is_string(), "{:?}", asked[0]);
    assert!(!scratch.path().join("no.txt").exists());
    let subs = subagent_bodies(&server);
    let told = body::tool_results(&subs[1]);
    assert!(told[0].is_error, "{}", told[0].text);
    assert!(
        told[0].text.contains("SDK-DENIED: not for subagents"),
        "{}",
        told[0].text
    );
    assert_eq!(printed.of_kind("result")[0]["result"], "PARENT-DONE");
}
