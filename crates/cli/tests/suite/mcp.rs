//! MCP servers as tools, end to end: the real `orbit` binary, a scripted
//! model (the fake Anthropic server) and real MCP servers nobody here
//! wrote — `@modelcontextprotocol/server-everything` and
//! `@modelcontextprotocol/server-filesystem` (npm) — plus a small server on
//! the official Python SDK (`mcp` from PyPI; `fixtures/mcp_server.py`) over
//! stdio and streamable HTTP. `.ci/run` installs them; a missing install
//! fails these tests with the path it looked at (never a skip).
//!
//! Where they are: `ORBIT_MCP_NPM_PREFIX` (default `~/.cache/orbit-ci/npm`,
//! the servers in `node_modules/.bin`) and `ORBIT_MCP_PYTHON` (default
//! `~/.cache/orbit-ci/py/venv/bin/python`).

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, run_stream_json, run_stream_json_with_env};

/// An installed npm MCP server's executable.
pub fn npm_server(bin: &str) -> String {
    let prefix = std::env::var_os("ORBIT_MCP_NPM_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/orbit-ci/npm"));
    let path = prefix.join("node_modules/.bin").join(bin);
    assert!(
        path.exists(),
        "{} is missing: run .ci/run (it installs the MCP test servers) or set ORBIT_MCP_NPM_PREFIX",
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
        "{} is missing: run .ci/run (it installs the `mcp` package) or set ORBIT_MCP_PYTHON",
        path.display()
    );
    path.display().to_string()
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
}

/// The Python fixture server's script.
pub fn py_script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_server.py").to_string()
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

fn run_with(scratch: &Scratch, server: &FakeAnthropic, mcp: &str, extra: &[&str]) -> Outcome {
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
    // The tools joined the request after the server connected.
    let last = server.requests().pop().unwrap();
    let names: Vec<String> = last.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        names.iter().any(|n| n == "mcp__everything__echo"),
        "{names:?}"
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
struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl HttpServer {
    fn start(env: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(python())
            .args([py_script(), "http".into(), port.to_string()])
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let server = Self { child, port };
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the Python MCP server did not listen on {port}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        server
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Server not found, crash mid-call, hang past MCP_TOOL_TIMEOUT, a schema
/// that is not JSON Schema, 500 tools: each answers the model with an exact
/// text and the run goes on.
#[test]
fn failures_answer_the_model_and_the_run_goes_on() {
    let py = |env: Value| json!({"command": python(), "args": [py_script(), "stdio"], "env": env});
    let cases: Vec<(&str, Value, &str, Value, String, bool)> = vec![
        (
            "not found",
            json!({"command": "/nonexistent/mcp-server"}),
            "mcp__s__anything",
            json!({}),
            "<tool_use_error>MCP server \"s\" is not connected: cannot start `/nonexistent/mcp-server`: No such file or directory (os error 2)</tool_use_error>".into(),
            true,
        ),
        (
            "crash mid-call",
            py(json!({})),
            "mcp__s__crash",
            json!({}),
            "<tool_use_error>MCP server \"s\" disconnected during the call to crash; it will be restarted on its next use</tool_use_error>".into(),
            true,
        ),
        (
            "hang",
            py(json!({})),
            "mcp__s__hang",
            json!({"seconds": 30}),
            "<tool_use_error>MCP server \"s\" did not answer hang within 1500 ms (MCP_TOOL_TIMEOUT); the call was cancelled</tool_use_error>".into(),
            true,
        ),
        (
            "invalid schema",
            py(json!({"PY_MCP_INVALID_SCHEMA": "1"})),
            "mcp__s__add",
            json!({"a": 1, "b": 2}),
            String::new(),
            true,
        ),
        (
            "500 tools",
            py(json!({"PY_MCP_TOOLS": "500"})),
            "mcp__s__tool_499",
            json!({"city": "Oslo"}),
            "translation #499 for Oslo: fine".into(),
            false,
        ),
    ];
    for (case, entry, tool, input, want, is_error) in cases {
        let scratch = Scratch::new();
        let server = calls(&[(tool, input)]);
        let mut env = server.env();
        env.push(("MCP_TOOL_TIMEOUT".into(), "1500".into()));
        let mcp = config(&[("s", entry)]);
        let out = run_stream_json_with_env(
            &scratch,
            &env,
            "use the tools",
            &["--mcp-config", &mcp, "--allowedTools", "mcp__s"],
        );
        assert_eq!(out.code, 0, "{case}: {}", out.stderr);
        let got = results(&server);
        assert_eq!(got.len(), 1, "{case}: {got:?}");
        if want.is_empty() {
            assert!(
                got[0].1 && got[0].0.contains("mcp__s__add"),
                "{case}: {got:?}"
            );
        } else {
            assert_eq!(got[0], (want, is_error), "{case}");
        }
    }
}
