//! The Claude Agent SDK (Python `claude-agent-sdk` from PyPI, pinned in
//! `ci/provision`) driving the real `orbit` binary as its `cli_path`, against the
//! fake Anthropic server: each scenario of `fixtures/sdk_client.py` prints
//! what the SDK parsed; the test checks that AND what the model received.
//! A missing SDK fails these tests (never a skip). The runner for SDK
//! programs lives here; the scenarios both SDKs run are in `sdk_ts.rs`,
//! the Python-only ones (permission mode, the output audit, in-process MCP
//! servers, the permission prompt tool) below.

use std::process::Stdio;
use std::time::Duration;

use orbit_test_support::{DEFAULT_MODEL, FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::{Scratch, drain, tool_results_text, wait_within};
use super::harness::{strs, write_call};
use super::mcp::python;

/// How long one SDK program may run.
const SDK_PROGRAM_LIMIT: Duration = Duration::from_secs(60);

/// What one SDK program printed, one JSON object per line.
pub struct Printed {
    pub lines: Vec<Value>,
    pub stderr: String,
}

impl Printed {
    pub fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["kind"] == kind).collect()
    }
}

/// Runs `PROGRAM SCRIPT SCENARIO` (an SDK program with `orbit` as its CLI,
/// `ORBIT_BIN`) with the fake server's environment plus `env`; it must
/// exit 0.
pub fn sdk_program(
    program: &str,
    script: &str,
    scenario: &str,
    env: &[(&str, String)],
    scratch: &Scratch,
    server: &FakeAnthropic,
) -> Printed {
    let mut cmd = std::process::Command::new(program);
    cmd.arg(script)
        .arg(scenario)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.home())
        .env("ORBIT_HOME", scratch.home().join(".orbit"))
        .env("ORBIT_BIN", env!("CARGO_BIN_EXE_orbit"))
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .envs(server.env())
        .current_dir(scratch.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the SDK program starts");
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out = std::thread::spawn(move || drain(stdout));
    let err = std::thread::spawn(move || drain(stderr));
    let status = wait_within(&mut child, SDK_PROGRAM_LIMIT);
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        status.success(),
        "{scenario}: {status}\nstdout: {stdout}\nstderr: {stderr}"
    );
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect();
    Printed { lines, stderr }
}

/// Runs `fixtures/sdk_client.py SCENARIO` on the Python SDK.
pub fn sdk(scenario: &str, scratch: &Scratch, server: &FakeAnthropic) -> Printed {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sdk_client.py");
    sdk_program(&python(), script, scenario, &[], scratch, server)
}

