//! The Python Agent SDK's own example programs (`claude-agent-sdk` 0.2.190's
//! sdist `examples/`, unpacked by `ci/provision` beside the CI venv) run
//! unchanged against the `orbit` binary and the fake server: the runner only
//! points the SDK's CLI lookup at orbit. Each case checks what the program
//! printed — the lines Claude Code 2.1.332 printed for the same program over
//! the same fake replies (observed side by side) — and, where the example is
//! about a request field, what the model received. A missing example or SDK
//! fails (never a skip).

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::Scratch;
use super::harness::assert_contains;
use super::mcp::python;
use super::sdk::sdk_program;

/// Where `ci/provision` unpacks the examples: beside the venv.
fn examples_dir() -> PathBuf {
    let python = PathBuf::from(python());
    let dir = python
        .ancestors()
        .nth(3)
        .map(|py| py.join("sdk-examples"))
        .expect("the venv's parent");
    assert!(
        dir.join("quick_start.py").is_file(),
        "{} lacks the SDK examples: run ci/provision",
        dir.display()
    );
    dir
}

/// Runs example `name` (with `args`) in a fresh scratch against `server`;
/// its stdout.
fn run_example(name: &str, args: &[&str], server: &FakeAnthropic) -> (Scratch, String) {
    let scratch = Scratch::new();
    let stdout = run_example_in(&scratch, name, args, server);
    (scratch, stdout)
}

