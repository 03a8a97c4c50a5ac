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

/// One example run: it reads `prompt` from its argv in a directory holding
/// `file` (name, content); the model calls `tool` (name, input) once, then
/// answers `answer`.
struct ToolRun {
    example: &'static str,
    file: (&'static str, &'static str),
    prompt: &'static str,
    tool: (&'static str, Value),
    answer: &'static str,
    /// The tool's result as sent back to the model.
    result: &'static str,
}

/// Each example sends the prompt, offers the tool, sends its result back,
/// prints the answer and exits 0.
#[test]
fn examples_call_a_tool_and_print_the_answer() {
    let runs = [
        ToolRun {
            example: "minimal_agent",
            file: ("config.txt", "MAGIC=9731\n"),
            prompt: "What is MAGIC?",
            tool: ("Read", json!({"file_path": "config.txt"})),
            answer: "MAGIC is 9731.",
            result: "1\tMAGIC=9731\n2\t",
        },
        // The custom tool is offered and called.
        ToolRun {
            example: "custom_tool",
            file: ("Cargo.toml", "a\nb\nc\n"),
            prompt: "Count",
            tool: ("LineCount", json!({"path": "Cargo.toml"})),
            answer: "3 lines.",
            result: "3 lines",
        },
    ];
    for run_case in runs {
        let name = run_case.example;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(run_case.file.0), run_case.file.1).unwrap();
        let (tool, input) = run_case.tool;
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", tool, input),
            Reply::text(run_case.answer),
        ]);
        let (code, stdout, stderr) = run(name, &server, dir.path(), run_case.prompt);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(stdout.trim(), run_case.answer, "{name}");
        let bodies = server.bodies();
        assert_eq!(
            bodies[0]["messages"][0]["content"][0]["text"], run_case.prompt,
            "{name}"
        );
        let names = body::tool_names(&bodies[0]);
        assert!(names.iter().any(|n| n == tool), "{name}: {names:?}");
        let results = body::tool_results(&bodies[1]);
        assert_eq!(results[0].text, run_case.result, "{name}");
    }
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
