//! Issue 9, item 17: `-p PROMPT` with piped stdin sends `PROMPT\nSTDIN`
//! (stdin as-is, trailing newline kept), as Claude Code does
//! (`git diff | orbit -p "Review this"`). Empty stdin or /dev/null: the
//! prompt alone; a pipe that stays open without data does not hang the run.

use std::process::Stdio;
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply};

use super::common::{
    Scratch, drain, first_user_text, orbit, orbit_process, run, spawn_piped, wait_within,
};

#[test]
fn piped_stdin_is_appended_to_the_prompt_after_a_newline() {
    for (stdin, want) in [
        (
            "diff --git a/x b/x\n+added\n",
            "Review this\ndiff --git a/x b/x\n+added\n",
        ),
        ("no trailing newline", "Review this\nno trailing newline"),
        ("", "Review this"),
        ("\n", "Review this"),
    ] {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("ok")]);
        let mut cmd = orbit(&scratch, &server);
        cmd.args(["-p", "Review this"]).write_stdin(stdin);
        let out = run(cmd);
        assert_eq!(out.code, 0, "{stdin:?}: {}", out.stderr);
        assert_eq!(out.stderr, "", "{stdin:?}");
        assert_eq!(
            first_user_text(&server.requests()[0].body),
            want,
            "{stdin:?}"
        );
    }
}

#[test]
fn dev_null_stdin_sends_the_prompt_alone() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = orbit_process(&scratch, &server.env())
        .args(["-p", "just this"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(first_user_text(&server.requests()[0].body), "just this");
}

/// Claude Code waits 3 s for the first byte of an open pipe, then goes on
/// with a warning; orbit does the same instead of hanging.
#[test]
fn an_open_pipe_without_data_does_not_hang_the_run() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let started = Instant::now();
    let mut cmd = orbit_process(&scratch, &server.env());
    cmd.args(["-p", "just this"]);
    let mut child = spawn_piped(&mut cmd, Stdio::piped());
    // Held open, never written, until orbit has exited.
    let held_stdin = child.stdin.take();
    let status = wait_within(&mut child, Duration::from_secs(30));
    let took = started.elapsed();
    drop(held_stdin);
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());

    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stdout, "ok\n");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr}");
    assert!(
        stderr.starts_with("orbit: warning: no stdin data received in 3 s"),
        "{stderr}"
    );
    assert_eq!(first_user_text(&server.requests()[0].body), "just this");
}
