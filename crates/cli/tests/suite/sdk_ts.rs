//! The Claude Agent SDK for TypeScript (`@anthropic-ai/claude-agent-sdk`
//! from npm, pinned in `.ci/run`) driving the real `orbit` binary as its
//! `pathToClaudeCodeExecutable`, against the fake Anthropic server: each
//! scenario of `fixtures/sdk_client.mjs` prints what the SDK gave; the test
//! checks that AND what the model received. A missing SDK fails these
//! tests (never a skip). The SDK is looked up under `ORBIT_MCP_NPM_PREFIX`
//! (default `~/.cache/orbit-ci/npm`), where `.ci/run` installs it.

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Scratch, first_user_text, tool_results_text};
use super::sdk::{Printed, sdk_program};

/// The SDK's ES module.
fn sdk_module() -> String {
    let prefix = std::env::var_os("ORBIT_MCP_NPM_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/orbit-ci/npm")
        });
    let path = prefix.join("node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    assert!(
        path.exists(),
        "{} is missing: run .ci/run (it installs the TypeScript SDK) or set ORBIT_MCP_NPM_PREFIX",
        path.display()
    );
    path.display().to_string()
}

/// Runs `fixtures/sdk_client.mjs SCENARIO` with node.
fn ts(scenario: &str, scratch: &Scratch, server: &FakeAnthropic) -> Printed {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sdk_client.mjs");
    let env = [("ORBIT_TS_SDK", sdk_module())];
    sdk_program("node", script, scenario, &env, scratch, server)
}

#[test]
fn ts_one_shot_query() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("hi from the fake model")]);
    let printed = ts("one_shot", &scratch, &server);
    assert_eq!(
        printed.of_kind("system")[0]["subtype"],
        "init",
        "{}",
        printed.stderr
    );
    assert_eq!(printed.of_kind("text")[0]["text"], "hi from the fake model");
    let result = printed.of_kind("result");
    assert_eq!(result.len(), 1);
    assert_eq!(result[0]["result"], "hi from the fake model");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(body::last_message_texts(&requests[0].body), ["say hi"]);
}

#[test]
fn ts_streaming_input_runs_two_prompts_in_one_session() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("answer one"), Reply::text("answer two")]);
    let printed = ts("multi_turn", &scratch, &server);
    let results = printed.of_kind("result");
    let texts: Vec<&Value> = results.iter().map(|r| &r["result"]).collect();
    assert_eq!(
        texts,
        [&json!("answer one"), &json!("answer two")],
        "{}",
        printed.stderr
    );
    assert_eq!(results[0]["session_id"], results[1]["session_id"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(body::messages(&requests[1].body).len(), 3);
    assert_eq!(
        body::last_message_texts(&requests[1].body),
        ["second question"]
    );
}

#[test]
fn ts_can_use_tool_allows_one_call_and_denies_another() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_a",
            "Bash",
            json!({"command": "echo allowed-run > made.txt"}),
        ),
        Reply::tool_use(
            "toolu_b",
            "Bash",
            json!({"command": "echo forbidden > bad.txt"}),
        ),
        Reply::text("done"),
    ]);
    let printed = ts("can_use_tool", &scratch, &server);
    assert_eq!(printed.of_kind("asked").len(), 2, "{}", printed.stderr);
    assert!(scratch.path().join("made.txt").exists());
    assert!(!scratch.path().join("bad.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let told = tool_results_text(&requests[2].body);
    assert!(told.contains("TS-DENIED: not on my watch"), "{told}");
}

#[test]
fn ts_interrupt_stops_a_long_bash_call() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_sleep", "Bash", json!({"command": "sleep 30"})),
        Reply::text("still here"),
    ]);
    let printed = ts("interrupt", &scratch, &server);
    assert_eq!(
        printed.of_kind("interrupt_sent").len(),
        1,
        "{}",
        printed.stderr
    );
    let waited = printed.of_kind("after_interrupt_s")[0]["seconds"]
        .as_f64()
        .unwrap();
    assert!(waited < 10.0, "the interrupt took {waited} s");
    let results = printed.of_kind("result");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["is_error"], true, "{results:?}");
    assert_eq!(results[1]["result"], "still here");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(tool_results_text(&requests[1].body).contains("interrupt"));
}

#[test]
fn ts_pre_tool_use_hook_blocks_a_command() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_ok", "Bash", json!({"command": "echo fine > ok.txt"})),
        Reply::tool_use(
            "toolu_no",
            "Bash",
            json!({"command": "echo bad > forbidden.txt"}),
        ),
        Reply::text("done"),
    ]);
    let printed = ts("hook_block", &scratch, &server);
    let called = printed.of_kind("hook_called");
    assert_eq!(called.len(), 2, "{}", printed.stderr);
    assert_eq!(called[1]["tool_use_id"], "toolu_no");
    assert!(scratch.path().join("ok.txt").exists());
    assert!(!scratch.path().join("forbidden.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let told = tool_results_text(&requests[2].body);
    assert!(
        told.contains("TS-HOOK-BLOCKED: no forbidden files"),
        "{told}"
    );
}

#[test]
fn ts_resume_by_session_id() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("noted"), Reply::text("kiwi")]);
    let printed = ts("resume", &scratch, &server);
    let results = printed.of_kind("result");
    assert_eq!(results.len(), 2, "{}", printed.stderr);
    assert_eq!(results[0]["session_id"], results[1]["session_id"]);
    assert_eq!(results[1]["result"], "kiwi");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(body::messages(&requests[1].body).len(), 3);
    assert!(first_user_text(&requests[1].body).contains("remember the word kiwi"));
}

#[test]
fn ts_output_format_gives_structured_output() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::tool_use(
        "toolu_out",
        "StructuredOutput",
        json!({"answer": 42}),
    )]);
    let printed = ts("structured", &scratch, &server);
    let results = printed.of_kind("result");
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    assert_eq!(results[0]["structured_output"], json!({"answer": 42}));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(body::tool_names(&requests[0].body).contains(&"StructuredOutput".to_string()));
}
