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
