//! The options of the Claude Agent SDKs as they ship (TypeScript 0.3.337,
//! Python 0.2.190, pinned in `ci/deps.txt`), each through the real `orbit`
//! binary against the fake Anthropic server: `fixtures/sdk_options.mjs`
//! and `fixtures/sdk_options.py` set them, the tests check what the program
//! got back and what the model received. `sdk_argv.rs` holds each SDK's
//! exact command line.

use std::time::Duration;

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::{Scratch, bash_calls};
use super::harness::write_then_answer;
use super::mcp::{py_script, python};
use super::sdk::{
    Printed, adding_model, assert_added_in_process, assert_model_told_42, sdk_program,
};
use super::sdk_ts::sdk_module;

/// Runs `fixtures/sdk_options.mjs SCENARIO` with node.
pub(super) fn ts(
    scenario: &str,
    scratch: &Scratch,
    server: &FakeAnthropic,
    env: &[(&str, String)],
) -> Printed {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sdk_options.mjs"
    );
    let mut all = vec![("ORBIT_TS_SDK", sdk_module())];
    all.extend(env.iter().cloned());
    sdk_program("node", script, scenario, &all, scratch, server)
}

/// Runs `fixtures/sdk_options.py SCENARIO` with the SDK's Python.
pub(super) fn py(
    scenario: &str,
    scratch: &Scratch,
    server: &FakeAnthropic,
    env: &[(&str, String)],
) -> Printed {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sdk_options.py");
    sdk_program(&python(), script, scenario, env, scratch, server)
}

/// The program's one `result` message (a second, or none, fails the test).
pub(super) fn one_result(printed: &Printed) -> &Value {
    let results = messages(printed, "result");
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    results[0]
}

/// The TypeScript program's messages of one type.
pub(super) fn messages<'a>(printed: &'a Printed, kind: &str) -> Vec<&'a Value> {
    printed
        .of_kind("message")
        .into_iter()
        .map(|line| &line["message"])
        .filter(|m| m["type"] == kind)
        .collect()
}

#[test]
fn a_one_shot_query_reads_a_file_and_the_model_gets_it() {
    let scratch = Scratch::new();
    let notes = scratch.path().join("notes.txt");
    std::fs::write(&notes, "the launch is on tuesday\n").unwrap();
    let read = json!({"file_path": notes.display().to_string()});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_r", "Read", read),
        Reply::text("it says tuesday"),
    ]);
    let printed = ts("one_shot_read", &scratch, &server, &[]);
    assert_eq!(one_result(&printed)["result"], "it says tuesday");
    let told = body::tool_results(&server.requests()[1].body);
    assert!(
        told[0].text.contains("the launch is on tuesday"),
        "{}",
        told[0].text
    );
    // The program got the Read's structured result too.
    let users = messages(&printed, "user");
    assert_eq!(users[0]["tool_use_result"]["type"], "text", "{users:?}");
}

#[test]
fn accept_edits_lets_an_edit_run_unasked() {
    let scratch = Scratch::new();
    let file = scratch.path().join("hello.py");
    std::fs::write(&file, "print('helo')\n").unwrap();
    let edit = json!({"file_path": file.display().to_string(),
        "old_string": "helo", "new_string": "hello"});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_e", "Edit", edit),
        Reply::text("fixed"),
    ]);
    let printed = ts("accept_edits", &scratch, &server, &[]);
    assert_eq!(
        messages(&printed, "result")[0]["result"],
        "fixed",
        "{}",
        printed.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "print('hello')\n");
    assert_eq!(
        messages(&printed, "system")[0]["permissionMode"],
        "acceptEdits"
    );
}

#[test]
fn settings_denied_tools_and_directories_sent_in_initialize_apply() {
    let scratch = Scratch::new();
    let extra = tempfile::tempdir().unwrap();
    let server = bash_calls(
        &[("toolu_t", json!({"command": "touch allowed.txt"}))],
        "touched",
    );
    let env = [("ORBIT_EXTRA_DIR", extra.path().display().to_string())];
    let printed = ts("initialize_delivery", &scratch, &server, &env);
    // The SDK ends the session unless orbit confirms each field applied.
    assert_eq!(
        messages(&printed, "result")[0]["result"],
        "touched",
        "{}",
        printed.stderr
    );
    // The settings' allow rule let the command run without an ask.
    assert!(
        scratch.path().join("allowed.txt").exists(),
        "{}",
        printed.stderr
    );
    let tools = body::tool_names(&server.requests()[0].body);
    assert!(!tools.contains(&"Write".to_string()), "{tools:?}");
}

