//! MCP servers as tools, end to end: the real `orbit` binary, a scripted
//! model (the fake Anthropic server) and real MCP servers nobody here
//! wrote — `@modelcontextprotocol/server-everything` and
//! `@modelcontextprotocol/server-filesystem` (npm) — plus a small server on
//! the official Python SDK (`mcp` from PyPI; `fixtures/mcp_server.py`) over
//! stdio and streamable HTTP. `ci/provision` installs them; a missing install
//! fails these tests with the path it looked at (never a skip).
//!
//! Where they are: `ORBIT_MCP_NPM_PREFIX` (default `~/.cache/orbit-ci/npm`,
//! the servers in `node_modules/.bin`) and `ORBIT_MCP_PYTHON` (default
//! `~/.cache/orbit-ci/py/venv/bin/python`).

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, PortServer, Scratch, run_stream_json, run_stream_json_with_env};

/// An installed npm MCP server's executable.
pub fn npm_server(bin: &str) -> String {
    let prefix = std::env::var_os("ORBIT_MCP_NPM_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/orbit-ci/npm"));
    let path = prefix.join("node_modules/.bin").join(bin);
    assert!(
        path.exists(),
        "{} is missing: run ci/provision (it installs the MCP test servers) or set ORBIT_MCP_NPM_PREFIX",
        path.display()
    );
    path.display().to_string()
}

/// The Python with the `mcp` package.
pub fn python() -> String {
    let path = std::env::var_os("ORBIT_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/orbit-ci/py/venv/bin/python"));
    assert!(
        path.exists(),
        "{} is missing: run ci/provision (it installs the `mcp` package) or set ORBIT_MCP_PYTHON",
        path.display()
    );
    path.display().to_string()
}

pub(super) fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
}

/// The Python fixture server's script.
pub fn py_script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_server.py").to_string()
}

/// The Python fixture server on stdio, with `env` in its environment.
pub fn py_stdio(env: Value) -> Value {
    json!({"command": python(), "args": [py_script(), "stdio"], "env": env})
}

/// `{"mcpServers": {name: server}}` as one `--mcp-config` value.
pub fn config(servers: &[(&str, Value)]) -> String {
    let map: serde_json::Map<String, Value> = servers
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    json!({ "mcpServers": map }).to_string()
}

/// A scripted model calling each `(tool, input)` in its own turn, then "done".
pub fn calls(calls: &[(&str, Value)]) -> FakeAnthropic {
    let mut replies: Vec<Reply> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, input))| Reply::tool_use(format!("toolu_{i}"), *name, input.clone()))
        .collect();
    replies.push(Reply::text("done"));
    FakeAnthropic::start(replies)
}

/// Each tool_result the model received, in order: (text, is_error).
pub fn results(server: &FakeAnthropic) -> Vec<(String, bool)> {
    server
        .requests()
        .iter()
        .skip(1)
        .flat_map(|r| body::tool_results(&r.body))
        .map(|r| (r.text, r.is_error))
        .collect()
}

/// One server `name` (its tools allowed) with one extra environment
/// variable; the run must succeed.
pub(super) fn run_one_server(
    scratch: &Scratch,
    server: &FakeAnthropic,
    (var, value): (&str, &str),
    name: &str,
    entry: Value,
) -> Outcome {
    let mut env = server.env();
    env.push((var.into(), value.into()));
    let mcp = config(&[(name, entry)]);
    let allowed = format!("mcp__{name}");
    let out = run_stream_json_with_env(
        scratch,
        &env,
        "use the tools",
        &["--mcp-config", &mcp, "--allowedTools", &allowed],
    );
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    out
}

pub(super) fn run_with(
    scratch: &Scratch,
    server: &FakeAnthropic,
    mcp: &str,
    extra: &[&str],
) -> Outcome {
    let mut args = vec!["--mcp-config", mcp];
    args.extend_from_slice(extra);
    let out = run_stream_json(scratch, server, "use the tools", &args);
    assert_eq!(
        out.code, 0,
        "stderr: {}\nstdout: {}",
        out.stderr, out.stdout
    );
    out
}

