//! Helpers the suites from `plan_mode` to `web_search` share beyond
//! `common.rs`: a headless run that must succeed (its outcome handed back
//! for the test's own checks), a session made headless to resume later, a
//! run beside a FIFO, a contains-assertion that shows both texts, the
//! model's Write call, and for the terminal UI a pane (on the fake server
//! or the local model) and its status line.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use orbit_test_support::{FakeAnthropic, Reply};

use super::clients::Pane;
use super::common::{
    Outcome, Scratch, lines_with, orbit_process, run, run_for_stderr, run_orbit, run_stream_json,
    run_stream_json_with_env,
};

/// Fails, naming the caller, unless `out` exited 0; stderr is the message.
#[track_caller]
fn succeeded(out: Outcome) -> Outcome {
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

/// [`run`] of `cmd`, which must exit 0.
#[track_caller]
pub fn run_ok(cmd: Command) -> Outcome {
    succeeded(run(cmd))
}

/// [`run_stream_json`], which must exit 0.
#[track_caller]
pub fn stream_json_ok(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    succeeded(run_stream_json(scratch, server, prompt, extra))
}

/// [`run_stream_json_with_env`], which must exit 0.
#[track_caller]
pub fn stream_json_ok_with_env(
    scratch: &Scratch,
    env: &[(String, String)],
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    succeeded(run_stream_json_with_env(scratch, env, prompt, extra))
}

/// [`run_orbit`], which must exit 0.
#[track_caller]
pub fn orbit_ok(scratch: &Scratch, server: &FakeAnthropic, args: &[&str]) -> Outcome {
    succeeded(run_orbit(scratch, server, args))
}

/// A session saved by a headless run of `prompt` (`-p` saves it as the UI
/// does), for a later `--continue` or `/resume`: its id.
#[track_caller]
pub fn saved_session(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
) -> String {
    let out = stream_json_ok(scratch, server, prompt, extra);
    out.result()["session_id"].as_str().unwrap().to_string()
}

/// Fails unless `text` contains `needle`; the message shows both.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "no {needle:?} in:\n{text}");
}

/// The UI's status line: the lowest visible row that shows `ctx `.
pub fn status_line(pane: &Pane) -> String {
    let visible = pane.visible();
    visible
        .lines()
        .rev()
        .find(|r| r.contains("ctx "))
        .unwrap_or_else(|| panic!("no status line in:\n{visible}"))
        .to_string()
}

/// orbit in a pane of `scratch` on its local model: no key, the runtime
/// stubbed with a healthy llama-server; `env` besides.
pub fn local_model_pane(scratch: &Scratch, env: &[(String, String)]) -> Pane {
    orbit_test_support::stub_local_runtime(
        &scratch.home().join(".orbit"),
        orbit_test_support::HEALTHY_LLAMA_SERVER,
    );
    Pane::start(scratch, env, &[])
}

/// A scratch project, a server with `replies` and orbit (with `args`) in a pane.
pub fn open(replies: Vec<Reply>, args: &[&str]) -> (Scratch, FakeAnthropic, Pane) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(replies);
    let pane = Pane::start(&scratch, &server.env(), args);
    (scratch, server, pane)
}

/// The model's Write of `content` to `path`.
pub fn write_call(id: &str, path: &Path, content: &str) -> Reply {
    Reply::tool_use(
        id,
        "Write",
        serde_json::json!({"file_path": path.display().to_string(), "content": content}),
    )
}

/// The strings of the JSON array `value` (which must be an array).
pub fn strs(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect()
}

/// `orbit ARGS…` in a fresh project whose `file` (a path below it) is a
/// FIFO, which blocks whoever reads it, against a model that answers
/// "ok". The run must end within `limit`, succeed, and name the file on
/// exactly one stderr line; the server, for what was sent.
pub fn run_beside_a_fifo(file: &str, args: &[&str], limit: Duration) -> FakeAnthropic {
    let scratch = Scratch::new();
    let fifo = scratch.path().join(file);
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    orbit_test_support::files::mkfifo(&fifo);
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let (status, stderr) = run_for_stderr(orbit_process(&scratch, &server.env()).args(args), limit);
    assert!(status.success(), "{stderr}");
    let name = fifo.file_name().unwrap().to_string_lossy();
    assert_eq!(lines_with(&stderr, &name).len(), 1, "{stderr}");
    server
}

/// A model that makes one [`write_call`], then answers `answer`.
pub fn write_then_answer(id: &str, path: &Path, content: &str, answer: &str) -> FakeAnthropic {
    FakeAnthropic::start(vec![write_call(id, path, content), Reply::text(answer)])
}