#[test]
fn a_permission_mode_change_applies_to_the_next_calls() {
    let scratch = Scratch::new();
    let target = scratch.path().join("notes.txt");
    let server = FakeAnthropic::start(vec![
        write_call("toolu_1", &target, "written\n"),
        Reply::text("could not write"),
        write_call("toolu_2", &target, "written\n"),
        Reply::text("wrote it"),
    ]);
    let printed = sdk("permission_mode", &scratch, &server);
    assert_eq!(printed.of_kind("mode_set").len(), 1, "{}", printed.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // default mode: the headless ask was a denial; acceptEdits: written.
    let first = tool_results_text(&requests[1].body);
    assert!(first.to_lowercase().contains("permission"), "{first}");
    let second = body::tool_results(&requests[3].body);
    let last = second.last().unwrap();
    assert!(!last.is_error, "{}", last.text);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written\n");
}

#[test]
fn sdk_readers_get_init_fields_tool_results_stream_events_and_model_usage() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_echo", "Bash", json!({"command": "echo audited"})),
        Reply::turn(Turn::new().text("audit done").usage(1_000, 20)),
    ]);
    let printed = sdk("audit", &scratch, &server);
    let init = printed.of_kind("init");
    let init = init.first().unwrap_or_else(|| panic!("{}", printed.stderr));
    assert_eq!(init["claude_code_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        init["slash_commands"],
        json!(["compact", "context", "cost", "model", "clear", "init"])
    );
    assert_eq!(init["agents"], json!(["reviewer"]));
    assert_eq!(init["mcp_servers"], json!([]));
    assert_eq!(init["permissionMode"], "default");
    assert_eq!(init["output_style"], "default");
    let result = printed.of_kind("tool_use_result")[0]["value"].clone();
    assert_eq!(result["stdout"], "audited");
    assert_eq!(result["interrupted"], false);
    let types = printed.of_kind("stream_events")[0]["types"].clone();
    let types = strs(&types);
    assert_eq!(
        types.iter().filter(|t| **t == "message_start").count(),
        2,
        "{types:?}"
    );
    assert!(types.contains(&"content_block_delta"), "{types:?}");
    let done = printed.of_kind("result")[0].clone();
    assert_eq!(done["result"], "audit done");
    assert_eq!(done["terminal_reason"], "completed");
    assert_eq!(done["num_turns"], 2);
    let usage = done["model_usage"].as_object().unwrap();
    assert_eq!(usage.len(), 1, "{usage:?}");
    let per_model = &usage[DEFAULT_MODEL];
    assert_eq!(per_model["inputTokens"], 1_000, "{per_model}");
    assert_eq!(per_model["outputTokens"], 20, "{per_model}");
    assert!(per_model["costUSD"].as_f64().unwrap() > 0.0, "{per_model}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(tool_results_text(&requests[1].body).trim(), "audited");
}

/// A model that calls the MCP tool `tool` (an `add`) with 2 and 40, then
/// answers "it is 42".
pub(super) fn adding_model(tool: &str) -> FakeAnthropic {
    FakeAnthropic::start(vec![
        Reply::tool_use("toolu_add", tool, json!({"a": 2, "b": 40})),
        Reply::text("it is 42"),
    ])
}

/// After [`adding_model`]: the model's second and last request carries
/// the one result "2+40=42", not an error (`stderr`: the program's).
pub(super) fn assert_model_told_42(server: &FakeAnthropic, stderr: &str) {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let results = body::tool_results(&requests[1].body);
    assert_eq!(results.len(), 1, "{stderr}");
    assert_eq!(results[0].text, "2+40=42", "{stderr}");
    assert!(!results[0].is_error, "{stderr}");
}

/// After [`adding_model`], with the add served by the SDK program itself:
/// it ran once with the model's arguments and the model got its sum.
pub(super) fn assert_added_in_process(printed: &Printed, server: &FakeAnthropic) {
    let ran = printed.of_kind("tool_ran");
    assert_eq!(ran.len(), 1, "{}", printed.stderr);
    assert_eq!(ran[0]["args"], json!({"a": 2, "b": 40}));
    assert_model_told_42(server, &printed.stderr);
}

#[test]
fn an_in_process_sdk_mcp_server_answers_over_the_control_protocol() {
    let scratch = Scratch::new();
    let server = adding_model("mcp__calc__add");
    let printed = sdk("sdk_mcp", &scratch, &server);
    assert_added_in_process(&printed, &server);
    assert_eq!(printed.of_kind("result")[0]["result"], "it is 42");
}

#[test]
fn a_permission_prompt_tool_decides_the_asks() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(bash_calls_then_done(&[
        ("toolu_a", "echo allowed > a.txt"),
        ("toolu_b", "echo forbidden > b.txt"),
    ]));
    let printed = sdk("prompt_tool", &scratch, &server);
    let asked = printed.of_kind("prompt_tool_asked");
    assert_eq!(asked.len(), 2, "{}", printed.stderr);
    assert_eq!(asked[0]["tool"], "Bash");
    assert!(scratch.path().join("a.txt").exists());
    assert!(!scratch.path().join("b.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let told = tool_results_text(&requests[2].body);
    assert!(
        told.contains("PROMPT-TOOL-DENIED: ask again never"),
        "{told}"
    );
}

/// One Bash call per model turn (`(id, command)`), then the text "done".
pub(super) fn bash_calls_then_done(calls: &[(&str, &str)]) -> Vec<Reply> {
    calls
        .iter()
        .map(|&(id, command)| Reply::tool_use(id, "Bash", json!({ "command": command })))
        .chain([Reply::text("done")])
        .collect()
}
