//! Issue 34 through the binary: per-prompt checkpoints and `orbit rewind`.
//! A session Edits a file, Writes a new one, runs `sed -i` and `rm`
//! through Bash; `orbit rewind ID --to 1 --code` brings all four back byte
//! for byte, in a git repository (whose `git status`, index file, branches
//! and stash stay identical) and in a plain folder. A file edited by the
//! user after the checkpoint is refused by name unless `--force`; a rewind
//! is undone with `--undo`. Conversation rewind: `--resume` then makes the
//! request made at that point again, byte for byte.

use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Outcome, Scratch, git_in, orbit_with_env, run, s};
use super::harness::{assert_contains, stream_json_ok, write_call, write_then_answer};

const ID: &str = "3c9e5a1b-7d2f-4e8a-9b6c-1d2e3f4a5b6c";

/// The files before the session.
const EDIT_BEFORE: &str = "one\ntwo\nthree\n";
const SED_BEFORE: &str = "alpha\nbeta\n";
const GONE_BEFORE: &str = "keep me\n";

fn seed(scratch: &Scratch) {
    scratch.write("edit.txt", EDIT_BEFORE);
    scratch.write("sed.txt", SED_BEFORE);
    scratch.write("gone.txt", GONE_BEFORE);
}

/// Prompt 1 of session `ID`: Read + Edit edit.txt, Write new.txt, Bash
/// `sed -i` on sed.txt and `rm gone.txt`.
fn four_changes(scratch: &Scratch) -> Outcome {
    let root = scratch.path();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": s(&root.join("edit.txt"))}),
        ),
        Reply::tool_use(
            "toolu_2",
            "Edit",
            json!({"file_path": s(&root.join("edit.txt")), "old_string": "two", "new_string": "TWO"}),
        ),
        write_call("toolu_3", &root.join("new.txt"), "brand new\n"),
        Reply::tool_use(
            "toolu_4",
            "Bash",
            json!({"command": "sed -i s/alpha/ALPHA/ sed.txt && rm gone.txt"}),
        ),
        Reply::text("done"),
    ]);
    let out = unasked_prompt(scratch, &server, "change things");
    assert_eq!(read(&root.join("edit.txt")), "one\nTWO\nthree\n");
    assert_eq!(read(&root.join("new.txt")), "brand new\n");
    assert_eq!(read(&root.join("sed.txt")), "ALPHA\nbeta\n");
    assert!(!root.join("gone.txt").exists());
    out
}

/// A model for two prompts: the first Writes `a.txt` ("one"), the second
/// runs `bash` (the SDK and TUI rewind tests share it).
pub fn write_then_bash(scratch: &Scratch, bash: &str) -> FakeAnthropic {
    let a = scratch.path().join("a.txt");
    FakeAnthropic::start(vec![
        write_call("toolu_a", &a, "one\n"),
        Reply::text("wrote a"),
        Reply::tool_use("toolu_b", "Bash", json!({"command": bash})),
        Reply::text("wrote b"),
    ])
}

