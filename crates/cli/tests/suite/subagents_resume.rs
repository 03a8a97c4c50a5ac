//! Issue 32: a subagent's transcript is a sidechain beside its parent's
//! (`<session>/subagents/agent-<id>.jsonl`, with a `.meta.json` naming the
//! Agent call), recorded as durably as the parent's: `orbit` is SIGKILLed
//! while a subagent waits on its second model request, and then
//! `--resume` of the parent pairs the interrupted Agent call like any other
//! tool while the subagent's transcript keeps everything it did.

use std::process::Stdio;
use std::time::{Duration, Instant};

use orbit_test_support::body;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process};
use super::harness::stream_json_ok;

const SESSION: &str = "5ab0a9e0-1234-4abc-8def-0123456789ab";
/// Longest wait for the subagent's second request, in milliseconds.
const SECOND_REQUEST_WAIT_MS: u64 = 30_000;

/// A parent that delegates once; its subagent runs one Bash call, then its
/// second request never gets an answer.
fn stalling_server() -> FakeAnthropic {
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, body| {
        let first = body["messages"][0].to_string();
        let has_results = !body::tool_results(body).is_empty();
        Some(match (first.contains("SIDE-GO"), has_results) {
            (true, true) => Reply::hang(),
            (true, false) => Reply::turn(
                Turn::new()
                    .tool_use("toolu_side1", "Bash", json!({"command": "echo SIDE-OUT"}))
                    .usage(10, 1),
            ),
            (false, _) => Reply::turn(
                Turn::new()
                    .tool_use(
                        "toolu_agent",
                        "Agent",
                        json!({"description": "side task", "prompt": "SIDE-GO"}),
                    )
                    .usage(10, 1),
            ),
        })
    });
    server
}

#[test]
fn sigkill_mid_subagent_then_resume_pairs_the_agent_call_and_keeps_the_sidechain() {
    let scratch = Scratch::new();
    let server = stalling_server();
    let mut child = orbit_process(&scratch, &server.env())
        .args([
            "-p",
            "delegate",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .args(["--dangerously-skip-permissions", "--session-id", SESSION])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while server.bodies().len() < 3 {
        assert!(
            started.elapsed() < Duration::from_millis(SECOND_REQUEST_WAIT_MS),
            "the subagent's second request never came: {} requests",
            server.bodies().len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The sidechain: the subagent's whole work up to its stalled request.
    let data = scratch.home().join(".orbit");
    let dir = orbit_session::sidechain::sidechain_dir(&data, &scratch.path(), SESSION);
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("agent-a"), "{name}");
    let side = orbit_session::load(&files[0], INTERRUPT_MESSAGE_FOR_TOOL_USE).unwrap();
    let messages = serde_json::to_value(&side.messages).unwrap();
    let text = messages.to_string();
    assert_eq!(side.messages.len(), 3, "{text}");
    assert!(messages[0].to_string().contains("SIDE-GO"), "{text}");
    assert!(messages[1].to_string().contains("toolu_side1"), "{text}");
    assert!(messages[2].to_string().contains("SIDE-OUT"), "{text}");
    assert!(side.repairs.is_empty(), "{:?}", side.repairs);
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(orbit_session::sidechain::meta_path(&files[0])).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["toolUseId"], "toolu_agent", "{meta}");
    assert_eq!(meta["agentType"], "general-purpose", "{meta}");
    assert_eq!(meta["description"], "side task", "{meta}");
    // Only the parent's transcript is a session of the project.
    let project = orbit_session::project_dir(&data, &scratch.path());
    let sessions: Vec<_> = std::fs::read_dir(&project)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    assert_eq!(sessions, vec![format!("{SESSION}.jsonl")]);

    // The resume pairs the parent's Agent call as any interrupted tool.
    let resume_server = FakeAnthropic::start(vec![Reply::text("resumed")]);
    stream_json_ok(&scratch, &resume_server, "go on", &["-r", SESSION]);
    let resumed = &resume_server.bodies()[0];
    let all = body::messages(resumed);
    let uses = body::tool_uses(resumed);
    assert_eq!(uses.len(), 1, "{resumed}");
    assert_eq!(uses[0].0, "toolu_agent");
    let results: Vec<_> = all.iter().flat_map(body::message_tool_results).collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].tool_use_id, "toolu_agent");
    assert!(
        results[0].text.contains(INTERRUPT_MESSAGE_FOR_TOOL_USE),
        "{}",
        results[0].text
    );
    // The subagent's own messages never reach the parent's history.
    assert!(!resumed.to_string().contains("SIDE-OUT"), "{resumed}");
    // The sidechain is as the kill left it.
    let again = orbit_session::load(&files[0], INTERRUPT_MESSAGE_FOR_TOOL_USE).unwrap();
    assert_eq!(again.messages, side.messages);
}
