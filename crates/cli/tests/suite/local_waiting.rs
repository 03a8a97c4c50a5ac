//! Waiting for the local model is visible (issue 38), through the binary
//! with a stand-in llama-server: `orbit -p` on a terminal (run under
//! `script`, which gives it a pseudo-terminal) says on stderr that the
//! model is loading and how far it has read the prompt — from
//! llama-server's streamed `prompt_progress`, which orbit asks for with
//! `return_progress: true` — and, the first time a run loads the model
//! only, how to keep it warm. Without a terminal none of it is printed.
//! The terminal UI shows the same in its spinner line, and its `/clear`
//! keeps the server (no second start).

use std::process::Command;

use super::clients::Pane;
use super::common::{Scratch, orbit_with_env, run};

/// Stand-in llama-server: takes 2 s to become healthy (loading), records
/// each request body in `requests.jsonl`, and streams a reply whose prompt
/// reading reports 0/1024 and 512/1024 two seconds apart, then 1024/1024
/// and the text "hi" — as llama-server b11434 streams them with
/// `return_progress` (a role-only delta plus `prompt_progress`).
const SLOW_LLAMA_SERVER: &str = orbit_test_support::llama_server_script!(
    r#"
open(os.path.join(root, "fake.pids"), "a").write("%d\n" % os.getpid())
time.sleep(2)
"#,
    r#"
    def do_POST(self):
        request = self.rfile.read(int(self.headers["content-length"]))
        open(os.path.join(root, "requests.jsonl"), "ab").write(request + b"\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        def send(c):
            self.wfile.write(("data: %s\n\n" % json.dumps(c)).encode())
            self.wfile.flush()
        for processed in (0, 512, 1024):
            reading = chunk({"role": "assistant", "content": None})
            reading["prompt_progress"] = {"total": 1024, "cache": 0, "processed": processed, "time_ms": 0}
            send(reading)
            if processed < 1024:
                time.sleep(2)
        send(chunk({"content": "hi"}))
        send(chunk({}, "stop"))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True
"#
);

/// `orbit -p PROMPT` under `script`: stdin, stdout and stderr on one
/// pseudo-terminal; returns everything the terminal showed.
fn run_on_a_terminal(scratch: &Scratch, prompt: &str) -> String {
    let orbit = env!("CARGO_BIN_EXE_orbit");
    let out = Command::new("script")
        .args(["-qec", &format!("{orbit} -p '{prompt}'"), "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.home())
        .env("ORBIT_HOME", scratch.home().join(".orbit"))
        .env("ORBIT_LOCAL_KEEP_ALIVE", "0")
        .env("TERM", "dumb")
        .current_dir(scratch.path())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(out.status.success(), "{shown}");
    shown
}

#[test]
fn a_terminal_shows_the_model_loading_and_reading_the_prompt() {
    let scratch = Scratch::new();
    let paths =
        orbit_test_support::stub_local_runtime(&scratch.home().join(".orbit"), SLOW_LLAMA_SERVER);

    let first = run_on_a_terminal(&scratch, "hi");
    assert!(
        first.contains("\nhi\n") || first.starts_with("hi\n"),
        "{first}"
    );
    assert!(
        first.contains("orbit: local model: loading the model…"),
        "{first}"
    );
    assert!(
        first.contains("orbit: local model: reading the prompt 50% (512/1,024 tokens)…"),
        "{first}"
    );
    let hint = "orbit: tip: loading the local model took";
    assert_eq!(first.matches(hint).count(), 1, "{first}");
    assert!(first.contains("`orbit local serve`"), "{first}");
    let requests = std::fs::read_to_string(paths.root().join("requests.jsonl")).unwrap();
    let body: serde_json::Value = serde_json::from_str(requests.lines().next().unwrap()).unwrap();
    assert_eq!(body["return_progress"], true, "{body}");

    // The hint is said once; the progress every time.
    let second = run_on_a_terminal(&scratch, "hi");
    assert!(!second.contains(hint), "{second}");
    assert!(
        second.contains("orbit: local model: reading the prompt 50%"),
        "{second}"
    );

    // No terminal: headless output as before.
    std::fs::remove_file(paths.root().join("warm-hint.shown")).unwrap();
    let out = run({
        let mut cmd = orbit_with_env(&scratch, &[]);
        cmd.args(["-p", "hi"]);
        cmd
    });
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "hi\n");
    assert!(!out.stderr.contains("local model:"), "{}", out.stderr);
    assert!(!out.stderr.contains("tip:"), "{}", out.stderr);
}

/// The UI: the spinner line shows how far the prompt is read; the hint is
/// in the scrollback; after `/clear` the next question is answered by the
/// same server (the stand-in started once).
#[test]
fn the_ui_shows_the_prompt_being_read_and_clear_keeps_the_server() {
    let scratch = Scratch::new();
    let paths =
        orbit_test_support::stub_local_runtime(&scratch.home().join(".orbit"), SLOW_LLAMA_SERVER);
    let env = vec![("ORBIT_LOCAL_KEEP_ALIVE".to_string(), "0".to_string())];
    let pane = Pane::start(&scratch, &env, &["hi"]);
    pane.wait_for("· reading the prompt 50% (512/1,024 tokens) (Esc to interrupt)");
    pane.wait_idle();
    let screen = pane.wait_for("orbit: tip: loading the local model took");
    assert!(screen.contains("`orbit local serve`"), "{screen}");
    pane.submit("/clear");
    pane.wait_for("New session");
    pane.submit("again");
    pane.wait_for("· reading the prompt 50%");
    pane.wait_idle();
    pane.exit();
    let requests = std::fs::read_to_string(paths.root().join("requests.jsonl")).unwrap();
    assert_eq!(requests.lines().count(), 2, "{requests}");
    let starts = std::fs::read_to_string(paths.root().join("fake.pids")).unwrap();
    assert_eq!(
        starts.lines().count(),
        1,
        "a second server started: {starts}"
    );
}