/// Prompt 1 of session `ID`, every call allowed; it must succeed.
fn unasked_prompt(scratch: &Scratch, server: &FakeAnthropic, prompt: &str) -> Outcome {
    stream_json_ok(
        scratch,
        server,
        prompt,
        &["--session-id", ID, "--permission-mode", "bypassPermissions"],
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rewind(scratch: &Scratch, args: &[&str]) -> Outcome {
    let mut cmd = orbit_with_env(scratch, &[]);
    cmd.arg("rewind").arg(ID).args(args);
    run(cmd)
}

/// [`rewind`], which must succeed.
#[track_caller]
fn rewind_ok(scratch: &Scratch, args: &[&str]) -> Outcome {
    let out = rewind(scratch, args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    out
}

/// `orbit sessions show ID`.
fn sessions_show(scratch: &Scratch) -> Outcome {
    let mut cmd = orbit_with_env(scratch, &[]);
    cmd.args(["sessions", "show", ID]);
    run(cmd)
}

fn assert_restored(scratch: &Scratch) {
    let root = scratch.path();
    assert_eq!(read(&root.join("edit.txt")), EDIT_BEFORE);
    assert_eq!(read(&root.join("sed.txt")), SED_BEFORE);
    assert_eq!(read(&root.join("gone.txt")), GONE_BEFORE);
    assert!(!root.join("new.txt").exists());
}

/// What a user's repository shows: status, index bytes, refs, stash.
fn repo_state(dir: &Path) -> (String, Vec<u8>, String, String) {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            // Reading must not refresh the index it compares.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    (
        git(&[
            "status",
            "--porcelain=v2",
            "--branch",
            "--untracked-files=all",
        ]),
        std::fs::read(dir.join(".git/index")).unwrap(),
        git(&["for-each-ref"]),
        git(&["stash", "list"]),
    )
}

#[test]
fn code_rewind_restores_edit_write_sed_and_rm_in_a_git_repository_leaving_git_alone() {
    let scratch = Scratch::new();
    let (root, home) = (scratch.path(), scratch.home());
    git_in(&root, &home, &["init", "-q", "-b", "main"]);
    seed(&scratch);
    git_in(&root, &home, &["add", "edit.txt", "gone.txt"]);
    git_in(&root, &home, &["commit", "-q", "-m", "seed"]);
    // A staged change and a stash the rewind must not touch.
    std::fs::write(root.join("stashed.txt"), "x\n").unwrap();
    git_in(&root, &home, &["add", "stashed.txt"]);
    git_in(&root, &home, &["stash", "-q"]);
    git_in(&root, &home, &["add", "sed.txt"]);
    let before_session = repo_state(&root);

    four_changes(&scratch);
    let after_session = repo_state(&root);
    // The index file is the user's: the session's git commands never wrote it.
    assert_eq!(after_session.1, before_session.1);

    let out = rewind_ok(&scratch, &["--to", "1", "--code"]);
    assert_restored(&scratch);
    assert_eq!(repo_state(&root), before_session, "{}", out.stdout);
    assert_contains(&out.stdout, "removed new.txt");
    // edit.txt and sed.txt: one line each back and away; gone.txt: one
    // back; new.txt: one away.
    assert_contains(&out.stdout, "3 written, 1 removed (+3 -3 lines)");

    // A rewind is undoable.
    rewind_ok(&scratch, &["--undo"]);
    assert_eq!(read(&root.join("edit.txt")), "one\nTWO\nthree\n");
    assert_eq!(read(&root.join("new.txt")), "brand new\n");
    assert!(!root.join("gone.txt").exists());
    assert_eq!(repo_state(&root).1, before_session.1);
}

#[test]
fn code_rewind_restores_all_four_in_a_plain_folder() {
    let scratch = Scratch::new();
    seed(&scratch);
    four_changes(&scratch);
    rewind_ok(&scratch, &["--to", "1", "--code"]);
    assert_restored(&scratch);
    // The conversation was left alone.
    let transcript =
        orbit_session::transcript_path(&scratch.home().join(".orbit"), &scratch.path(), ID);
    assert_eq!(orbit_session::fork::prompts(&transcript).unwrap().len(), 1);
}

#[test]
fn a_file_the_user_edited_after_the_checkpoint_is_refused_by_name_unless_forced() {
    let scratch = Scratch::new();
    seed(&scratch);
    four_changes(&scratch);
    std::fs::write(scratch.path().join("sed.txt"), "mine\n").unwrap();
    let out = rewind(&scratch, &["--to", "1", "--code"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("sed.txt"), "{}", out.stderr);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
    // Nothing was written.
    assert_eq!(read(&scratch.path().join("sed.txt")), "mine\n");
    assert!(scratch.path().join("new.txt").exists());

    rewind_ok(&scratch, &["--to", "1", "--code", "--force"]);
    assert_restored(&scratch);
}

#[test]
fn sessions_show_lists_the_prompts_and_their_checkpoints() {
    let scratch = Scratch::new();
    seed(&scratch);
    four_changes(&scratch);
    let out = sessions_show(&scratch);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for shown in [
        "1. change things",
        "before prompt 1",
        "after prompt 1",
        "edit.txt",
    ] {
        assert_contains(&out.stdout, shown);
    }
}

/// Runs prompt `text` of session `ID` (`extra` picks new or resumed)
/// against a model that writes `file` and answers; the model's requests.
fn writing_prompt(scratch: &Scratch, text: &str, file: &str, extra: &[&str]) -> Vec<String> {
    let server = write_then_answer(
        &format!("toolu_{text}"),
        &scratch.path().join(file),
        &format!("{text}\n"),
        &format!("wrote {file}"),
    );
    let mut args = vec!["--permission-mode", "bypassPermissions"];
    args.extend_from_slice(extra);
    stream_json_ok(scratch, &server, text, &args);
    server.requests().into_iter().map(|r| r.raw_body).collect()
}

#[test]
fn conversation_rewind_then_continue_repeats_the_request_made_at_that_point_byte_for_byte() {
    let scratch = Scratch::new();
    writing_prompt(&scratch, "first", "a.txt", &["--session-id", ID]);
    let second = writing_prompt(&scratch, "second", "b.txt", &["-r", ID]);
    writing_prompt(&scratch, "third", "c.txt", &["-r", ID]);
    let transcript =
        orbit_session::transcript_path(&scratch.home().join(".orbit"), &scratch.path(), ID);
    let whole = std::fs::read(&transcript).unwrap();

    // Neither flag: code and conversation.
    let out = rewind_ok(&scratch, &["--to", "2"]);
    assert!(scratch.path().join("a.txt").exists());
    assert!(!scratch.path().join("b.txt").exists());
    assert!(!scratch.path().join("c.txt").exists());
    assert_eq!(
        orbit_session::fork::prompts(&transcript).unwrap().len(),
        1,
        "{}",
        out.stdout
    );
    // The removed tail is kept: the whole transcript as a fork file.
    let forks =
        orbit_session::paths::session_dir(&scratch.home().join(".orbit"), &scratch.path(), ID)
            .join("forks");
    let kept: Vec<_> = std::fs::read_dir(&forks).unwrap().flatten().collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(std::fs::read(kept[0].path()).unwrap(), whole);

    let again = writing_prompt(&scratch, "second", "b.txt", &["-c"]);
    // Bodies are long: compared without printing them.
    assert!(
        again[0] == second[0],
        "the first request after the rewind differs"
    );
    assert!(
        again[1] == second[1],
        "the second request after the rewind differs"
    );
    // The new prompt 2 has its own checkpoint: rewinding it again works.
    let out = rewind_ok(&scratch, &["--to", "2", "--code"]);
    assert!(!scratch.path().join("b.txt").exists(), "{}", out.stdout);
}

#[test]
fn what_no_checkpoint_can_bring_back_is_listed_not_skipped() {
    let scratch = Scratch::new();
    let (root, home) = (scratch.path(), scratch.home());
    git_in(&root, &home, &["init", "-q"]);
    scratch.write(".gitignore", "*.log\n");
    let outside = home.join("outside.txt");
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": format!("echo x > {} && echo y > build.log && echo z > kept.txt", s(&outside))}),
        ),
        Reply::text("done"),
    ]);
    unasked_prompt(&scratch, &server, "write around");
    assert!(outside.exists() && root.join("build.log").exists());
    let out = rewind_ok(&scratch, &["--to", "1", "--code"]);
    assert!(!root.join("kept.txt").exists(), "{}", out.stdout);
    assert_contains(
        &out.stdout,
        &format!("not restorable: {} (outside the project)", s(&outside)),
    );
    assert_contains(&out.stdout, "not restorable: build.log (ignored by git)");
}

