//! The examples, run as built binaries against the fake Anthropic server:
//! what a reader copies must work.

use std::path::PathBuf;
use std::process::Command;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

/// `target/<profile>/examples/NAME`, next to this test binary's `deps/`.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} not built (cargo test builds examples)",
        path.display()
    );
    path
}

/// Runs an example in `dir` with the fake server as the Anthropic API.
fn run(
    name: &str,
    server: &FakeAnthropic,
    dir: &std::path::Path,
    prompt: &str,
) -> (i32, String, String) {
    let out = Command::new(example(name))
        .arg(prompt)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ORBIT_HOME", dir.join(".orbit"))
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `name` in a directory holding `file` (name, content) with
/// `prompt`, the model calling `tool` (name, input) once and then
/// answering `answer`: the example exits 0 printing the answer. Returns
/// the request bodies and the text of the tool result sent back.
fn call_then_answer(
    name: &str,
    file: (&str, &str),
    tool: (&str, Value),
    prompt: &str,
    answer: &str,
) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file.0), file.1).unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", tool.0, tool.1),
        Reply::text(answer),
    ]);
    let (code, stdout, stderr) = run(name, &server, dir.path(), prompt);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), answer);
    let bodies = server.bodies();
    let result = body::tool_results(&bodies[1])[0].text.clone();
    (bodies, result)
}

#[test]
fn minimal_agent_reads_a_file_and_answers() {
    let (bodies, result) = call_then_answer(
        "minimal_agent",
        ("config.txt", "MAGIC=9731\n"),
        ("Read", json!({"file_path": "config.txt"})),
        "What is MAGIC?",
        "MAGIC is 9731.",
    );
    assert_eq!(
        bodies[0]["messages"][0]["content"][0]["text"],
        "What is MAGIC?"
    );
    assert_eq!(result, "1\tMAGIC=9731\n2\t");
}

#[test]
fn custom_tool_is_offered_and_called() {
    let (bodies, result) = call_then_answer(
        "custom_tool",
        ("Cargo.toml", "a\nb\nc\n"),
        ("LineCount", json!({"path": "Cargo.toml"})),
        "Count",
        "3 lines.",
    );
    let names = body::tool_names(&bodies[0]);
    assert!(names.contains(&"LineCount".to_string()), "{names:?}");
    assert_eq!(result, "3 lines");
}

#[test]
fn headless_json_prints_events_and_fails_on_an_error_result() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![Reply::api_error(
        400,
        "invalid_request_error",
        "bad model",
    )]);
    let (code, stdout, _) = run("headless_json", &server, dir.path(), "hi");
    assert_eq!(code, 1);
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["result"]["subtype"], "error_during_execution");
}