#[test]
fn switching_to_bypass_needs_the_sdks_safety_flag() {
    for allow in [false, true] {
        let scratch = Scratch::new();
        // The call comes late enough for the mode switch to land first.
        let call = Turn::new()
            .tool_use("toolu_t", "Bash", json!({"command": "touch made.txt"}))
            .event_delay(Duration::from_millis(300));
        let server = FakeAnthropic::start(vec![Reply::turn(call), Reply::text("done")]);
        let env: Vec<(&str, String)> = if allow {
            vec![("ORBIT_ALLOW_BYPASS", "1".to_string())]
        } else {
            Vec::new()
        };
        let printed = ts("switch_to_bypass", &scratch, &server, &env);
        let set = printed.of_kind("mode_set");
        assert_eq!(set.len(), 1, "{}", printed.stderr);
        let made = scratch.path().join("made.txt").exists();
        if allow {
            assert_eq!(set[0]["error"], Value::Null, "{set:?}");
            assert!(made, "{}", printed.stderr);
        } else {
            // Refused as Claude Code refuses it; the call was an ask, denied.
            let error = set[0]["error"].as_str().unwrap_or_default();
            assert!(
                error.contains("Cannot set permission mode to bypassPermissions"),
                "{error}"
            );
            assert!(!made);
        }
    }
}

#[test]
fn bypass_permissions_with_the_sdks_safety_flag_runs_unasked() {
    let scratch = Scratch::new();
    let target = scratch.path().join("bypassed.txt");
    let server = write_then_answer("toolu_w", &target, "no ask\n", "written");
    let printed = ts("bypass", &scratch, &server, &[]);
    assert_eq!(one_result(&printed)["result"], "written");
    assert_eq!(
        messages(&printed, "system")[0]["permissionMode"],
        "bypassPermissions"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "no ask\n");
}

#[test]
fn an_in_process_mcp_server_of_the_typescript_sdk_answers_the_model() {
    let scratch = Scratch::new();
    let server = adding_model("mcp__calc__add");
    let printed = ts("sdk_mcp", &scratch, &server, &[]);
    assert_added_in_process(&printed, &server);
    let init = messages(&printed, "system");
    assert_eq!(
        init[0]["mcp_servers"][0]["name"], "calc",
        "{}",
        printed.stderr
    );
    // Connected by the time the program sees init, as with Claude Code.
    assert_eq!(init[0]["mcp_servers"][0]["status"], "connected");
    assert_eq!(messages(&printed, "result")[0]["result"], "it is 42");
    // The result reached the program as content blocks (as Claude Code
    // sends an MCP tool's result).
    let users = messages(&printed, "user");
    let blocks = json!([{"type": "text", "text": "2+40=42"}]);
    assert_eq!(
        users[0]["message"]["content"][0]["content"], blocks,
        "{users:?}"
    );
    assert_eq!(users[0]["tool_use_result"], blocks);
}

