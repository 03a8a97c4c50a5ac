//! L5 through the binary (issue 4 acceptance): SIGINT during a 30 s Bash call
//! ends the run within 200 ms with exit 130, stream-json still ends with a
//! result, every tool_use is paired, and no process of the call's process
//! group is left alive. A second SIGINT exits at once, and even then no
//! `run_in_background` shell outlives orbit.

use std::io::Read;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use orbit_test_support::FakeAnthropic;
use orbit_test_support::process::live_members_of_group;
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, bash_calls, blocks, kind, orbit_process, spawn_headless};

/// Longest acceptable time from SIGINT to process exit.
const EXIT_AFTER_SIGINT_MAX: Duration = Duration::from_millis(200);
/// How long to wait for the Bash command to start.
const START_TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn sigint_during_long_bash_call_exits_130_promptly_and_cleanly() {
    let scratch = Scratch::new();
    let sleep = json!({"command": "echo $$ > started.pid; sleep 30", "timeout": 60000});
    let server = bash_calls(&[("toolu_sleep", sleep)], "must not be requested");
    let mut child = spawn_orbit(&scratch, &server);
    // The command writes its shell's pid (= its process group) when it starts.
    let pgid = wait_for_pid(&scratch, "started.pid", &mut child);
    assert!(
        !live_members_of_group(pgid).is_empty(),
        "the command's group should be running"
    );

    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let sent = Instant::now();
    sigint(&child);
    let (status, exited) = exit_within_10s(child, "SIGINT");
    let took = exited - sent;

    let mut out = Outcome {
        code: status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::new(),
    };
    stdout.read_to_string(&mut out.stdout).unwrap();
    stderr.read_to_string(&mut out.stderr).unwrap();
    assert_eq!(out.code, 130, "stderr: {}", out.stderr);
    assert!(
        took <= EXIT_AFTER_SIGINT_MAX,
        "exit took {took:?} after SIGINT"
    );

    let lines = out.lines();
    let kinds: Vec<String> = lines.iter().map(kind).collect();
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("result"),
        "{kinds:?}"
    );
    let result = out.result();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(out.stderr, "orbit: interrupted\n");
    let uses: Vec<Value> = blocks(&lines, "assistant", "tool_use")
        .map(|b| b["id"].clone())
        .collect();
    let results: Vec<Value> = blocks(&lines, "user", "tool_result")
        .map(|b| b["tool_use_id"].clone())
        .collect();
    assert_eq!(uses, vec![json!("toolu_sleep")]);
    assert_eq!(results, uses, "every tool_use is answered");
    assert_eq!(server.request_count(), 1, "no request after the interrupt");
    assert_eq!(
        live_members_of_group(pgid),
        Vec::<i32>::new(),
        "processes of the call survived"
    );
}

/// Spawns `orbit -p … --output-format stream-json` (Bash allowed) against `server`.
fn spawn_orbit(scratch: &Scratch, server: &FakeAnthropic) -> std::process::Child {
    spawn_orbit_with(scratch, server, "sleep please", &[])
}

/// Spawns `orbit -p PROMPT --output-format stream-json --allowedTools Bash
/// EXTRA…` against `server`.
pub(super) fn spawn_orbit_with(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
) -> std::process::Child {
    let mut cmd = orbit_process(scratch, &server.env());
    cmd.args(["-p", prompt, "--output-format", "stream-json"])
        .args(["--allowedTools", "Bash"])
        .args(extra);
    spawn_headless(&mut cmd, Stdio::piped())
}

/// Waits (on a thread) for `child`, a signalled orbit, to exit: its status
/// and when it exited; SIGKILLs it and fails if that takes over 10 s.
pub(super) fn exit_within_10s(mut child: Child, after: &str) -> (ExitStatus, Instant) {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send((status, Instant::now()));
    });
    let (status, exited) = rx
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| {
            let _ = kill(pid, Signal::SIGKILL);
            panic!("orbit did not exit within 10 s of {after}");
        });
    (status.unwrap(), exited)
}

/// Sends SIGINT to `child`, which must not be reaped yet (the pid is still
/// its own).
pub(super) fn sigint(child: &Child) {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    kill(pid, Signal::SIGINT).unwrap();
}

/// Waits for a command to write a pid into `name` (in the scratch dir).
pub(super) fn wait_for_pid(scratch: &Scratch, name: &str, child: &mut std::process::Child) -> i32 {
    let marker = scratch.path().join(name);
    let started = Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(&marker)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            return pid;
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            panic!("{name} was not written within {START_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Polls until no live process is left in group `pgid`; false on timeout.
fn group_ends_within(pgid: i32, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if live_members_of_group(pgid).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    live_members_of_group(pgid).is_empty()
}

/// Kills a process this test started (indirectly) when dropped.
struct KillOnDrop(i32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = kill(Pid::from_raw(self.0), Signal::SIGKILL);
    }
}

/// Two Ctrl-Cs, the second right after the first was handled: whichever
/// path ends the run (the orderly one or the immediate exit), it exits 130
/// and no `run_in_background` shell outlives orbit. The immediate-exit path
/// itself is covered deterministically by the unit test in `signals.rs`.
#[test]
fn double_sigint_exits_130_and_leaves_no_background_shell() {
    let scratch = Scratch::new();
    let server = bash_calls(
        &[
            (
                "toolu_bg",
                json!({"command": "echo $$ > bg.pid; sleep 30", "run_in_background": true}),
            ),
            (
                "toolu_fg",
                json!({"command": "echo $$ > fg.pid; sleep 30", "timeout": 60000}),
            ),
        ],
        "must not be requested",
    );
    let mut child = spawn_orbit(&scratch, &server);
    let bg = wait_for_pid(&scratch, "bg.pid", &mut child);
    let _bg_guard = KillOnDrop(bg);
    let fg = wait_for_pid(&scratch, "fg.pid", &mut child);
    assert!(
        !live_members_of_group(bg).is_empty(),
        "background shell runs"
    );

    sigint(&child);
    // The first SIGINT has been handled once the foreground group is killed.
    assert!(
        group_ends_within(fg, Duration::from_secs(10)),
        "the first SIGINT did not cancel the foreground call"
    );
    // orbit is not reaped yet, so this cannot hit another process.
    sigint(&child);
    let (status, _) = exit_within_10s(child, "the second SIGINT");
    assert_eq!(status.code(), Some(130));
    assert!(
        group_ends_within(bg, Duration::from_secs(2)),
        "background shell survived: {:?}",
        live_members_of_group(bg)
    );
}
