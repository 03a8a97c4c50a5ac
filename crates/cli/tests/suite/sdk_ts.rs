//! The scenarios both Claude Agent SDKs run against the real `orbit`
//! binary and the fake Anthropic server, each test once per SDK: Python
//! (`fixtures/sdk_client.py`, see `sdk.rs`) and TypeScript
//! (`@anthropic-ai/claude-agent-sdk` from npm, pinned in `ci/deps.txt`;
//! `fixtures/sdk_client.mjs` with orbit as `pathToClaudeCodeExecutable`).
//! Each checks what the SDK program printed AND what the model received. A
//! missing SDK fails these tests (never a skip); the TypeScript SDK is
//! looked up under `ORBIT_MCP_NPM_PREFIX` (default `~/.cache/orbit-ci/npm`).

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Scratch, first_user_text, tool_results_text};
use super::sdk::{Printed, bash_calls_then_done, sdk, sdk_program};

/// A runner of one SDK's fixture scenarios.
type Runner = fn(&str, &Scratch, &FakeAnthropic) -> Printed;

/// Both SDKs, by name.
const SDKS: [(&str, Runner); 2] = [("python", sdk), ("typescript", ts)];

/// The TypeScript SDK's ES module.
pub(super) fn sdk_module() -> String {
    let prefix = std::env::var_os("ORBIT_MCP_NPM_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/orbit-ci/npm")
        });
    let path = prefix.join("node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    assert!(
        path.exists(),
        "{} is missing: run ci/provision (it installs the TypeScript SDK) or set ORBIT_MCP_NPM_PREFIX",
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

/// Runs `scenario` on each SDK with a fresh scratch dir and a server
/// scripted with `replies()`; `check` gets what each printed and received.
/// The server saw `requests` requests, the third carried `told` in its tool
/// results, and the program's result line says success.
fn assert_told_and_succeeded(
    sdk: &str,
    printed: &Printed,
    server: &FakeAnthropic,
    requests: usize,
    told: &str,
) {
    let seen = server.requests();
    assert_eq!(seen.len(), requests, "{sdk}");
    let results = tool_results_text(&seen[2].body);
    assert!(results.contains(told), "{sdk}: {results}");
    assert_eq!(printed.of_kind("result")[0]["subtype"], "success");
}

fn on_both_sdks(
    scenario: &str,
    replies: impl Fn() -> Vec<Reply>,
    check: impl Fn(&str, &Scratch, &Printed, &FakeAnthropic),
) {
    for (name, run) in SDKS {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(replies());
        let printed = run(scenario, &scratch, &server);
        check(name, &scratch, &printed, &server);
    }
}

#[test]
fn one_shot_query_reads_orbits_messages() {
    on_both_sdks(
        "one_shot",
        || vec![Reply::text("hi from the fake model")],
        |sdk, _, printed, server| {
            assert_eq!(
                printed.of_kind("system")[0]["subtype"],
                "init",
                "{sdk}: {}",
                printed.stderr
            );
            assert_eq!(printed.of_kind("text")[0]["text"], "hi from the fake model");
            let result = printed.of_kind("result");
            assert_eq!(result.len(), 1, "{sdk}");
            assert_eq!(result[0]["subtype"], "success");
            assert_eq!(result[0]["result"], "hi from the fake model");
            let requests = server.requests();
            assert_eq!(requests.len(), 1, "{sdk}");
            assert_eq!(body::last_message_texts(&requests[0].body), ["say hi"]);
        },
    );
}

#[test]
fn a_session_runs_two_prompts_in_one_process() {
    on_both_sdks(
        "multi_turn",
        || vec![Reply::text("answer one"), Reply::text("answer two")],
        |sdk, _, printed, server| {
            let results = printed.of_kind("result");
            let texts: Vec<&Value> = results.iter().map(|r| &r["result"]).collect();
            assert_eq!(
                texts,
                [&json!("answer one"), &json!("answer two")],
                "{sdk}: {}",
                printed.stderr
            );
            // One process, one session: the same id, and the second request
            // carries the first exchange.
            assert_eq!(results[0]["session_id"], results[1]["session_id"]);
            let requests = server.requests();
            assert_eq!(requests.len(), 2, "{sdk}");
            assert_eq!(body::messages(&requests[1].body).len(), 3, "{sdk}");
            assert_eq!(
                body::last_message_texts(&requests[1].body),
                ["second question"]
            );
            // A control request orbit does not support gets an error, not a hang.
            let unsupported = &printed.of_kind("unsupported_request")[0]["error"];
            assert!(
                unsupported
                    .as_str()
                    .is_some_and(|e| e.contains("does not support")),
                "{sdk}: {unsupported}"
            );
        },
    );
}

#[test]
fn can_use_tool_allows_rewrites_and_denies() {
    let replies = || {
        bash_calls_then_done(&[
            ("toolu_a", "echo allowed-run > made.txt"),
            ("toolu_b", "echo forbidden > bad.txt"),
            ("toolu_c", "echo rewrite-me > orig.txt"),
        ])
    };
    on_both_sdks("can_use_tool", replies, |sdk, scratch, printed, server| {
        let asked: Vec<&Value> = printed
            .of_kind("asked")
            .iter()
            .map(|a| &a["command"])
            .collect();
        assert_eq!(asked.len(), 3, "{sdk}: {}", printed.stderr);
        assert!(scratch.path().join("made.txt").exists(), "{sdk}");
        assert!(!scratch.path().join("bad.txt").exists(), "{sdk}");
        // An allow with updatedInput ran the SDK's input, not the model's.
        assert!(!scratch.path().join("orig.txt").exists(), "{sdk}");
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("re.txt")).unwrap(),
            "rewritten\n"
        );
        // The model saw the callback's deny message as the second call's result.
        assert_told_and_succeeded(sdk, printed, server, 4, "SDK-DENIED: not on my watch");
    });
}

