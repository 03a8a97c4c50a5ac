//! Matchers (table), the runner with real processes (a timeout and a
//! left-behind child kill the whole group), and folding several hooks'
//! answers (deny beats ask beats allow; context adds up).

use std::time::{Duration, Instant};

use orbit_hooks::{HookEvent, HookSet, Hooks, Matcher, PermissionVote};
use serde_json::json;

#[test]
fn matchers_follow_claude_codes_rules() {
    // (matcher, subjects it matches, subjects it does not)
    let cases: [(&str, &[&str], &[&str]); 7] = [
        ("", &["Bash"], &[]),
        ("*", &["anything"], &[]),
        ("Bash", &["Bash"], &["BashOutput"]),
        ("Edit|Write", &["Write"], &["WriteX"]),
        ("mcp__.*", &["mcp__github__search"], &["xmcp__a"]),
        ("Notebook.*", &["NotebookEdit"], &[]),
        ("startup", &[], &["resume"]),
    ];
    for (matcher, hits, misses) in cases {
        let m = Matcher::parse(matcher).unwrap();
        for (subjects, expected) in [(hits, true), (misses, false)] {
            for subject in subjects {
                assert_eq!(m.matches(Some(subject)), expected, "{matcher} on {subject}");
            }
        }
    }
}

fn hooks(dir: &std::path::Path, entries: &[(&str, &str, f64)]) -> Hooks {
    let groups: Vec<_> = entries
        .iter()
        .map(|(matcher, command, timeout)| {
            json!({"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]})
        })
        .collect();
    let set = HookSet::parse(&json!({"PreToolUse": groups}), "test.json", "user").unwrap();
    Hooks::new(set, dir)
}

fn run(hooks: &Hooks) -> orbit_hooks::HookVerdict {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(hooks.run(
        HookEvent::PreToolUse,
        Some("Bash"),
        json!({"tool_name": "Bash"}),
    ))
}

#[test]
fn a_timeout_and_a_left_behind_child_kill_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let late = dir.path().join("late");
    let late_q = late.display().to_string();
    // (command, timeout s, ends within, timed out)
    let cases = [
        // Hangs: killed at its timeout, its background child with it.
        (
            format!("(sleep 2; touch '{late_q}') & sleep 30"),
            1.0,
            5,
            true,
        ),
        // Exits at once but leaves a child holding stdout: the grace ends it.
        (
            format!("(sleep 2; touch '{late_q}') & echo done"),
            60.0,
            5,
            false,
        ),
    ];
    for (command, timeout, within, timed_out) in cases {
        let h = hooks(dir.path(), &[("Bash", &command, timeout)]);
        let started = Instant::now();
        let verdict = run(&h);
        assert!(started.elapsed() < Duration::from_secs(within), "{command}");
        assert_eq!(
            verdict.errors.len(),
            usize::from(timed_out),
            "{:?}",
            verdict.errors
        );
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!late.exists(), "the group's child was killed: {command}");
    }
}

#[test]
fn answers_fold_deny_over_ask_over_allow_and_context_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    let answer = |decision: &str, context: &str| {
        format!(
            "echo '{}'",
            json!({"hookSpecificOutput": {"permissionDecision": decision, "permissionDecisionReason": decision, "additionalContext": context}})
        )
    };
    let allow = answer("allow", "a");
    let ask = answer("ask", "b");
    let deny = answer("deny", "c");
    // (hooks, folded vote)
    let cases = [
        (vec![allow.as_str()], PermissionVote::Allow),
        (vec![allow.as_str(), ask.as_str()], PermissionVote::Ask),
        (
            vec![deny.as_str(), ask.as_str(), allow.as_str()],
            PermissionVote::Deny,
        ),
    ];
    for (commands, expected) in cases {
        let entries: Vec<_> = commands.iter().map(|c| ("*", *c, 10.0)).collect();
        let verdict = run(&hooks(dir.path(), &entries));
        let (vote, reason) = verdict.permission.clone().unwrap();
        assert_eq!(vote, expected);
        assert_eq!(reason, format!("{expected:?}").to_lowercase());
        assert_eq!(verdict.additional_context.len(), commands.len());
        assert_eq!(verdict.reports.len(), commands.len());
    }
}
