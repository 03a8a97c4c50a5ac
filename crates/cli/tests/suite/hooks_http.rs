//! Hook types `http` and `prompt` through the binary. `http`: a local
//! HTTP server (127.0.0.1, a thread here) receives the input as a JSON
//! POST with the configured headers (`$VAR` expanded only when listed in
//! `allowedEnvVars`), its answer decides like a command hook's stdout; a
//! 500 or a hang is a non-blocking error; a project's http hook in an
//! untrusted folder is never sent. `prompt`: the fake Anthropic server
//! answers the evaluator's side request (the small fast model, Claude
//! Code's evaluator text) with `{"ok": …}`, which allows or denies the
//! call and makes a Stop go on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Scratch, run_stream_json};
use super::hooks::{Hooked, one_bash};

/// One request the hook server got: its headers (lowercased names) and
/// JSON body.
#[derive(Debug, Clone)]
struct Got {
    headers: Vec<(String, String)>,
    body: Value,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A one-answer HTTP server on 127.0.0.1: every request gets `status` and
/// `body` after `delay`.
struct HookServer {
    url: String,
    got: Arc<Mutex<Vec<Got>>>,
}

impl HookServer {
    fn start(status: u16, body: &str, delay: Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&got);
        let body = body.to_string();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut headers = Vec::new();
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                loop {
                    line.clear();
                    reader.read_line(&mut line).unwrap();
                    let trimmed = line.trim_end();
                    if trimmed.is_empty() {
                        break;
                    }
                    if let Some((k, v)) = trimmed.split_once(':') {
                        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                    }
                }
                let len: usize = headers
                    .iter()
                    .find(|(k, _)| k == "content-length")
                    .map_or(0, |(_, v)| v.parse().unwrap());
                let mut raw = vec![0u8; len];
                reader.read_exact(&mut raw).unwrap();
                let parsed = serde_json::from_slice(&raw).unwrap_or(Value::Null);
                seen.lock().unwrap().push(Got {
                    headers,
                    body: parsed,
                });
                std::thread::sleep(delay);
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        Self { url, got }
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }
}

/// User settings with one PreToolUse hook on Bash and `env`.
fn settings_with(h: &Hooked, hook: Value) {
    let path = h.scratch.home().join(".orbit/settings.json");
    let settings = json!({
        "env": {"MY_TOKEN": "t0k3n", "OTHER_VAR": "secret-other"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
    });
    std::fs::write(path, settings.to_string()).unwrap();
}

const DENY: &str = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "http says no"}}"#;

#[test]
fn an_http_hook_gets_the_input_and_its_answer_decides() {
    let h = Hooked::new();
    let server = HookServer::start(200, DENY, Duration::ZERO);
    settings_with(
        &h,
        json!({"type": "http", "url": server.url, "timeout": 5,
            "headers": {"Authorization": "Bearer $MY_TOKEN", "X-Other": "[${OTHER_VAR}]"},
            "allowedEnvVars": ["MY_TOKEN"]}),
    );
    let model = one_bash("touch marker");
    let out = h.run(&model, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!h.scratch.path().join("marker").exists(), "denied");
    let result = body::tool_results(&model.bodies()[1]).remove(0);
    assert!(result.text.contains("http says no"), "{}", result.text);
    let got = server.got();
    assert_eq!(got.len(), 1);
    let request = &got[0];
    assert_eq!(request.body["hook_event_name"], "PreToolUse");
    assert_eq!(request.body["tool_input"]["command"], "touch marker");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), Some("Bearer t0k3n"));
    assert_eq!(request.header("x-other"), Some("[]"), "not allowed: empty");
    assert!(!out.stderr.contains("t0k3n") && !out.stderr.contains("secret-other"));
}

