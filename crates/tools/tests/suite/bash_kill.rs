//! Bash never leaves processes holding its pipes: the killing test of
//! issue 3 (timeout kills the whole group) and leaders that exit while
//! background children live on. Membership is checked in /proc.

use std::time::{Duration, Instant};

use orbit_tools::builtin::bash::BashTool;
use orbit_tools::{CallContext, ToolProgress};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::bash::{assert_group_dies, bash, live_members};
use super::harness::{call, call_with, session, text};

#[tokio::test]
async fn timeout_leaves_no_process_of_the_group() {
    let (_d, ctx, _) = session();
    let out = call(
        BashTool,
        &ctx,
        json!({ "command": "echo $$; sleep 1000 & sleep 1000; wait", "timeout": 1000 }),
    )
    .await;
    let body = text(&out);
    let mut lines = body.lines();
    assert_eq!(lines.next(), Some("Command timed out after 1s"));
    let pgid: i32 = lines.next().unwrap().parse().unwrap();
    assert_eq!(lines.next(), None);
    assert!(out.is_error);
    assert_group_dies(pgid).await;
}

/// The number `command` prints, in a fresh session; the command, which
/// leaves a background child, must return within 2 s.
async fn number_printed_promptly(command: &str) -> i32 {
    let (_d, ctx, _) = session();
    let started = Instant::now();
    let out = bash(&ctx, command).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "{command}: took {took:?}");
    assert!(!out.is_error, "{command}: {out:?}");
    text(&out).parse().unwrap()
}

#[tokio::test]
async fn background_child_holding_pipes_does_not_hang() {
    let pgid = number_printed_promptly("echo $$; sleep 1000 &").await;
    // The orphan held stdout, so the group was killed.
    assert_group_dies(pgid).await;
}

#[tokio::test]
async fn child_that_redirected_its_output_is_left_running() {
    let pid = number_printed_promptly("sleep 1000 >/dev/null 2>&1 & echo $!").await;
    let pgid = pid_group(pid);
    assert_eq!(
        live_members(pgid),
        vec![pid],
        "detached child should survive"
    );
    // Clean up the process this test started.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert_group_dies(pgid).await;
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let (_d, ctx, _) = session();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let call = CallContext::new("tu_1", CancellationToken::new(), Some(tx));
    let input = json!({ "command": "echo $$; sleep 1000 & sleep 1000; wait" });
    let mut run = Box::pin(call_with(BashTool, &ctx, input, &call));
    // Drive the call until the shell reports its pid, then drop it (as an
    // embedder dropping the future instead of cancelling would).
    let pgid: i32 = tokio::select! {
        _ = &mut run => panic!("the call ended on its own"),
        Some((_, ToolProgress::Output(s))) = rx.recv() => s.trim().parse().unwrap(),
    };
    drop(run);
    assert_group_dies(pgid).await;
}

fn pid_group(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(2).unwrap().parse().unwrap()
}
