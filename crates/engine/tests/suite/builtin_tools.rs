//! Issue 3's behaviours end to end: the real `QueryEngine` with
//! `orbit_tools::builtin::default_tools()`, the real `AnthropicClient`
//! against `FakeAnthropic`, a real temp dir as cwd (bypassPermissions).
//! Every test asserts the exact tool_result text (and `is_error`) that the
//! next captured request carries, i.e. what the model receives.
//!
//! This module holds the shared harness ([`Session`], [`run_calls`],
//! [`call_one`], [`said`]) and the TodoWrite and WebFetch tests; Read/Write/
//! Edit live in `builtin_tools_files`, Glob/Grep/LS in
//! `builtin_tools_search`, Bash in `builtin_tools_shell`.

use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use orbit_engine::QueryEngine;
use orbit_protocol::events::TodoStatus;
use orbit_protocol::{EngineEvent, ResultSubtype, TodoItem};
use orbit_test_support::body::{self, ToolResultView};
use orbit_test_support::{FakeAnthropic, Reply};
use orbit_tools::builtin::default_tools;
use orbit_tools::builtin::todo::TODO_WRITE_RESULT;
use serde_json::{Value, json};

use super::support::*;

/// An engine with the built-in tools over a scripted fake model.
pub struct Session {
    pub server: FakeAnthropic,
    pub engine: QueryEngine,
}

impl Session {
    pub fn new(dir: &Path, replies: Vec<Reply>) -> Self {
        let server = FakeAnthropic::start(replies);
        let engine = QueryEngine::new(config(dir), client(&server), default_tools());
        // The WebFetch tests serve pages on 127.0.0.1.
        orbit_tools::builtin::web_fetch::guard::AllowedHosts::allow(
            engine.tool_context(),
            ["127.0.0.1".to_string()],
        );
        Self { server, engine }
    }

    /// Runs one user prompt to its end; it must succeed.
    pub async fn prompt(&mut self, prompt: &str) -> Vec<EngineEvent> {
        let events = run(&mut self.engine, prompt).await;
        assert_eq!(
            result(&events).subtype,
            ResultSubtype::Success,
            "{events:?}"
        );
        events
    }

    /// The single tool_result carried by request `n` (0-based), checked to
    /// answer `id`.
    pub fn result_in(&self, n: usize, id: &str) -> ToolResultView {
        let bodies = self.server.bodies();
        let mut sent = body::tool_results(&bodies[n]);
        assert_eq!(sent.len(), 1, "request {n}: {sent:?}");
        let r = sent.remove(0);
        assert_eq!(r.tool_use_id, id);
        r
    }
}

/// What one scripted run produced.
pub struct Run {
    /// The tool_result the model received for each call, in order.
    pub results: Vec<ToolResultView>,
    pub events: Vec<EngineEvent>,
    pub bodies: Vec<Value>,
}

/// The id of the `n`-th (0-based) scripted call.
pub fn call_id(n: usize) -> String {
    format!("toolu_{}", n + 1)
}

/// Runs `calls` one per model turn (ids `toolu_1`, `toolu_2`, …) in `dir`,
/// then the model answers "done".
pub async fn run_calls(dir: &Path, calls: &[(&str, Value)]) -> Run {
    let mut replies: Vec<Reply> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, input))| Reply::tool_use(call_id(i), *name, input.clone()))
        .collect();
    replies.push(Reply::text("done"));
    let mut session = Session::new(dir, replies);
    let events = session.prompt("go").await;
    assert_eq!(result(&events).result, "done");
    let results = (0..calls.len())
        .map(|i| session.result_in(i + 1, &call_id(i)))
        .collect();
    Run {
        results,
        events,
        bodies: session.server.bodies(),
    }
}

/// One call in `dir`: the tool_result the model received for it.
pub async fn call_one(dir: &Path, tool: &str, input: Value) -> ToolResultView {
    run_calls(dir, &[(tool, input)]).await.results.remove(0)
}