#[test]
fn server_everything_tools_answer_through_the_pipeline() {
    let scratch = Scratch::new();
    let server = calls(&[
        ("mcp__everything__echo", json!({"message": "hello mcp"})),
        ("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
        // T3: the server's own schema, validated like a built-in's.
        ("mcp__everything__get-sum", json!({"a": 2})),
    ]);
    let mcp = config(&[(
        "everything",
        json!({"command": npm_server("mcp-server-everything")}),
    )]);
    let out = run_with(&scratch, &server, &mcp, &[]);
    let init = &out.lines()[0];
    assert_eq!(init["subtype"], "init");
    assert_eq!(init["mcp_servers"][0]["name"], "everything", "{init}");
    assert_eq!(
        results(&server),
        [
            ("Echo: hello mcp".to_string(), false),
            ("The sum of 2 and 3 is 5.".to_string(), false),
            (
                "<tool_use_error>InputValidationError: mcp__everything__get-sum failed due to the following issue:\nThe required parameter `b` is missing</tool_use_error>".to_string(),
                true
            ),
        ]
    );
    // The tools joined the request after the server connected: deferred
    // (the default, DESIGN §10), by name in ToolSearch's description.
    let last = server.requests().pop().unwrap();
    let search = body::tool(&last.body, "ToolSearch").unwrap_or_default();
    let description = search["description"].as_str().unwrap_or_default();
    assert!(
        description.contains("\nmcp__everything__: echo, "),
        "{}",
        last.body["tools"]
    );
}

#[test]
fn server_filesystem_reads_and_writes_real_files() {
    let scratch = Scratch::new();
    scratch.write("notes.txt", "first line\nsecond line\n");
    let root = scratch.path().display().to_string();
    let server = calls(&[
        (
            "mcp__fs__read_text_file",
            json!({"path": format!("{root}/notes.txt")}),
        ),
        (
            "mcp__fs__write_file",
            json!({"path": format!("{root}/out.txt"), "content": "written by MCP"}),
        ),
    ]);
    let mcp = config(&[(
        "fs",
        json!({"command": npm_server("mcp-server-filesystem"), "args": [root]}),
    )]);
    // write_file is not read-only: it needs a rule (a server-wide one here).
    run_with(&scratch, &server, &mcp, &["--allowedTools", "mcp__fs"]);
    let results = results(&server);
    assert_eq!(results[0], ("first line\nsecond line\n".to_string(), false));
    assert!(!results[1].1, "{results:?}");
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("out.txt")).unwrap(),
        "written by MCP"
    );
}

#[test]
fn headless_default_mode_denies_a_tool_that_is_not_read_only() {
    let scratch = Scratch::new();
    let root = scratch.path().display().to_string();
    let server = calls(&[(
        "mcp__fs__write_file",
        json!({"path": format!("{root}/out.txt"), "content": "x"}),
    )]);
    let mcp = config(&[(
        "fs",
        json!({"command": npm_server("mcp-server-filesystem"), "args": [root]}),
    )]);
    let out = run_with(&scratch, &server, &mcp, &[]);
    assert!(!scratch.path().join("out.txt").exists());
    assert_eq!(
        out.result()["permission_denials"][0]["tool_name"],
        "mcp__fs__write_file"
    );
}

/// The Python server's `add` over both transports, same exact answer.
#[test]
fn python_sdk_server_over_stdio_and_streamable_http() {
    let http = HttpServer::start(&[]);
    let stdio = json!({"command": python(), "args": [py_script(), "stdio"]});
    let over_http = json!({"type": "http", "url": http.url()});
    for (transport, entry) in [("stdio", stdio), ("http", over_http)] {
        let scratch = Scratch::new();
        let server = calls(&[("mcp__py__add", json!({"a": 2, "b": 40}))]);
        run_with(&scratch, &server, &config(&[("py", entry)]), &[]);
        assert_eq!(
            results(&server),
            [("2+40=42".to_string(), false)],
            "{transport}"
        );
    }
}

/// The Python server over streamable HTTP on a free loopback port, killed
/// (by pid) when dropped.
pub(super) struct HttpServer(PortServer);

impl HttpServer {
    fn start(env: &[(&str, &str)]) -> Self {
        Self(PortServer::start(
            "the Python MCP server",
            std::time::Duration::from_secs(30),
            |port| {
                let mut cmd = std::process::Command::new(python());
                cmd.args([py_script(), "http".into(), port.to_string()])
                    .envs(env.iter().copied());
                cmd
            },
        ))
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.0.port)
    }
}

