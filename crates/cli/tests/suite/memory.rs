//! The memory hierarchy through the binary (issue 31): the managed file,
//! `~/.claude/CLAUDE.md`, a parent folder's CLAUDE.md, the project's
//! CLAUDE.md with an `@import`, `.claude/CLAUDE.md`, `.claude/rules/*.md`,
//! `CLAUDE.local.md` and AGENTS.md from the git root down reach the system
//! prompt in Claude Code's order; skipped imports are one line each;
//! hostile imports are refused without a hang; a subfolder's CLAUDE.md is
//! appended to the first Read there.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use orbit_test_support::files::{mkfifo, put};
use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::json;

use super::common::{Scratch, lines_with, orbit_at, run, run_for_stderr, s};

/// A run with hostile imports ends within this (a FIFO read would hang).
const EXIT_LIMIT: Duration = Duration::from_secs(20);

/// `orbit -p PROMPT` in `cwd` (HOME = the scratch home) against `server`;
/// the outcome.
fn orbit_in(
    scratch: &Scratch,
    cwd: &Path,
    server: &FakeAnthropic,
    env: &[(&str, String)],
    prompt: &str,
) -> super::common::Outcome {
    let mut env_vars = server.env();
    env_vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.clone())));
    let mut cmd = orbit_at(cwd, &scratch.home(), &env_vars);
    cmd.args(["-p", prompt, "--output-format", "stream-json"]);
    run(cmd)
}

/// Where each marker is in `text`; panics naming a missing one.
fn positions(text: &str, markers: &[&str]) -> Vec<usize> {
    markers
        .iter()
        .map(|m| {
            text.find(m)
                .unwrap_or_else(|| panic!("{m} missing from:\n{text}"))
        })
        .collect()
}

