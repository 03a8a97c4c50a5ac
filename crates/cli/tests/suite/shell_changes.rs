//! What a shell command changed (issues 38 and 39), through the binary:
//! a `sed -i` whose pattern matches nothing gets one note line in the
//! tool_result the model receives (a documented improvement, the text
//! snapshotted); one that changes its file gets none; a command that only
//! prints claims nothing; a FIFO, a link out of the project and a large
//! file among the named paths neither hang the call nor get a claim; in
//! the UI a `sed -i` rename in acceptEdits shows its diff.

use orbit_test_support::{FakeAnthropic, FakeOpenAi, Reply};
use serde_json::json;

use super::clients::Pane;
use super::common::Scratch;
use super::small_model::{call, run_openai, text, tool_texts};

const NOTE: &str = "changed no file";

/// `sed -i` matching nothing → the note; `sed -i` that changes → none;
/// `sed` without `-i` and `sort FILE` (they only print) → none.
#[test]
fn sed_in_place_that_matches_nothing_says_so() {
    let scratch = Scratch::new();
    let cfg = scratch.write("app.cfg", "level=info\nname=app\n");
    let bash = |id: &str, command: &str| call(id, "Bash", json!({"command": command}));
    let server = FakeOpenAi::start(vec![
        bash("b1", "sed -i 's/level=debug/level=trace/' app.cfg"),
        bash("b2", "sed -i 's/level=info/level=debug/' app.cfg"),
        bash("b3", "sed 's/name=app/name=x/' app.cfg"),
        bash("b4", "sort app.cfg"),
        text("done"),
    ]);
    let out = run_openai(&scratch, &server, None, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 4, "{results:?}");
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
    let bash = |id: &str, command: &str| call(id, "Bash", json!({"command": command}));
    let server = FakeOpenAi::start(vec![
        bash("b1", "true || rm pipe"),
        bash("b2", "true || rm out/secret"),
        bash("b3", "true || rm big.log"),
        bash("b4", "true || rm small.txt"),
        text("done"),
    ]);
    let started = std::time::Instant::now();
    let out = run_openai(&scratch, &server, None, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 4, "{results:?}");
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
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": "sed -i 's/old_name/new_name/g' app.py"}),
        ),
        Reply::text("renamed"),
    ]);
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