#[test]
fn an_http_hook_that_fails_or_hangs_never_stops_the_call() {
    // (name, status, delay, timeout secs, stderr says)
    let cases = [
        ("500", 500, Duration::ZERO, 5, "500"),
        ("hang", 200, Duration::from_secs(8), 1, "timed out"),
    ];
    for (name, status, delay, timeout, says) in cases {
        let h = Hooked::new();
        let server = HookServer::start(status, DENY, delay);
        settings_with(
            &h,
            json!({"type": "http", "url": server.url, "timeout": timeout}),
        );
        let model = one_bash("touch marker");
        let started = Instant::now();
        let out = h.run(&model, &["--allowedTools", "Bash"]);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert!(started.elapsed() < Duration::from_secs(7), "{name}");
        assert!(h.scratch.path().join("marker").exists(), "{name}: ran");
        assert!(out.stderr.contains(says), "{name}: {}", out.stderr);
        assert_eq!(server.got().len(), 1, "{name}");
    }
}

#[test]
fn a_project_http_hook_is_sent_only_in_a_trusted_folder() {
    for trusted in [false, true] {
        let scratch = Scratch::new();
        let server = HookServer::start(200, "{}", Duration::ZERO);
        std::fs::create_dir_all(scratch.path().join(".claude")).unwrap();
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "http", "url": server.url}]}]}});
        scratch.write(".claude/settings.json", &settings.to_string());
        let model = one_bash("echo hi");
        let flags: &[&str] = if trusted {
            &["--allowedTools", "Bash", "--trust-project"]
        } else {
            &["--allowedTools", "Bash"]
        };
        let out = run_stream_json(&scratch, &model, "go", flags);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            server.got().len(),
            usize::from(trusted),
            "trusted: {trusted}"
        );
    }
}

/// The fake server's answer to the evaluator.
fn verdict(ok: bool, reason: &str) -> Reply {
    Reply::text(json!({"ok": ok, "reason": reason}).to_string())
}

#[test]
fn a_prompt_hook_asks_the_small_fast_model_and_decides() {
    for ok in [true, false] {
        let h = Hooked::new();
        settings_with(
            &h,
            json!({"type": "prompt", "prompt": "Allow only safe commands: $ARGUMENTS"}),
        );
        let model = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", "Bash", json!({"command": "touch marker"})),
            verdict(ok, "touching is not allowed"),
            Reply::text("done"),
        ]);
        let out = h.run(&model, &["--allowedTools", "Bash"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(h.scratch.path().join("marker").exists(), ok, "ok: {ok}");
        let bodies = model.bodies();
        assert_eq!(bodies.len(), 3);
        let ask = &bodies[1];
        assert!(
            ask["model"].as_str().unwrap().contains("haiku"),
            "{}",
            ask["model"]
        );
        assert!(body::system_text(ask).contains("You are evaluating a hook"));
        let question = body::last_message_texts(ask).join("\n");
        assert!(
            question.starts_with("Allow only safe commands: {")
                && question.contains("\"touch marker\""),
            "{question}"
        );
        let result = body::tool_results(&bodies[2]).remove(0);
        assert_eq!(
            result.text.contains("touching is not allowed"),
            !ok,
            "{}",
            result.text
        );
    }
}

#[test]
fn a_stop_prompt_hook_makes_the_agent_go_on_with_its_reason() {
    let h = Hooked::new();
    let path = h.scratch.home().join(".orbit/settings.json");
    let settings = json!({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "Did it run the tests?", "timeout": 10}]}]}});
    std::fs::write(path, settings.to_string()).unwrap();
    let model = FakeAnthropic::start(vec![
        Reply::text("first answer"),
        verdict(false, "run the tests first"),
        Reply::text("tests ran"),
        verdict(true, "fine"),
    ]);
    let out = h.run(&model, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result()["result"], "tests ran");
    let bodies = model.bodies();
    assert_eq!(bodies.len(), 4);
    assert_eq!(
        body::last_message_texts(&bodies[2]),
        ["run the tests first"]
    );
}