#[test]
fn a_prompt_that_only_reads_takes_no_checkpoint() {
    let scratch = Scratch::new();
    seed(&scratch);
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": s(&scratch.path().join("edit.txt"))}),
        ),
        Reply::text("read it"),
    ]);
    stream_json_ok(&scratch, &server, "look", &["--session-id", ID]);
    let store =
        orbit_session::paths::session_dir(&scratch.home().join(".orbit"), &scratch.path(), ID)
            .join("checkpoints");
    assert!(!store.exists(), "{}", store.display());
    assert_contains(&sessions_show(&scratch).stdout, "Checkpoints: none");
}

#[test]
fn a_subagents_writes_are_covered_by_the_parents_checkpoint() {
    let scratch = Scratch::new();
    seed(&scratch);
    let target = scratch.path().join("edit.txt");
    let server = FakeAnthropic::start(vec![
        // The parent's only call is the (read-only) Agent call.
        Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "change it", "prompt": "overwrite edit.txt"}),
        ),
        Reply::tool_use(
            "toolu_sub",
            "Bash",
            json!({"command": format!("echo sub > {}", s(&target))}),
        ),
        Reply::text("subagent done"),
        Reply::text("parent done"),
    ]);
    unasked_prompt(&scratch, &server, "delegate");
    assert_eq!(read(&target), "sub\n");
    let out = rewind_ok(&scratch, &["--to", "1", "--code"]);
    assert_eq!(read(&target), EDIT_BEFORE, "{}", out.stdout);
}