/// Runs `tool` once per case in `dir` (one session, one call per turn) and
/// asserts what the model received for each: `(input, text, is_error)`.
pub async fn assert_each_said(dir: &Path, tool: &str, cases: &[(Value, String, bool)]) {
    let calls: Vec<(&str, Value)> = cases
        .iter()
        .map(|(input, ..)| (tool, input.clone()))
        .collect();
    let run = run_calls(dir, &calls).await;
    for ((input, text, is_error), r) in cases.iter().zip(&run.results) {
        assert_eq!(said(r), (text.as_str(), *is_error), "{tool} {input}");
    }
}

/// `(text, is_error)` of what the model received, for one-line asserts.
pub fn said(r: &ToolResultView) -> (&str, bool) {
    (r.text.as_str(), r.is_error)
}

/// A temp dir and its canonical path (how tools print paths).
pub fn temp_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

// ---------------------------------------------------------------- TodoWrite

#[tokio::test]
async fn todo_write_confirms_and_emits_a_todo_update_event() {
    let (_dir, root) = temp_dir();
    let todos = json!([
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        {"content": "Fix bug", "status": "pending", "activeForm": "Fixing bug"}
    ]);
    let run = run_calls(&root, &[("TodoWrite", json!({ "todos": todos }))]).await;
    assert_eq!(said(&run.results[0]), (TODO_WRITE_RESULT, false));
    assert_eq!(
        TODO_WRITE_RESULT,
        "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"
    );
    let updates: Vec<&Vec<TodoItem>> = run
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::TodoUpdate { todos } => Some(todos),
            _ => None,
        })
        .collect();
    let item = |content: &str, status, active: &str| TodoItem {
        content: content.into(),
        status,
        active_form: active.into(),
    };
    assert_eq!(
        updates,
        vec![&vec![
            item("Run tests", TodoStatus::InProgress, "Running tests"),
            item("Fix bug", TodoStatus::Pending, "Fixing bug"),
        ]]
    );
}

// ----------------------------------------------------------------- WebFetch

/// A one-route-per-path HTTP/1.1 server on 127.0.0.1 answering at most
/// `max_conns` connections (one request each); returns its base URL.
fn http_server(routes: Vec<(&'static str, String)>, max_conns: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(max_conns) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or("/");
            let response = routes
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".into());
            let _ = stream.write_all(response.as_bytes());
        }
    });
    base
}

fn html_response(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// HTML becomes markdown (no script, no style); a redirect to another host
/// is reported with what to fetch instead, not followed.
#[tokio::test]
async fn web_fetch_converts_html_and_reports_a_cross_host_redirect() {
    let (_dir, root) = temp_dir();
    let page = "<html><head><title>T</title><style>p{}</style></head><body>\
<h1>Orbit</h1><p>A <b>fast</b> agent.</p><script>alert(1)</script></body></html>";
    let moved = "HTTP/1.1 301 Moved Permanently\r\nlocation: http://example.com/new\r\ncontent-length: 0\r\n\r\n";
    let routes = vec![("/page", html_response(page)), ("/old", moved.into())];
    let base = http_server(routes, 2);
    let (page, old) = (format!("{base}/page"), format!("{base}/old"));
    let converted = format!("Prompt: What is it?\nURL: {page}\n\n# Orbit\n\nA **fast** agent.");
    let redirect = format!(
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n\
Original URL: {old}\n\
Redirect URL: http://example.com/new\n\
Status: 301 Moved Permanently\n\n\
To complete your request, I need to fetch content from the redirected URL. \
Please use WebFetch again with these parameters:\n\
- url: \"http://example.com/new\"\n\
- prompt: \"Summarize\""
    );
    assert_each_said(
        &root,
        "WebFetch",
        &[
            (
                json!({"url": page, "prompt": "What is it?"}),
                converted,
                false,
            ),
            (json!({"url": old, "prompt": "Summarize"}), redirect, false),
        ],
    )
    .await;
}
