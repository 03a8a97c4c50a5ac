//! Bash through the erased contract (parse → validate → call, then the
//! workspace cwd policy) with real processes: output layout, exit codes,
//! cwd persistence, progress, huge and non-UTF-8 output, facts. Helpers
//! here are shared by the other `bash_*` modules.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use orbit_tools::INTERRUPT_MESSAGE_FOR_TOOL_USE as INTERRUPT_MESSAGE;
use orbit_tools::builtin::bash::BashTool;
use orbit_tools::builtin::bash::output::{BASH_OUTPUT_HEAD_BYTES, BASH_OUTPUT_TAIL_BYTES};
use orbit_tools::{CallContext, ToolOutput, ToolProgress, ToolUseContext};
use serde_json::json;

use super::harness::{call, call_with, session, text, typed_facts};

pub(super) async fn bash(ctx: &ToolUseContext, command: &str) -> ToolOutput {
    call(BashTool, ctx, json!({ "command": command })).await
}

pub(super) use orbit_test_support::process::live_members_of_group as live_members;

/// The session's cwd is `dir`, and a command runs there.
async fn assert_session_in(ctx: &ToolUseContext, dir: &Path) {
    assert_eq!(ctx.cwd(), dir);
    let out = bash(ctx, "pwd").await;
    assert_eq!(text(&out), dir.to_str().unwrap());
}

