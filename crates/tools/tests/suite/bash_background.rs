//! Background runs: `run_in_background`, BashOutput's incremental reads,
//! status and filter, KillShell, and cleanup when the session ends.

use std::fs;
use std::time::{Duration, Instant};

use orbit_tools::builtin::bash::background::{BackgroundShell, BackgroundShells};
use orbit_tools::builtin::bash::{BashOutputTool, BashTool, KillShellTool};
use orbit_tools::{ToolOutput, ToolUseContext};
use serde_json::json;

use super::bash::assert_group_dies;
use super::harness::{call, session, text, try_call};

async fn start(ctx: &ToolUseContext, command: &str) -> String {
    let out = call(
        BashTool,
        ctx,
        json!({ "command": command, "run_in_background": true }),
    )
    .await;
    assert!(!out.is_error);
    let t = text(&out);
    t.strip_prefix("Command running in background with ID: ")
        .unwrap_or_else(|| panic!("unexpected start text {t:?}"))
        .to_string()
}

async fn output(ctx: &ToolUseContext, id: &str) -> ToolOutput {
    call(BashOutputTool, ctx, json!({ "bash_id": id })).await
}

fn shell(ctx: &ToolUseContext, id: &str) -> std::sync::Arc<BackgroundShell> {
    BackgroundShells::of(ctx).get(id).unwrap()
}

/// Waits (bounded) for `cond` on the shell, without consuming its output.
async fn wait_for(ctx: &ToolUseContext, id: &str, cond: impl Fn(&BackgroundShell) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let s = shell(ctx, id);
    while !cond(&s) {
        assert!(Instant::now() < deadline, "condition not reached for {id}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn ended(s: &BackgroundShell) -> bool {
    s.status().label() != "running"
}

/// Starts `command`, which first prints its shell's pid (`echo $$`), in the
/// background; its id and process group, read through BashOutput.
async fn start_group(ctx: &ToolUseContext, command: &str) -> (String, i32) {
    let id = start(ctx, command).await;
    wait_for(ctx, &id, |s| s.received_bytes().0 > 0).await;
    let out = output(ctx, &id).await;
    let body = text(&out);
    let pgid = body
        .strip_prefix("<status>running</status>\n\n<stdout>\n")
        .and_then(|r| r.strip_suffix("\n</stdout>"))
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("unexpected {body:?}"));
    (id, pgid)
}

#[tokio::test]
async fn incremental_reads_and_status() {
    let (_d, ctx, root) = session();
    let started = Instant::now();
    let id = start(
        &ctx,
        "echo one; while [ ! -e go ]; do sleep 0.01; done; echo two; echo warn >&2",
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(id, "bash_1");

    wait_for(&ctx, &id, |s| s.received_bytes().0 >= 4).await;
    let out = output(&ctx, &id).await;
    assert_eq!(
        text(&out),
        "<status>running</status>\n\n<stdout>\none\n</stdout>"
    );
    // Nothing new since the last read.
    let out = output(&ctx, &id).await;
    assert_eq!(text(&out), "<status>running</status>");

    fs::write(root.join("go"), "").unwrap();
    wait_for(&ctx, &id, ended).await;
    let out = output(&ctx, &id).await;
    assert_eq!(
        text(&out),
        "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\ntwo\n</stdout>\n\n<stderr>\nwarn\n</stderr>"
    );
    assert!(!out.is_error);
}

#[tokio::test]
async fn failure_status_and_ids_count_up() {
    let (_d, ctx, _) = session();
    let first = start(&ctx, "true").await;
    let second = start(&ctx, "echo out; echo err >&2; exit 3").await;
    assert_eq!((first.as_str(), second.as_str()), ("bash_1", "bash_2"));
    wait_for(&ctx, &second, ended).await;
    let out = output(&ctx, &second).await;
    assert_eq!(
        text(&out),
        "<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<stdout>\nout\n</stdout>\n\n<stderr>\nerr\n</stderr>"
    );
}

#[tokio::test]
async fn filter_keeps_matching_lines_and_consumes_the_rest() {
    let (_d, ctx, _) = session();
    let id = start(&ctx, "printf 'ok 1\\nbad\\nok 2\\n'").await;
    wait_for(&ctx, &id, ended).await;
    let out = call(
        BashOutputTool,
        &ctx,
        json!({ "bash_id": id, "filter": "^ok" }),
    )
    .await;
    assert_eq!(
        text(&out),
        "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nok 1\nok 2\n</stdout>"
    );
    let out = output(&ctx, &id).await;
    assert_eq!(
        text(&out),
        "<status>completed</status>\n\n<exit_code>0</exit_code>"
    );
}

#[tokio::test]
async fn bad_filter_and_unknown_id_are_refused() {
    let (_d, ctx, _) = session();
    let err = try_call(BashOutputTool, &ctx, json!({ "bash_id": "bash_9" }))
        .await
        .unwrap_err();
    assert_eq!(err, "No shell found with ID: bash_9");
    let id = start(&ctx, "true").await;
    let err = try_call(
        BashOutputTool,
        &ctx,
        json!({ "bash_id": id, "filter": "(" }),
    )
    .await
    .unwrap_err();
    assert!(
        err.starts_with("Invalid regular expression \"(\": "),
        "{err}"
    );

    // KillShell answers an unknown id as a failed run, not a refusal.
    let out = call(KillShellTool, &ctx, json!({ "shell_id": "bash_9" })).await;
    assert_eq!(text(&out), "No shell found with ID: bash_9");
    assert!(out.is_error);
}

#[tokio::test]
async fn kill_shell_kills_the_group() {
    let (_d, ctx, _) = session();
    let (id, pgid) = start_group(&ctx, "echo $$; sleep 1000 & sleep 1000; wait").await;
    let out = call(KillShellTool, &ctx, json!({ "shell_id": id })).await;
    assert_eq!(
        text(&out),
        "Successfully killed shell: bash_1 (echo $$; sleep 1000 & sleep 1000; wait)"
    );
    assert!(!out.is_error);
    assert_group_dies(pgid).await;

    let out = output(&ctx, &id).await;
    assert_eq!(text(&out), "<status>killed</status>");
    let out = call(KillShellTool, &ctx, json!({ "shell_id": id })).await;
    assert_eq!(
        text(&out),
        "Shell bash_1 is not running, so cannot be killed (status: killed)"
    );
    assert!(out.is_error);
}

#[tokio::test]
async fn ending_the_session_kills_background_groups() {
    let (_d, ctx, _) = session();
    let (_, pgid) = start_group(&ctx, "echo $$; sleep 1000 & sleep 1000").await;
    drop(ctx);
    assert_group_dies(pgid).await;
}
