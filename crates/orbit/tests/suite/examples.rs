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
    run_with_args(name, server, dir, &[prompt])
}

/// [`run`] with these arguments.
fn run_with_args(
    name: &str,
    server: &FakeAnthropic,
    dir: &std::path::Path,
    args: &[&str],
) -> (i32, String, String) {
    let out = Command::new(example(name))
        .args(args)
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

/// What the user asks every example, and what the model finally answers.
const PROMPT: &str = "What does the file say?";
const ANSWER: &str = "It says what it says.";

/// One example run in a directory holding `file` (name, content): the
/// model calls `tool` (name, input) once, then answers [`ANSWER`].
struct ToolRun {
    example: &'static str,
    file: (&'static str, &'static str),
    tool: (&'static str, Value),
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
            tool: ("Read", json!({"file_path": "config.txt"})),
            result: "1\tMAGIC=9731\n2\t",
        },
        // The custom tool is offered and called.
        ToolRun {
            example: "custom_tool",
            file: ("Cargo.toml", "a\nb\nc\n"),
            tool: ("LineCount", json!({"path": "Cargo.toml"})),
            result: "3 lines",
        },
    ];
    for ToolRun {
        example,
        file,
        tool: (tool, input),
        result,
    } in runs
    {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file.0), file.1).unwrap();
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", tool, input),
            Reply::text(ANSWER),
        ]);
        let (code, stdout, stderr) = run(example, &server, dir.path(), PROMPT);
        assert_eq!(code, 0, "{example}: {stderr}");
        assert_eq!(stdout.trim(), ANSWER, "{example}");
        let bodies = server.bodies();
        assert_eq!(
            bodies[0]["messages"][0]["content"][0]["text"], PROMPT,
            "{example}"
        );
        let names = body::tool_names(&bodies[0]);
        assert!(names.iter().any(|n| n == tool), "{example}: {names:?}");
        assert_eq!(body::tool_results(&bodies[1])[0].text, result, "{example}");
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

/// The Python with the `mcp` package (`ci/provision` installs it; see the CLI's
/// MCP tests).
fn mcp_python() -> PathBuf {
    let path = std::env::var_os("ORBIT_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap())
                .join(".cache/orbit-ci/py/venv/bin/python")
        });
    assert!(
        path.exists(),
        "{} is missing: run ci/provision (it installs the `mcp` package) or set ORBIT_MCP_PYTHON",
        path.display()
    );
    path
}

/// `mcp_agent`: the builder's `mcp_config` starts the servers of a
/// `.mcp.json`-shaped file — here the Python SDK test server of the CLI's
/// tests — and the model's call of its tool (made while it may still be
/// connecting) is answered by the real server.
#[test]
fn mcp_agent_calls_a_real_mcp_server_from_a_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cli/tests/fixtures/mcp_server.py"
    );
    let config =
        json!({"mcpServers": {"py": {"command": mcp_python(), "args": [script, "stdio"]}}});
    std::fs::write(dir.path().join("servers.json"), config.to_string()).unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "mcp__py__add", json!({"a": 2, "b": 3})),
        Reply::text(ANSWER),
    ]);
    let (code, stdout, stderr) = run_with_args(
        "mcp_agent",
        &server,
        dir.path(),
        &["servers.json", "Add 2 and 3."],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("py: connected\n{ANSWER}\n"));
    let bodies = server.bodies();
    assert_eq!(body::tool_results(&bodies[1])[0].text, "2+3=5");
    // Once connected, its tools are offered by name: deferred (the default,
    // as Claude Code's), listed in ToolSearch's description.
    let tools = bodies[1]["tools"].as_array().unwrap();
    let search = tools.iter().find(|t| t["name"] == "ToolSearch");
    let description = search.and_then(|t| t["description"].as_str());
    assert!(
        description.is_some_and(|d| d.contains("\nmcp__py__: add, ")),
        "{tools:?}"
    );
}

/// `parallel_agents`: the builder's `agent` offers the searcher through the
/// `Agent` tool; the model's two Agent calls of one reply run at once (both
/// subagents' first requests reach the server before either's second, each
/// first reply held 300 ms), each subagent has its own history, the
/// searcher's prompt and exactly its tools, and the parent's next request
/// holds only the two final answers.
#[test]
fn parallel_agents_runs_two_searchers_at_once() {
    use orbit_test_support::anthropic::Turn;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "fn alpha() {}\nfn beta() {}\n").unwrap();
    // Which question (1 or 2) a subagent's request is about.
    let question = |body: &Value| -> Option<usize> {
        let first = body["messages"][0].to_string();
        if !body::system_text(body).contains("You search the repository") {
            return None;
        }
        (1..=2).find(|n| first.contains(&format!("QUESTION-{n}")))
    };
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(move |_, body| {
        let done = !body::tool_results(body).is_empty();
        let agent = |n: usize| {
            json!({"description": format!("search {n}"), "prompt": format!("QUESTION-{n}"), "subagent_type": "searcher"})
        };
        Some(Reply::turn(match question(body) {
            None if !done => Turn::new()
                .tool_use("toolu_a1", "Agent", agent(1))
                .tool_use("toolu_a2", "Agent", agent(2)),
            None => Turn::new().text(ANSWER),
            Some(n) if !done => Turn::new()
                .tool_use(format!("toolu_g{n}"), "Grep", json!({"pattern": if n == 1 { "alpha" } else { "beta" }}))
                .delay_before_block(0, std::time::Duration::from_millis(300)),
            Some(n) => Turn::new().text(format!("FOUND-{n} lib.rs:{n}")),
        }))
    });
    let (code, stdout, stderr) = run_with_args(
        "parallel_agents",
        &server,
        dir.path(),
        &["QUESTION-1", "QUESTION-2"],
    );
    assert_eq!((code, stdout.trim()), (0, ANSWER), "{stderr}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 6, "parent 2 + 2 subagents × 2");
    assert!(body::tool_names(&bodies[0]).contains(&"Agent".to_string()));
    let agent_tool = body::tool(&bodies[0], "Agent").unwrap().to_string();
    assert!(agent_tool.contains("searcher"), "{agent_tool}");
    // In parallel: both first requests before any second one.
    let firsts: Vec<Option<usize>> = bodies[1..3].iter().map(&question).collect();
    assert!(
        firsts.contains(&Some(1)) && firsts.contains(&Some(2)),
        "{firsts:?}"
    );
    for n in 1..=2 {
        let mine: Vec<&Value> = bodies.iter().filter(|b| question(b) == Some(n)).collect();
        assert_eq!(mine.len(), 2, "question {n}");
        assert_eq!(body::tool_names(mine[0]), vec!["Read", "Glob", "Grep"]);
        assert!(!mine[0]["messages"].to_string().contains("Start two"));
        assert!(body::tool_results(mine[1])[0].text.contains("lib.rs"));
        assert!(
            stderr.contains(&format!("[toolu_a{n} searcher] Grep")),
            "{stderr}"
        );
    }
    // The parent's next request: the two answers, in call order, only.
    let parent = bodies.last().unwrap();
    assert_eq!(question(parent), None);
    let answers: Vec<String> = body::tool_results(parent)
        .iter()
        .map(|r| r.text.lines().next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(answers, ["FOUND-1 lib.rs:1", "FOUND-2 lib.rs:2"]);
}