/// Waits (bounded) until group `pgid` has no live process; panics otherwise.
pub(super) async fn assert_group_dies(pgid: i32) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let live = live_members(pgid);
        if live.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of group {pgid} still alive: {live:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The result of a command: stdout then stderr, all trailing whitespace
/// (blank lines, spaces, tabs, `\r`) removed from the combined text and
/// leading whitespace kept; a failure's first line says why (exit code,
/// signal) above the body, trimmed the same way.
#[tokio::test]
async fn output_layout_and_failure_lines() {
    let (_d, ctx, _) = session();
    let table = [
        // command, text, is_error
        ("echo err >&2; echo out; printf '\\n\\n'", "out\nerr", false),
        ("printf 'a\\n\\n\\n'", "a", false),
        ("echo only-err >&2", "only-err", false),
        (r"printf 'line\n\n\n'; printf '   \n'", "line", false),
        (r"printf '  indented \t \r\n'", "  indented", false),
        (r"printf '\n\n  first\n'", "\n\n  first", false),
        (
            r"printf 'out \n'; printf 'err  \n \n' >&2",
            "out\nerr",
            false,
        ),
        (r"printf 'out\n'; printf '  \n\t\n' >&2", "out", false),
        (r"printf ' \n \n'; printf 'err\n' >&2", "err", false),
        (r"printf '  \n\t'", "", false),
        ("true", "", false),
        (r"printf 'x  \n\n'; exit 3", "Exit code 3\nx", true),
        (
            "echo hi; echo bad >&2; exit 2",
            "Exit code 2\nhi\nbad",
            true,
        ),
        ("false", "Exit code 1", true),
        (
            "echo before; kill -9 $$",
            "Command was killed by SIGKILL (signal 9)\nbefore",
            true,
        ),
        // stdin is closed; pagers are off; bytes that are not UTF-8 are
        // replaced.
        ("cat; echo done", "done", false),
        (
            "echo $GIT_PAGER $PAGER $GIT_TERMINAL_PROMPT",
            "cat cat 0",
            false,
        ),
        ("printf 'a\\377b\\n'", "a\u{fffd}b", false),
    ];
    for (command, expected, is_error) in table {
        let out = bash(&ctx, command).await;
        assert_eq!(text(&out), expected, "{command}");
        assert_eq!(out.is_error, is_error, "{command}");
    }
}

/// What a large result's saved copy holds: the raw streams, untrimmed.
#[tokio::test]
async fn full_text_keeps_the_trailing_whitespace() {
    let (_d, ctx, _) = session();
    let out = bash(&ctx, r"printf 'line\n\n   \n'").await;
    assert_eq!(text(&out), "line");
    assert_eq!(out.full_text.as_deref(), Some("line\n\n   \n"));
}

/// Exit 1 of grep/rg (no match), test/[/[[ (false) and diff (files differ)
/// is an answer, reported as a success without `Exit code 1`, judged by the
/// last command of the (parsed) command line. Exit 2 of those, and any
/// non-zero exit of other commands, stays an error.
#[tokio::test]
async fn exit_one_of_search_test_and_diff_is_not_an_error() {
    let (_d, ctx, root) = session();
    fs::write(root.join("f"), "alpha\nbeta\n").unwrap();
    fs::write(root.join("g"), "alpha\ngamma\n").unwrap();
    // (is_error, text, the commands that give it)
    let table: &[(bool, &str, &[&str])] = &[
        // Exit 1 of a search, a test or diff: an answer.
        (
            false,
            "",
            &[
                "grep zzz f",
                "cat f | grep zzz",
                "cat f | grep zzz 2>/dev/null",
                "grep zzz f; grep zzz g",
                "egrep 'zz|yy' f",
                "test -f missing",
                "[ -f missing ]",
                "[[ -d missing ]]",
            ],
        ),
        (false, "0", &["grep -c zzz f"]),
        (false, "start", &["echo start && grep zzz f"]),
        (false, "2c2\n< beta\n---\n> gamma", &["diff f g"]),
        (
            false,
            "1c1,2\n< x\n---\n> alpha\n> beta",
            &["echo x | diff - f"],
        ),
        // Exit 2: a real error.
        (
            true,
            "Exit code 2\ngrep: missing: No such file or directory",
            &["grep zzz missing"],
        ),
        (
            true,
            "Exit code 2\ndiff: missing: No such file or directory",
            &["diff f missing"],
        ),
        (
            true,
            "Exit code 2\nbash: line 2: [: a: integer expression expected",
            &["[ a -eq 1 ]"],
        ),
        // Another command decides the exit code.
        (
            true,
            "Exit code 1",
            &[
                "false",
                "grep zzz f; false",
                "grep zzz f && echo found",
                "(grep zzz f)",
                "sh -c 'exit 1'",
            ],
        ),
        (false, "", &["grep zzz f | cat"]),
        (true, "Exit code 1\nalpha", &["! grep alpha f"]),
    ];
    for (is_error, expected, commands) in table {
        for command in *commands {
            let out = bash(&ctx, command).await;
            assert_eq!(text(&out), *expected, "{command}");
            assert_eq!(out.is_error, *is_error, "{command}");
        }
    }
}

#[tokio::test]
async fn cd_persists_across_calls() {
    let (_d, ctx, root) = session();
    fs::create_dir(root.join("sub")).unwrap();
    let out = bash(&ctx, "cd sub").await;
    assert_eq!(text(&out), "");
    assert_session_in(&ctx, &root.join("sub")).await;
    // `exit N` still reports the directory.
    let out = bash(&ctx, "cd ..; exit 3").await;
    assert_eq!(text(&out), "Exit code 3");
    assert_eq!(ctx.cwd(), root);
}

#[tokio::test]
async fn cd_outside_project_is_reset() {
    let (_d, ctx, root) = session();
    let out = bash(&ctx, "cd / && pwd").await;
    assert_eq!(
        text(&out),
        format!("/\nShell cwd was reset to {}", root.display())
    );
    assert_session_in(&ctx, &root).await;
}

#[tokio::test]
async fn cd_into_an_allowed_directory_persists() {
    let (_d, ctx, root) = session();
    let extra_tmp = tempfile::tempdir().unwrap();
    let extra = fs::canonicalize(extra_tmp.path()).unwrap();
    fs::create_dir(extra.join("deep")).unwrap();
    let cd = format!("cd {}", extra.join("deep").display());
    // Not allowed yet: reset to the project root.
    let out = bash(&ctx, &cd).await;
    assert_eq!(
        text(&out),
        format!("Shell cwd was reset to {}", root.display())
    );
    assert_eq!(ctx.cwd(), root);
    // Allowed (a clone shares the list): the cd sticks, below the dir too.
    ctx.clone().allow_directory(extra_tmp.path().to_path_buf());
    let out = bash(&ctx, &cd).await;
    assert_eq!(text(&out), "");
    assert_session_in(&ctx, &extra.join("deep")).await;
    // A sibling with the allowed dir's name as prefix is still outside.
    let sibling = PathBuf::from(format!("{}-sibling", extra.display()));
    fs::create_dir(&sibling).unwrap();
    let out = bash(&ctx, &format!("cd {}", sibling.display())).await;
    assert_eq!(
        text(&out),
        format!("Shell cwd was reset to {}", root.display())
    );
    fs::remove_dir(&sibling).unwrap();
}

/// Bash only reports where the shell ended; the session's cwd is the
/// orchestrator's decision (`apply_cwd_policy`, applied by `drive`).
#[tokio::test]
async fn bash_reports_the_final_directory_without_moving_the_session() {
    let (_d, ctx, root) = session();
    fs::create_dir(root.join("sub")).unwrap();
    let tool = orbit_tool::typed(BashTool);
    let parsed = tool.parse(json!({ "command": "cd sub" }), &ctx).unwrap();
    let out = parsed
        .call(&ctx, &CallContext::detached("t"))
        .await
        .unwrap();
    assert_eq!(out.cwd, Some(root.join("sub")));
    assert_eq!(ctx.cwd(), root);
    let parsed = tool.parse(json!({ "command": "cd /" }), &ctx).unwrap();
    let out = parsed
        .call(&ctx, &CallContext::detached("t"))
        .await
        .unwrap();
    assert_eq!(out.cwd, Some(PathBuf::from("/")));
    assert_eq!(text(&out), "");
}

/// A session cwd removed since the last call: the command runs in the
/// project root, and the output says so.
#[tokio::test]
async fn a_removed_cwd_falls_back_to_the_project_root() {
    let (_d, ctx, root) = session();
    fs::create_dir(root.join("gone")).unwrap();
    bash(&ctx, "cd gone").await;
    assert_eq!(ctx.cwd(), root.join("gone"));
    fs::remove_dir(root.join("gone")).unwrap();
    let out = bash(&ctx, "pwd").await;
    assert_eq!(
        text(&out),
        format!(
            "{}\nShell cwd was reset to {}",
            root.display(),
            root.display()
        )
    );
    assert_eq!(out.full_text, None);
    assert_session_in(&ctx, &root).await;
}

#[tokio::test]
async fn timeout_kills_and_says_so() {
    let (_d, ctx, _) = session();
    let started = Instant::now();
    let out = call(
        BashTool,
        &ctx,
        json!({ "command": "echo start; sleep 30", "timeout": 1000 }),
    )
    .await;
    assert_eq!(text(&out), "Command timed out after 1s\nstart");
    assert!(out.is_error);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn progress_streams_output() {
    let (_d, ctx, _) = session();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let call = CallContext::new("tu_1", tokio_util::sync::CancellationToken::new(), Some(tx));
    let out = call_with(
        BashTool,
        &ctx,
        json!({ "command": "echo one; echo two >&2" }),
        &call,
    )
    .await;
    assert_eq!(text(&out), "one\ntwo");
    drop(call);
    let mut chunks = Vec::new();
    while let Some((id, p)) = rx.recv().await {
        assert_eq!(id, "tu_1");
        match p {
            ToolProgress::Output(s) => chunks.push(s),
            other => panic!("unexpected progress {other:?}"),
        }
    }
    chunks.sort();
    assert_eq!(chunks, vec!["one\n".to_string(), "two\n".to_string()]);
}

#[tokio::test]
async fn cancel_kills_group_promptly() {
    let (_d, ctx, _) = session();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let token = tokio_util::sync::CancellationToken::new();
    let call = CallContext::new("tu_1", token.clone(), Some(tx));
    let input = json!({ "command": "echo $$; sleep 1000 & sleep 1000; wait" });
    let run = call_with(BashTool, &ctx, input, &call);
    let control = async {
        let (_, first) = rx.recv().await.unwrap();
        let ToolProgress::Output(s) = first else {
            panic!("expected output progress")
        };
        let pgid: i32 = s.trim().parse().unwrap();
        let cancelled_at = Instant::now();
        token.cancel();
        (pgid, cancelled_at)
    };
    let (out, (pgid, cancelled_at)) = tokio::join!(run, control);
    let took = cancelled_at.elapsed();
    assert!(took < Duration::from_millis(200), "returned after {took:?}");
    assert_eq!(text(&out), INTERRUPT_MESSAGE);
    assert!(out.is_error);
    assert_group_dies(pgid).await;
}

#[tokio::test]
async fn huge_output_keeps_head_and_tail() {
    let (_d, ctx, _) = session();
    let total = 50_000_000usize;
    let out = bash(&ctx, &format!("yes | head -c {total}")).await;
    let dropped = total - BASH_OUTPUT_HEAD_BYTES - BASH_OUTPUT_TAIL_BYTES;
    let head = "y\n".repeat(BASH_OUTPUT_HEAD_BYTES / 2);
    let tail = "y\n".repeat(BASH_OUTPUT_TAIL_BYTES / 2);
    let expected = format!(
        "{head}\n\n... [{dropped} bytes of output truncated] ...\n\n{}",
        tail.trim_end()
    );
    assert!(text(&out) == expected, "unexpected huge output layout");
    assert!(!out.is_error);
}

#[tokio::test]
async fn large_output_arrives_whole() {
    let (_d, ctx, _) = session();
    let out = bash(&ctx, "seq 1 40000").await;
    let expected: Vec<String> = (1..=40000).map(|n| n.to_string()).collect();
    assert_eq!(text(&out).len(), 228_893);
    assert!(text(&out) == expected.join("\n"));
}

#[tokio::test]
async fn facts_follow_the_shell_analysis() {
    let (_d, ctx, root) = session();
    let facts_of = |command: &str| typed_facts(BashTool, &ctx, json!({ "command": command }));
    let f = facts_of("ls -la | wc -l");
    assert!(f.read_only && f.concurrency_safe && !f.destructive);
    assert_eq!(f.command.as_deref(), Some("ls -la | wc -l"));
    assert_eq!(f.subject, "ls -la | wc -l");
    assert!(f.failure_cancels_siblings);
    // `ls` reads the working directory; `wc` reads its stdin.
    assert_eq!(f.reads, vec![root.join(".")]);
    assert!(f.writes.is_empty() && f.network.is_none());
    let f = facts_of("cat a ~/b > out");
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap());
    assert_eq!(f.reads, vec![root.join("a"), home.join("b")]);
    assert_eq!(f.writes, vec![root.join("out")]);
    assert!(facts_of("git status").concurrency_safe);
    let f = facts_of("ls > f");
    assert!(!f.read_only && !f.concurrency_safe);
    assert!(!facts_of("cat $(rm x)").concurrency_safe);
    assert!(facts_of("rm -rf build").destructive);
    assert!(!facts_of("ls").destructive);
}
