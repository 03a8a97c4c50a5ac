//! Bash, BashOutput and KillShell end to end through the engine (issue 3):
//! the exact tool_result the model receives, real processes, none left
//! behind.

use std::time::{Duration, Instant};

use orbit_test_support::Reply;
use orbit_tools::builtin::bash::background::BackgroundShells;
use serde_json::json;

use super::builtin_tools::*;

/// Pids of live (non-zombie) processes whose command line contains
/// `marker`. This machine's PID 1 does not reap orphans, so a zombie
/// counts as dead.
fn live_processes_with(marker: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Polls until no live process mentions `marker` (killing is asynchronous).
async fn assert_no_process_with(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let live = live_processes_with(marker);
        if live.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "still alive: {live:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn bash_sends_stdout_then_stderr_after_an_exit_code_line() {
    let (_dir, root) = temp_dir();
    let run = run_calls(
        &root,
        &[
            (
                "Bash",
                json!({"command": "echo err1 >&2; echo out1; echo err2 >&2; printf 'out2\\n\\n'; exit 3"}),
            ),
            ("Bash", json!({"command": "printf 'ok\\n\\n\\n'"})),
        ],
    )
    .await;
    assert_eq!(
        said(&run.results[0]),
        ("Exit code 3\nout1\nout2\nerr1\nerr2", true)
    );
    assert_eq!(said(&run.results[1]), ("ok", false));
}

#[tokio::test]
async fn bash_cwd_persists_across_calls_in_separate_turns() {
    let (_dir, root) = temp_dir();
    let run = run_calls(
        &root,
        &[
            ("Bash", json!({"command": "mkdir -p sub/deeper && cd sub"})),
            ("Bash", json!({"command": "pwd && cd deeper"})),
            ("Bash", json!({"command": "pwd"})),
        ],
    )
    .await;
    assert_eq!(
        said(&run.results[0]),
        ("(Bash completed with no output)", false)
    );
    let sub = root.join("sub");
    assert_eq!(said(&run.results[1]), (sub.to_str().unwrap(), false));
    let deeper = sub.join("deeper");
    assert_eq!(said(&run.results[2]), (deeper.to_str().unwrap(), false));
}

#[tokio::test]
async fn bash_timeout_says_so_and_kills_the_whole_group() {
    let (_dir, root) = temp_dir();
    // A distinctive duration marks this test's processes in /proc.
    let command = "sleep 1001.25 & sleep 1001.25; wait";
    let started = Instant::now();
    let r = call_one(&root, "Bash", json!({"command": command, "timeout": 1000})).await;
    assert_eq!(said(&r), ("Command timed out after 1s", true));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_no_process_with("1001.25").await;
}

#[tokio::test]
async fn bash_in_background_then_bash_output_then_kill_shell() {
    let (_dir, root) = temp_dir();
    let command = "echo started; echo warming >&2; exec sleep 1002.75";
    let mut session = Session::new(
        &root,
        vec![
            Reply::tool_use(
                "toolu_bg",
                "Bash",
                json!({"command": command, "run_in_background": true}),
            ),
            Reply::text("started it"),
            Reply::tool_use("toolu_out", "BashOutput", json!({"bash_id": "bash_1"})),
            Reply::tool_use("toolu_kill", "KillShell", json!({"shell_id": "bash_1"})),
            Reply::tool_use("toolu_after", "BashOutput", json!({"bash_id": "bash_1"})),
            Reply::text("done"),
        ],
    );
    session.prompt("start it").await;
    assert_eq!(
        said(&session.result_in(1, "toolu_bg")),
        ("Command running in background with ID: bash_1", false)
    );
    // Wait (without consuming it) until the shell's output has arrived, so
    // BashOutput's answer is deterministic.
    let shell = BackgroundShells::of(session.engine.tool_context())
        .get("bash_1")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while shell.received_bytes() != (8, 8) {
        assert!(Instant::now() < deadline, "{:?}", shell.received_bytes());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    session.prompt("check on it").await;
    assert_eq!(
        said(&session.result_in(3, "toolu_out")),
        (
            "<status>running</status>\n\n<stdout>\nstarted\n</stdout>\n\n<stderr>\nwarming\n</stderr>",
            false
        )
    );
    let killed = format!("Successfully killed shell: bash_1 ({command})");
    assert_eq!(
        said(&session.result_in(4, "toolu_kill")),
        (killed.as_str(), false)
    );
    assert_eq!(
        said(&session.result_in(5, "toolu_after")),
        ("<status>killed</status>", false)
    );
    assert_no_process_with("1002.75").await;
}

/// Opens `fifo` for writing from a separate process (blocks until a reader
/// opens it) and writes `text`.
fn feed_fifo(fifo: &std::path::Path, text: &str) -> std::process::Child {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf {text} > '{}'", fifo.display()))
        .spawn()
        .unwrap()
}

/// X1 with Bash's per-command classification: two read-only commands
/// (`cat FIFO`) run at the same time, a command writing a file runs alone.
/// Each `cat` blocks until the test feeds its FIFO, and the test feeds the
/// first only once both have started: had the engine run them one after the
/// other, the first could never finish (a 10 s fallback feeds them anyway
/// and fails the test).
#[tokio::test]
async fn read_only_bash_commands_run_together_and_writers_run_alone() {
    use futures::StreamExt;
    use orbit_protocol::EngineEvent;
    use orbit_test_support::Turn;

    let (_dir, root) = temp_dir();
    let (f1, f2) = (root.join("f1"), root.join("f2"));
    for f in [&f1, &f2] {
        orbit_test_support::files::mkfifo(f);
    }
    let replies = vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_a", "Bash", json!({"command": "cat f1"}))
                .tool_use("toolu_b", "Bash", json!({"command": "cat f2"}))
                .tool_use("toolu_c", "Bash", json!({"command": "echo c > out.txt"})),
        ),
        Reply::text("done"),
    ];
    let mut session = Session::new(&root, replies);
    let mut order: Vec<String> = Vec::new();
    let mut writers = Vec::new();
    let mut stalled = false;
    {
        let mut stream = session.engine.submit_message("go".into());
        loop {
            let event = match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(_) => {
                    // Serialized by mistake: unblock everything, then fail.
                    stalled = true;
                    if writers.len() < 2 {
                        writers.push(feed_fifo(&f1, "one"));
                        writers.push(feed_fifo(&f2, "two"));
                    }
                    continue;
                }
            };
            match &event {
                EngineEvent::ToolStarted { tool_use_id, .. } => {
                    order.push(format!("start {tool_use_id}"));
                }
                EngineEvent::ToolResult { result, .. } => {
                    order.push(format!("result {}", result.tool_use_id));
                }
                _ => {}
            }
            let seen = |s: &str| order.iter().any(|o| o == s);
            if writers.is_empty() && seen("start toolu_a") && seen("start toolu_b") {
                writers.push(feed_fifo(&f1, "one"));
            }
            if writers.len() == 1 && seen("result toolu_a") {
                writers.push(feed_fifo(&f2, "two"));
            }
        }
    }
    for mut w in writers {
        assert!(w.wait().unwrap().success());
    }
    assert!(
        !stalled,
        "read-only Bash calls did not run together: {order:?}"
    );
    let at = |s: &str| order.iter().position(|o| o == s).unwrap();
    // The writer started only after the read-only batch had finished.
    assert!(at("start toolu_c") > at("result toolu_a"), "{order:?}");
    let sent = orbit_test_support::body::tool_results(&session.server.bodies()[1]);
    let texts: Vec<(&str, &str, bool)> = sent
        .iter()
        .map(|r| (r.tool_use_id.as_str(), r.text.as_str(), r.is_error))
        .collect();
    assert_eq!(
        texts,
        vec![
            ("toolu_a", "one", false),
            ("toolu_b", "two", false),
            ("toolu_c", "(Bash completed with no output)", false),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(root.join("out.txt")).unwrap(),
        "c\n"
    );
}