#[test]
fn can_use_tool_gets_suggestions_and_a_picked_rule_allows_the_next_call() {
    let scratch = Scratch::new();
    let server = bash_calls(
        &[
            ("toolu_1", json!({"command": "touch one.txt"})),
            ("toolu_2", json!({"command": "touch one.txt"})),
        ],
        "ran twice",
    );
    let printed = ts("suggestions", &scratch, &server, &[]);
    let asked = printed.of_kind("asked");
    // Asked once: the rule picked from the suggestions allowed the second.
    assert_eq!(asked.len(), 1, "{asked:?} {}", printed.stderr);
    let offered = &asked[0]["suggestions"][0];
    assert_eq!(offered["type"], "addRules", "{asked:?}");
    assert_eq!(offered["behavior"], "allow");
    assert_eq!(offered["rules"][0]["toolName"], "Bash");
    assert_eq!(offered["rules"][0]["ruleContent"], "touch:*");
    assert!(scratch.path().join("one.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(!body::tool_results(&requests[2].body)[0].is_error);
}

#[test]
fn a_hook_answer_for_another_event_is_refused_and_the_call_not_run() {
    let scratch = Scratch::new();
    let server = bash_calls(
        &[("toolu_b", json!({"command": "echo ran > ran.txt"}))],
        "done",
    );
    let printed = ts("hook_wrong_name", &scratch, &server, &[]);
    one_result(&printed);
    assert!(
        !scratch.path().join("ran.txt").exists(),
        "{}",
        printed.stderr
    );
    // The program sees the refusal as Claude Code's error string.
    let users = messages(&printed, "user");
    let refused = users[0]["tool_use_result"].as_str().unwrap_or_default();
    assert!(
        refused.starts_with("Error: PreToolUse hook failed"),
        "{users:?}"
    );
    let told = body::tool_results(&server.requests()[1].body);
    assert!(
        told[0].text.contains("PreToolUse hook failed"),
        "{}",
        told[0].text
    );
}

#[test]
fn a_structured_output_result_carries_the_json_as_its_text() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::tool_use(
        "toolu_out",
        "StructuredOutput",
        json!({"answer": 42}),
    )]);
    let printed = ts("structured", &scratch, &server, &[]);
    let result = one_result(&printed);
    assert_eq!(result["structured_output"], json!({"answer": 42}));
    assert_eq!(result["result"], r#"{"answer":42}"#);
    let users = messages(&printed, "user");
    assert_eq!(
        users[0]["tool_use_result"],
        "Structured output provided successfully"
    );
}

#[test]
fn a_stdio_mcp_server_the_typescript_sdk_sends_in_initialize_connects() {
    let scratch = Scratch::new();
    let server = adding_model("mcp__py__add");
    let env = [
        ("ORBIT_PYTHON", python()),
        ("ORBIT_MCP_SERVER", py_script()),
    ];
    let printed = ts("stdio_mcp", &scratch, &server, &env);
    one_result(&printed);
    assert_model_told_42(&server, &printed.stderr);
}

#[test]
fn the_typescript_system_prompt_string_and_preset_append_reach_the_model() {
    for (scenario, marker, orbit_prompt) in [
        (
            "system_prompt_string",
            "You are the pirate bot. SP-MARKER-1",
            false,
        ),
        ("system_prompt_append", "APPEND-MARKER-2", true),
    ] {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("arr")]);
        let printed = ts(scenario, &scratch, &server, &[]);
        one_result(&printed);
        let system = body::system_text(&server.requests()[0].body);
        assert!(system.contains(marker), "{scenario}: {system}");
        // The preset keeps orbit's own prompt; a string replaces it.
        assert_eq!(
            system.contains("You are orbit"),
            orbit_prompt,
            "{scenario}: {system}"
        );
    }
}

#[test]
fn prompts_queued_during_a_turn_go_to_the_model_as_one_message() {
    let scratch = Scratch::new();
    // The first answer is slow, so the next two prompts wait for it.
    let slow = Turn::new()
        .text("first")
        .event_delay(Duration::from_millis(500));
    let server = FakeAnthropic::start(vec![Reply::turn(slow), Reply::text("both")]);
    let printed = ts("queued", &scratch, &server, &[]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", printed.stderr);
    assert_eq!(body::last_message_texts(&requests[1].body), ["two\nthree"]);
    let results = messages(&printed, "result");
    assert_eq!(results.len(), 2, "{}", printed.stderr);
    assert_eq!(results[1]["result"], "both");
}

#[test]
fn the_tools_option_of_both_sdks_restricts_the_tool_set() {
    let cases: [(&str, Runner, &str, &[&str]); 3] = [
        ("typescript", ts, "tools_option", &["Read", "Glob"]),
        ("python", py, "tools_option", &["Read", "Glob", "Grep"]),
        ("python", py, "tools_none", &[]),
    ];
    for (sdk, run, scenario, want) in cases {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("looked")]);
        let printed = run(scenario, &scratch, &server, &[]);
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{sdk} {scenario}: {}", printed.stderr);
        let mut tools = body::tool_names(&requests[0].body);
        tools.sort();
        let mut want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
        want.sort();
        assert_eq!(tools, want, "{sdk} {scenario}");
    }
}

/// A runner of one SDK's option scenarios.
pub(super) type Runner = fn(&str, &Scratch, &FakeAnthropic, &[(&str, String)]) -> Printed;