#[test]
fn interrupt_stops_a_long_bash_call_and_the_session_goes_on() {
    let replies = || {
        vec![
            Reply::tool_use("toolu_sleep", "Bash", json!({"command": "sleep 30"})),
            Reply::text("still here"),
        ]
    };
    on_both_sdks("interrupt", replies, |sdk, _, printed, server| {
        assert_eq!(
            printed.of_kind("interrupt_sent").len(),
            1,
            "{sdk}: {}",
            printed.stderr
        );
        let waited = printed.of_kind("after_interrupt_s")[0]["seconds"]
            .as_f64()
            .unwrap();
        assert!(waited < 10.0, "{sdk}: the interrupt took {waited} s");
        let results = printed.of_kind("result");
        assert_eq!(results.len(), 2, "{sdk}");
        assert_eq!(results[0]["is_error"], true, "{sdk}: {results:?}");
        assert_eq!(results[1]["result"], "still here");
        // The second prompt went to the model; the interrupted call's result says so.
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{sdk}");
        assert_eq!(
            body::last_message_texts(&requests[1].body).last().unwrap(),
            "still there?"
        );
        assert!(
            tool_results_text(&requests[1].body).contains("interrupt"),
            "{sdk}"
        );
    });
}

#[test]
fn a_pre_tool_use_hook_callback_blocks_a_command_and_the_model_sees_why() {
    let replies = || {
        bash_calls_then_done(&[
            ("toolu_ok", "echo fine > ok.txt"),
            ("toolu_no", "echo bad > forbidden.txt"),
        ])
    };
    on_both_sdks("hook_block", replies, |sdk, scratch, printed, server| {
        let called = printed.of_kind("hook_called");
        assert_eq!(called.len(), 2, "{sdk}: {}", printed.stderr);
        assert_eq!(called[0]["event"], "PreToolUse");
        assert_eq!(called[1]["tool_use_id"], "toolu_no");
        assert!(scratch.path().join("ok.txt").exists(), "{sdk}");
        assert!(!scratch.path().join("forbidden.txt").exists(), "{sdk}");
        assert_told_and_succeeded(sdk, printed, server, 3, "HOOK-BLOCKED: no forbidden files");
    });
}

#[test]
fn a_second_program_resumes_the_session_by_id() {
    let replies = || vec![Reply::text("noted"), Reply::text("kiwi")];
    on_both_sdks("resume", replies, |sdk, _, printed, server| {
        let results = printed.of_kind("result");
        assert_eq!(results.len(), 2, "{sdk}: {}", printed.stderr);
        assert_eq!(results[0]["session_id"], results[1]["session_id"]);
        assert_eq!(results[1]["result"], "kiwi");
        // The second process sent the first exchange along.
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{sdk}");
        assert_eq!(body::messages(&requests[1].body).len(), 3, "{sdk}");
        assert!(first_user_text(&requests[1].body).contains("remember the word kiwi"));
    });
}

#[test]
fn output_format_gives_structured_output() {
    let replies = || {
        vec![Reply::tool_use(
            "toolu_out",
            "StructuredOutput",
            json!({"answer": 42}),
        )]
    };
    on_both_sdks("structured", replies, |sdk, _, printed, server| {
        let structured = printed.of_kind("structured");
        assert_eq!(structured.len(), 1, "{sdk}: {}", printed.stderr);
        assert_eq!(structured[0]["value"], json!({"answer": 42}), "{sdk}");
        assert_eq!(structured[0]["subtype"], "success");
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{sdk}");
        assert!(body::tool_names(&requests[0].body).contains(&"StructuredOutput".to_string()));
    });
}