/// Server not found, crash mid-call (then restarted on next use), hang
/// past MCP_TOOL_TIMEOUT, a schema that is not JSON Schema, 500 tools:
/// each answers the model with an exact text and the run goes on.
#[test]
fn failures_answer_the_model_and_the_run_goes_on() {
    let err = |text: &str| (format!("<tool_use_error>{text}</tool_use_error>"), true);
    type Case = (
        &'static str,
        Value,
        Vec<(&'static str, Value)>,
        Vec<(String, bool)>,
    );
    let cases: Vec<Case> = vec![
        (
            "not found",
            json!({"command": "/nonexistent/mcp-server"}),
            vec![("mcp__s__anything", json!({}))],
            vec![err(
                "MCP server \"s\" is not connected: cannot start `/nonexistent/mcp-server`: No such file or directory (os error 2)",
            )],
        ),
        (
            "crash mid-call, then restarted",
            py_stdio(json!({})),
            vec![
                ("mcp__s__crash", json!({})),
                ("mcp__s__add", json!({"a": 1, "b": 2})),
            ],
            vec![
                err(
                    "MCP server \"s\" disconnected during the call to crash; it will be restarted on its next use",
                ),
                ("1+2=3".into(), false),
            ],
        ),
        (
            "hang",
            py_stdio(json!({})),
            vec![("mcp__s__hang", json!({"seconds": 30}))],
            vec![err(
                "MCP server \"s\" did not answer hang within 1500 ms (MCP_TOOL_TIMEOUT); the call was cancelled",
            )],
        ),
        (
            "invalid schema",
            py_stdio(json!({"PY_MCP_INVALID_SCHEMA": "1"})),
            vec![("mcp__s__add", json!({"a": 1, "b": 2}))],
            vec![err(
                "InputValidationError: mcp__s__add has an invalid input schema: \"no-such-type\" is not valid under any of the schemas listed in the 'anyOf' keyword",
            )],
        ),
        (
            "500 tools",
            py_stdio(json!({"PY_MCP_TOOLS": "500"})),
            vec![("mcp__s__tool_499", json!({"city": "Oslo"}))],
            vec![("translation #499 for Oslo: fine".into(), false)],
        ),
    ];
    for (case, entry, tool_calls, want) in cases {
        let scratch = Scratch::new();
        let server = calls(&tool_calls);
        run_one_server(&scratch, &server, ("MCP_TOOL_TIMEOUT", "1500"), "s", entry);
        assert_eq!(results(&server), want, "{case}");
    }
}

/// Progress notifications of a running MCP call reach stream-json's
/// `tool_progress` lines (`--verbose`).
#[test]
fn progress_notifications_reach_tool_progress() {
    let scratch = Scratch::new();
    let server = calls(&[(
        "mcp__everything__trigger-long-running-operation",
        json!({"duration": 0.3, "steps": 3}),
    )]);
    let mcp = config(&[(
        "everything",
        json!({"command": npm_server("mcp-server-everything")}),
    )]);
    let out = run_with(
        &scratch,
        &server,
        &mcp,
        &["--verbose", "--allowedTools", "mcp__everything"],
    );
    let progress = out.field_where("subtype", "tool_progress", "data");
    assert_eq!(
        progress,
        [1, 2, 3]
            .map(|i| json!({"progress": i as f64, "total": 3.0, "message": null}))
            .to_vec(),
        "{}",
        out.stdout
    );
    assert!(!results(&server)[0].1, "{:?}", results(&server));
}

/// A call past MCP_TOOL_TIMEOUT is cancelled on the server too: the Python
/// server's `hang` sees `notifications/cancelled` (its task is cancelled).
#[test]
fn a_timed_out_call_is_cancelled_on_the_server() {
    let scratch = Scratch::new();
    let marker = scratch.path().join("cancelled.txt");
    let entry = py_stdio(json!({"PY_MCP_CANCEL_FILE": marker.display().to_string()}));
    // The second call is answered after the server read the cancellation.
    let server = calls(&[
        ("mcp__s__hang", json!({"seconds": 30})),
        ("mcp__s__add", json!({"a": 1, "b": 1})),
    ]);
    let mut env = server.env();
    env.push(("MCP_TOOL_TIMEOUT".into(), "1000".into()));
    let mcp = config(&[("s", entry)]);
    let out = run_stream_json_with_env(&scratch, &env, "hang", &["--mcp-config", &mcp]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(results(&server)[0].1);
    assert_eq!(results(&server)[1], ("1+1=2".to_string(), false));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap_or_default(),
        "cancelled"
    );
}