#[test]
fn the_whole_hierarchy_reaches_the_system_prompt_in_order() {
    let scratch = Scratch::new();
    let top = scratch.path();
    let work = top.join("work");
    let proj = work.join("proj");
    std::fs::create_dir_all(work.join(".git")).unwrap();
    let managed = put(&top, "etc/managed.md", "MANAGED-POLICY-31");
    put(&scratch.home(), ".claude/CLAUDE.md", "USER-MEMORY-31");
    put(&work, "CLAUDE.md", "PARENT-MEMORY-31");
    put(&work, "AGENTS.md", "PARENT-AGENTS-31");
    put(&proj, "CLAUDE.md", "PROJECT-MEMORY-31 see @docs/style.md");
    put(&proj, "docs/style.md", "IMPORTED-STYLE-31");
    put(&proj, ".claude/CLAUDE.md", "DOT-CLAUDE-31");
    put(&proj, ".claude/rules/b.md", "RULE-B-31");
    put(&proj, ".claude/rules/a.md", "RULE-A-31");
    put(&proj, "CLAUDE.local.md", "LOCAL-MEMORY-31");
    put(&proj, "AGENTS.md", "PROJECT-AGENTS-31");
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = orbit_in(
        &scratch,
        &proj,
        &server,
        &[("ORBIT_MANAGED_MEMORY_PATH", s(&managed))],
        "hi",
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let system = body::system_text(&server.requests()[0].body);
    let order = positions(
        &system,
        &[
            "MANAGED-POLICY-31",
            "USER-MEMORY-31",
            "PARENT-MEMORY-31",
            "PROJECT-MEMORY-31",
            "IMPORTED-STYLE-31",
            "DOT-CLAUDE-31",
            "RULE-A-31",
            "RULE-B-31",
            "LOCAL-MEMORY-31",
            "PARENT-AGENTS-31",
            "PROJECT-AGENTS-31",
        ],
    );
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{system}");
    assert!(
        system.contains(
            "# ~/.claude/CLAUDE.md (user's private instructions for all projects; follow them)\nUSER-MEMORY-31"
        ),
        "{system}"
    );
    assert!(
        system.contains("# docs/style.md (imported by CLAUDE.md; follow them)\nIMPORTED-STYLE-31"),
        "{system}"
    );
    assert!(!out.stderr.contains("skipped"), "{}", out.stderr);

    // CLAUDE_CONFIG_DIR moves the user's file.
    let moved = put(&top, "cc-config/CLAUDE.md", "MOVED-USER-MEMORY-31");
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let dir = s(moved.parent().unwrap());
    let out = orbit_in(
        &scratch,
        &proj,
        &server,
        &[("CLAUDE_CONFIG_DIR", dir)],
        "hi",
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let system = body::system_text(&server.requests()[0].body);
    assert!(system.contains("MOVED-USER-MEMORY-31"), "{system}");
    assert!(!system.contains("\nUSER-MEMORY-31"), "{system}");
}

/// The stderr lines that contain `needle`.
#[test]
fn an_import_cycle_and_a_missing_import_each_give_one_warning_line() {
    let scratch = Scratch::new();
    scratch.write("CLAUDE.md", "TOP-31 @a.md @missing-31.md");
    scratch.write("a.md", "A-31 @b.md");
    scratch.write("b.md", "B-31 @a.md");
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = orbit_in(&scratch, &scratch.path(), &server, &[], "hi");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let system = body::system_text(&server.requests()[0].body);
    positions(&system, &["TOP-31", "A-31 @b.md", "B-31 @a.md"]);
    assert_eq!(system.matches("A-31 @b.md").count(), 1, "{system}");
    let cycle = lines_with(&out.stderr, "@a.md");
    assert_eq!(cycle.len(), 1, "{}", out.stderr);
    assert!(cycle[0].contains("imported by b.md") && cycle[0].contains("cycle"));
    let missing = lines_with(&out.stderr, "@missing-31.md");
    assert_eq!(missing.len(), 1, "{}", out.stderr);
    assert!(missing[0].contains("does not exist"), "{}", out.stderr);
    assert_eq!(
        lines_with(&out.stderr, "skipped").len(),
        2,
        "{}",
        out.stderr
    );
}

#[test]
fn hostile_imports_are_refused_with_one_line_each_and_no_hang() {
    let scratch = Scratch::new();
    let secret = put(&scratch.home(), "notes/secret.md", "FAKE-SECRET-31");
    mkfifo(&scratch.path().join("fifo.md"));
    symlink(&secret, scratch.path().join("link.md")).unwrap();
    symlink("/dev/zero", scratch.path().join("zero.md")).unwrap();
    scratch.write(
        "CLAUDE.md",
        "RULES-31 @fifo.md @link.md @zero.md @/dev/zero @~/notes/secret.md",
    );
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let (status, stderr) = run_for_stderr(
        super::common::orbit_process(&scratch, &server.env()).args(["-p", "hi"]),
        EXIT_LIMIT,
    );
    assert!(status.success(), "{status}: {stderr}");
    let system = body::system_text(&server.requests()[0].body);
    assert!(system.contains("RULES-31"), "{system}");
    assert!(!system.contains("FAKE-SECRET-31"), "{system}");
    for (word, why) in [
        ("@fifo.md", "a FIFO"),
        ("@link.md", "outside the project"),
        ("@zero.md", "outside the project"),
        ("@/dev/zero", "outside the project"),
        ("@~/notes/secret.md", "outside the project"),
    ] {
        let lines = lines_with(&stderr, &format!("skipped {word} "));
        assert_eq!(lines.len(), 1, "{word}: {stderr}");
        assert!(lines[0].contains(why), "{word}: {stderr}");
    }
}

#[test]
fn a_subfolders_claude_md_comes_with_the_first_read_there_only() {
    let scratch = Scratch::new();
    scratch.write("CLAUDE.md", "TOP-MEMORY-31");
    let sub = scratch.path().join("sub");
    put(&sub, "CLAUDE.md", "SUB-MEMORY-31");
    put(&sub, "deeper/CLAUDE.md", "DEEPER-MEMORY-31");
    let a = put(&sub, "a.txt", "alpha");
    let b = put(&sub, "b.txt", "beta");
    let c = put(&sub, "deeper/c.txt", "gamma");
    let top = scratch.write("top.txt", "top");
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_top", "Read", json!({"file_path": s(&top)})),
        Reply::tool_use("toolu_a", "Read", json!({"file_path": s(&a)})),
        Reply::tool_use("toolu_b", "Read", json!({"file_path": s(&b)})),
        Reply::tool_use("toolu_c", "Read", json!({"file_path": s(&c)})),
        Reply::text("done"),
    ]);
    let out = orbit_in(&scratch, &scratch.path(), &server, &[], "read them");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 5, "{}", out.stderr);
    let system = body::system_text(&requests[0].body);
    assert!(system.contains("TOP-MEMORY-31"), "{system}");
    assert!(!system.contains("SUB-MEMORY-31"), "{system}");
    let last_result = |i: usize| body::tool_result_texts(&requests[i].body).pop().unwrap();
    // The second Read in a folder (and the Read at the top) carries none.
    for i in [1, 3] {
        let plain = last_result(i);
        assert!(!plain.contains("system-reminder"), "{plain}");
    }
    let with_sub = last_result(2);
    assert!(with_sub.contains("alpha"), "{with_sub}");
    let reminder = format!(
        "<system-reminder>\nContents of {}:\n\nSUB-MEMORY-31\n</system-reminder>",
        s(&sub.join("CLAUDE.md"))
    );
    assert!(with_sub.contains(&reminder), "{with_sub}");
    assert!(!with_sub.contains("DEEPER-MEMORY-31"), "{with_sub}");
    let with_deeper = last_result(4);
    assert!(with_deeper.contains("DEEPER-MEMORY-31"), "{with_deeper}");
    assert!(!with_deeper.contains("SUB-MEMORY-31"), "{with_deeper}");
    // Earlier request bytes never change: each request starts with the
    // one before it.
    for pair in requests.windows(2) {
        let before = body::messages(&pair[0].body);
        let after = body::messages(&pair[1].body);
        let plain = |m: &[serde_json::Value]| -> Vec<_> {
            m.iter().map(body::without_cache_control).collect()
        };
        assert_eq!(plain(&before), plain(&after[..before.len()]));
    }
}

#[test]
fn the_init_line_lists_the_memory_files_loaded() {
    let scratch = Scratch::new();
    let user = put(&scratch.home(), ".claude/CLAUDE.md", "USER-31 @~/extra.md");
    let extra = put(&scratch.home(), "extra.md", "EXTRA-31");
    let project = scratch.write("CLAUDE.md", "PROJECT-31");
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = orbit_in(&scratch, &scratch.path(), &server, &[], "hi");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let init = out
        .lines()
        .into_iter()
        .find(|l| l["type"] == "system" && l["subtype"] == "init")
        .expect("an init line");
    assert_eq!(
        init["memory_paths"],
        json!({"files": [s(&user), s(&extra), s(&project)]}),
        "{init}"
    );
}