/// Runs example `name` (with `args`) in `scratch` against `server`; its
/// stdout.
fn run_example_in(scratch: &Scratch, name: &str, args: &[&str], server: &FakeAnthropic) -> String {
    let runner = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/run_sdk_example.py"
    );
    let script = examples_dir().join(format!("{name}.py"));
    let mut argv = vec![script.display().to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let printed = sdk_program(
        &python(),
        runner,
        &argv.join("\u{1f}"),
        &[],
        scratch,
        server,
    );
    printed
        .lines
        .iter()
        .filter_map(|l| l["out"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last user text of a request (what a rule matches).
fn last_user_text(body: &Value) -> String {
    body::last_message_texts(body).join(" ")
}

/// Whether a request answers a tool call (then the model says "done").
fn answers_a_tool(body: &Value) -> bool {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| serde_json::to_string(&m["content"]).unwrap_or_default())
        .is_some_and(|c| c.contains("\"tool_result\""))
}

/// A server answering "done" to everything, each call `input_tokens` in
/// and one out (the suite's model, Sonnet 4.5 at $3/M in: 1,000 tokens print
/// "Cost: $0.0030"; Claude Code's run printed its own figure for its model
/// in the same place).
fn done_server(input_tokens: u64) -> FakeAnthropic {
    let server = FakeAnthropic::start(Vec::new());
    server.respond_with(move |_, _| {
        Some(Reply::turn(Turn::new().text("done").usage(input_tokens, 0)))
    });
    server
}

fn assert_printed(name: &str, stdout: &str, expected: &[&str]) {
    for line in expected {
        assert!(
            stdout.contains(line),
            "{name}: {line:?} missing in:\n{stdout}"
        );
    }
}

#[test]
fn the_one_shot_examples_print_what_they_print_with_claude_code() {
    // (example, input tokens per call, lines Claude Code 2.1.332 printed
    // for it, "done" answers). The tight budget ($0.0001) holds at 10 tokens
    // a call; over it, both end with error_max_budget_usd and exit 1.
    let table: &[(&str, u64, &[&str], usize)] = &[
        (
            "quick_start",
            1_000,
            &["=== With Tools Example ===", "Cost: $0.0030"],
            3,
        ),
        (
            "system_prompt",
            1_000,
            &["=== Preset System Prompt with Append ==="],
            4,
        ),
        (
            "agents",
            1_000,
            &["=== Multiple Agents Example ===", "Cost: $0.0030"],
            3,
        ),
        (
            "max_budget_usd",
            10,
            &["=== With Tight Budget ($0.0001) ===", "Status: success"],
            3,
        ),
    ];
    for (name, tokens, expected, answers) in table {
        let server = done_server(*tokens);
        let (_scratch, stdout) = run_example(name, &[], &server);
        assert_printed(name, &stdout, expected);
        assert_eq!(
            stdout.matches("Claude: done").count(),
            *answers,
            "{name}:\n{stdout}"
        );
        assert_eq!(server.request_count(), *answers, "{name}");
    }
}

#[test]
fn system_prompt_and_tools_options_reach_the_model() {
    let server = done_server(1_000);
    let (_scratch, _) = run_example("system_prompt", &[], &server);
    let systems: Vec<String> = server
        .bodies()
        .iter()
        .map(|b| serde_json::to_string(&b["system"]).unwrap())
        .collect();
    assert!(
        systems[1].contains("You are a pirate assistant."),
        "{}",
        systems[1]
    );
    assert!(!systems[2].contains("pirate"), "{}", systems[2]);
    assert!(
        systems[3].contains("Always end your response with a fun fact."),
        "{}",
        systems[3]
    );

    let server = done_server(1_000);
    let (_scratch, stdout) = run_example("tools_option", &[], &server);
    assert_printed("tools_option", &stdout, &["Tools from system message: []"]);
    let names = |b: &Value| -> Vec<String> {
        let mut names: Vec<String> = b["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let bodies = server.bodies();
    assert_eq!(names(&bodies[0]), ["Glob", "Grep", "Read"]);
    assert!(names(&bodies[1]).is_empty(), "{:?}", names(&bodies[1]));
    assert!(names(&bodies[2]).contains(&"Bash".to_string()));
}

#[test]
fn the_calculator_examples_in_process_mcp_tools_answer_the_model() {
    let server = FakeAnthropic::start(vec![
        Reply::text("I have calculator tools"),
        Reply::tool_use("t1", "mcp__calc__add", json!({"a": 15, "b": 27})),
        Reply::text("15 + 27 = 42"),
        Reply::tool_use("t2", "mcp__calc__divide", json!({"a": 100, "b": 7})),
        Reply::text("about 14.29"),
        Reply::tool_use("t3", "mcp__calc__sqrt", json!({"n": 144})),
        Reply::text("12"),
        Reply::tool_use("t4", "mcp__calc__power", json!({"base": 2, "exponent": 8})),
        Reply::text("256"),
        Reply::tool_use("t5", "mcp__calc__add", json!({"a": 12, "b": 8})),
        Reply::tool_use("t6", "mcp__calc__multiply", json!({"a": 20, "b": 3})),
        Reply::tool_use("t7", "mcp__calc__subtract", json!({"a": 60, "b": 10})),
        Reply::text("50"),
    ]);
    let (_scratch, stdout) = run_example("mcp_calculator", &[], &server);
    assert_printed(
        "mcp_calculator",
        &stdout,
        &[
            "Tool Result: [{'type': 'text', 'text': '15 + 27 = 42'}]",
            "Tool Result: [{'type': 'text', 'text': '100 ÷ 7 = 14.285714285714286'}]",
            "Claude: 50",
        ],
    );
    // The last tool's result reached the model.
    let sent = serde_json::to_string(&server.bodies()).unwrap();
    assert_contains(&sent, "60 - 10 = 50");
}

#[test]
fn the_permission_callback_example_decides_each_call() {
    let scratch = Scratch::new();
    let target = scratch.path().join("hello.py").display().to_string();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("t1", "Bash", json!({"command": "ls -la"})),
        Reply::tool_use(
            "t2",
            "Write",
            json!({"file_path": target, "content": "print('hello')\n"}),
        ),
        Reply::tool_use("t3", "Bash", json!({"command": "python3 hello.py"})),
        Reply::text("All done"),
    ]);
    let stdout = run_example_in(&scratch, "tool_permission_callback", &[], &server);
    assert_printed(
        "tool_permission_callback",
        &stdout,
        &[
            "🔧 Tool Permission Request: Write",
            "✅ Allowing bash command: python3 hello.py",
            "💬 Claude: All done",
            "✅ Task completed!",
            "Suggestions: [PermissionUpdate(type='setMode'",
        ],
    );
    // The example denies the Write it cannot classify: no file.
    assert!(!scratch.path().join("hello.py").exists());
}

#[test]
fn the_streaming_examples_keep_their_turns() {
    let server = FakeAnthropic::start(Vec::new());
    server.respond_with(|_, body| {
        if answers_a_tool(body) {
            return Some(Reply::text("done"));
        }
        let text = last_user_text(body);
        let rules: &[(&str, &str)] = &[
            ("2+2", "4"),
            ("capital of France", "Paris"),
            ("population", "About 2 million"),
            ("joke", "A joke."),
        ];
        let answer = rules
            .iter()
            .find(|(needle, _)| text.contains(needle))
            .map_or("ok", |(_, answer)| answer);
        Some(Reply::text(answer))
    });
    let (_scratch, stdout) = run_example("streaming_mode", &["basic_streaming"], &server);
    assert_printed(
        "streaming_mode",
        &stdout,
        &["User: What is 2+2?", "Claude: 4"],
    );
    let (_scratch, stdout) = run_example("include_partial_messages", &[], &server);
    assert_printed(
        "include_partial_messages",
        &stdout,
        &[
            "StreamEvent(",
            "'type': 'content_block_delta'",
            "ResultMessage(subtype='success'",
        ],
    );
}

#[test]
fn the_hooks_example_blocks_refuses_a_wrong_event_answer_and_decides_writes() {
    let scratch = Scratch::new();
    let cwd = scratch.path();
    let server = FakeAnthropic::start(Vec::new());
    server.respond_with(move |_, body| {
        if answers_a_tool(body) {
            return Some(Reply::text("done"));
        }
        let text = last_user_text(body);
        let write = |name: &str| {
            let path = cwd.join(name).display().to_string();
            Reply::tool_use(
                "w",
                "Write",
                json!({"file_path": path, "content": "test data"}),
            )
        };
        let bash = |command: &str| Reply::tool_use("b", "Bash", json!({"command": command}));
        Some(if text.contains("foo.sh") {
            bash("./foo.sh --help")
        } else if text.contains("Hello from hooks example") {
            bash("echo 'Hello from hooks example!'")
        } else if text.contains("nonexistent_directory") {
            bash("ls /nonexistent_directory")
        } else if text.contains("important_config.txt") {
            write("important_config.txt")
        } else if text.contains("regular_file.txt") {
            write("regular_file.txt")
        } else if text.contains("CRITICAL ERROR") {
            bash("echo 'CRITICAL ERROR: system failure'")
        } else {
            Reply::text("pink")
        })
    });
    let stdout = run_example_in(&scratch, "hooks", &["all"], &server);
    assert_printed(
        "hooks",
        &stdout,
        &[
            "=== PreToolUse Example ===",
            "=== Continue/Stop Control Example ===",
            "Result ended",
        ],
    );
    let sent = serde_json::to_string(&server.bodies()).unwrap();
    // Its UserPromptSubmit callback answers for `SessionStart`: Claude Code
    // refuses that answer and blocks the prompt (nothing sent, "Result
    // ended" at once); so does orbit.
    assert!(!sent.contains("hot pink"), "a wrong-event answer applied");
    assert!(
        !sent.contains("favorite color"),
        "the blocked prompt was sent"
    );
    assert_printed(
        "hooks",
        &stdout,
        &["User: What's my favorite color?\nResult ended"],
    );
    // The strict approval hook denies important_config.txt, allows the other.
    assert!(!scratch.path().join("important_config.txt").exists());
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("regular_file.txt")).unwrap(),
        "test data"
    );
}

#[test]
fn the_stderr_and_setting_sources_examples_run() {
    let server = done_server(1_000);
    let (_scratch, stdout) = run_example("stderr_callback_example", &[], &server);
    assert_printed("stderr_callback_example", &stdout, &["Captured"]);
    let server = done_server(1_000);
    let (_scratch, stdout) = run_example("setting_sources", &["all"], &server);
    assert_printed(
        "setting_sources",
        &stdout,
        &[
            "=== Default Behavior Example ===",
            "Setting sources: None (default)",
        ],
    );
}
