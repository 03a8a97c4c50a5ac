//! What a shell command changed (issues 38 and 39), through the binary:
//! a `sed -i` whose pattern matches nothing gets one note line in the
//! tool_result the model receives (a documented improvement, the text
//! snapshotted); one that changes its file gets none; a command that only
//! prints claims nothing; a FIFO, a link out of the project and a large
//! file among the named paths neither hang the call nor get a claim; in
//! the UI a `sed -i` rename in acceptEdits shows its diff.

use orbit_test_support::FakeOpenAi;
use serde_json::json;

use super::clients::Pane;
use super::common::{Outcome, Scratch, bash_calls};
use super::small_model::{call, run_openai, text, tool_texts};

const NOTE: &str = "changed no file";

/// Runs `commands` as the Bash calls of an OpenAI-compatible model (ids
/// `b1`, `b2`, …; then "done"), Bash allowed; the run must succeed. What
/// it printed, and the tool_result of each call as the model got it.
fn run_commands(scratch: &Scratch, commands: &[&str]) -> (Outcome, Vec<String>) {
    let mut replies: Vec<_> = (1..)
        .zip(commands)
        .map(|(n, command)| call(&format!("b{n}"), "Bash", json!({"command": command})))
        .collect();
    replies.push(text("done"));
    let server = FakeOpenAi::start(replies);
    let out = run_openai(scratch, &server, None, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), commands.len(), "{results:?}");
    (out, results)
}

/// `sed -i` matching nothing → the note; `sed -i` that changes → none;
/// `sed` without `-i` and `sort FILE` (they only print) → none.
#[test]
fn sed_in_place_that_matches_nothing_says_so() {
    let scratch = Scratch::new();
    let cfg = scratch.write("app.cfg", "level=info\nname=app\n");
    let (_, results) = run_commands(
        &scratch,
        &[
            "sed -i 's/level=debug/level=trace/' app.cfg",
            "sed -i 's/level=info/level=debug/' app.cfg",
            "sed 's/name=app/name=x/' app.cfg",
            "sort app.cfg",
        ],
    );
    insta::assert_snapshot!("sed_in_place_matched_nothing", results[0]);
    assert_eq!(
        results[0],
        "Note: this command changed no file (app.cfg unchanged)."
    );
    assert!(!results[1].contains(NOTE), "{}", results[1]);
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        "level=debug\nname=app\n"
    );
    assert_eq!(results[2], "level=debug\nname=x");
    assert_eq!(results[3], "level=debug\nname=app");
}

/// A FIFO, a link out of the project and a file over the hash cap among
/// the paths a command names as written (`true || rm …` names them and
/// touches none): the call returns at once and claims nothing; the same
/// command naming a small file claims it unchanged.
#[test]
fn hostile_named_paths_neither_hang_nor_get_a_claim() {
    let scratch = Scratch::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "key\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), scratch.path().join("out")).unwrap();
    let fifo = scratch.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = std::fs::File::create(scratch.path().join("big.log")).unwrap();
    big.set_len(orbit_checkpoint::PROBE_HASH_MAX_BYTES + 1)
        .unwrap();
    scratch.write("small.txt", "x\n");
    let started = std::time::Instant::now();
    let (out, results) = run_commands(
        &scratch,
        &[
            "true || rm pipe",
            "true || rm out/secret",
            "true || rm big.log",
            "true || rm small.txt",
        ],
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    for result in &results[..3] {
        assert!(!result.contains(NOTE), "{result}");
    }
    assert_eq!(
        results[3],
        "Note: this command changed no file (small.txt unchanged)."
    );
    assert!(!out.stdout.contains("key"), "{}", out.stdout);
    assert!(fifo.exists() && scratch.path().join("big.log").exists());
}

/// In the UI, in acceptEdits mode, a `sed -i` rename runs without asking
/// and its change shows as a diff under the Bash line (the same view as
/// Edit's: line numbers, `-` and `+` rows).
#[test]
fn a_sed_rename_in_accept_edits_shows_its_diff() {
    let scratch = Scratch::new();
    let app = scratch.write("app.py", "def old_name():\n    return 1\n\nold_name()\n");
    let server = bash_calls(
        &[(
            "toolu_1",
            json!({"command": "sed -i 's/old_name/new_name/g' app.py"}),
        )],
        "renamed",
    );
    let pane = Pane::start(
        &scratch,
        &server.env(),
        &["--permission-mode", "acceptEdits"],
    );
    pane.submit("rename old_name");
    let screen = pane.wait_for("renamed");
    assert!(screen.contains("+2 -2"), "{screen}");
    for row in [
        "1 - def old_name():",
        "1 + def new_name():",
        "4 - old_name()",
        "4 + new_name()",
    ] {
        assert!(screen.contains(row), "{row} not in:\n{screen}");
    }
    assert_eq!(
        std::fs::read_to_string(&app).unwrap(),
        "def new_name():\n    return 1\n\nnew_name()\n"
    );
    pane.exit();
}
