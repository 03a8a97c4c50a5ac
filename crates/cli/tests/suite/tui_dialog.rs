//! The permission dialog end to end (issue 39), as `tui.rs` tests the UI:
//! the real `orbit` binary in a tmux pane against the fake Anthropic
//! server, keys sent with `send-keys`, the screen (scrollback included)
//! read with `capture-pane`, what the model was told read from the
//! requests the server recorded.
//!
//! Checked: a rule saved with "2" lives in the user's data directory and
//! applies after `/clear` and a restart with no trust prompt; Bash,
//! Edit/Write and WebFetch asks have the same three rows and keys (2 greyed
//! when no rule can cover the call); a "no" gives the model Claude Code's
//! interactive reject text (with the reason typed); Esc denies and ends the
//! turn.

use serde_json::json;

use orbit_test_support::{FakeAnthropic, Reply};

use super::clients::Pane;
use super::common::{Scratch, tool_results_text};

/// Claude Code's interactive reject text (no reason given).
const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// The start of Claude Code's reject text with the person's reason.
const REJECTED_BECAUSE: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n";

/// The dialog's third row, the same in every ask.
const NO_ROW: &str = "3. No, and tell the model what to do differently (esc)";

/// Lines of `screen` after the last line containing `marker`.
fn after<'a>(screen: &'a str, marker: &str) -> &'a str {
    screen.rfind(marker).map_or("", |at| &screen[at..])
}

/// The rows the ask `title` showed: its two header lines and three options.
fn dialog_rows(screen: &str, title: &str) -> String {
    after(screen, title)
        .lines()
        .take(5)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Answering "2" saves `Bash(touch:*)` outside the project; after `/clear`
/// and after a restart the same kind of command runs without a dialog,
/// and nothing asks to trust the folder.
#[test]
fn a_rule_saved_with_2_applies_after_clear_and_a_restart_without_trust() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch one.txt"})),
        Reply::text("Made one."),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "touch two.txt"})),
        Reply::text("Made two."),
    ]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("make one");
    let screen = pane.wait_for("Allow Bash(touch one.txt)?");
    assert!(
        screen.contains("2. Yes, and don't ask again for Bash(touch:*)"),
        "{screen}"
    );
    pane.keys(&["2"]);
    let screen = pane.wait_for("Made one.");
    assert!(screen.contains("Always allowed: Bash(touch:*)"), "{screen}");
    assert!(scratch.path().join("one.txt").is_file());
    // Kept in the user's data directory, keyed by the project; the
    // project gets no settings file a repository could also ship.
    let store = scratch.home().join(".orbit/project-permissions");
    let saved: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].contains("Bash(touch:*)"), "{saved:?}");
    assert!(!scratch.path().join(".orbit/settings.local.json").exists());

    pane.wait_idle();
    pane.submit("/clear");
    pane.submit("make two");
    let screen = pane.wait_for("Made two.");
    assert!(scratch.path().join("two.txt").is_file());
    let after_clear = after(&screen, "/clear");
    for never in [
        "Allow Bash(touch two.txt)?",
        "Trust this folder?",
        "not a trusted folder",
    ] {
        assert!(!after_clear.contains(never), "{never}:\n{screen}");
    }
    pane.exit();
    drop(pane);

    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_3", "Bash", json!({"command": "touch three.txt"})),
        Reply::text("Made three."),
    ]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("make three");
    let screen = pane.wait_for("Made three.");
    assert!(scratch.path().join("three.txt").is_file());
    for never in [
        "Allow Bash(touch three.txt)?",
        "Trust this folder?",
        "not a trusted folder",
    ] {
        assert!(!screen.contains(never), "{never}:\n{screen}");
    }
}

/// Bash, Write and WebFetch asks show the same rows with the same keys
/// (the rule each would save in row 2); a call no rule can cover shows
/// row 2 greyed and "2" does nothing. A "no" with a reason gives the model
/// Claude Code's text with the reason.
#[test]
fn every_kind_of_ask_uses_the_same_keys_and_a_no_tells_the_model_why() {
    let scratch = Scratch::new();
    let file = scratch.path().join("notes.txt");
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_bash", "Bash", json!({"command": "touch a.txt"})),
        Reply::tool_use(
            "toolu_write",
            "Write",
            json!({"file_path": file.display().to_string(), "content": "hi\n"}),
        ),
        Reply::tool_use(
            "toolu_fetch",
            "WebFetch",
            json!({"url": "https://docs.example.org/page", "prompt": "summarize"}),
        ),
        Reply::tool_use(
            "toolu_env",
            "Bash",
            json!({"command": "GREETING=hi touch b.txt"}),
        ),
        Reply::text("All asked."),
    ]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("do four things");

    let title = "Allow Bash(touch a.txt)?";
    let rows = dialog_rows(&pane.wait_for(title), title);
    assert!(rows.contains("1. Yes"), "{rows}");
    assert!(
        rows.contains("2. Yes, and don't ask again for Bash(touch:*)"),
        "{rows}"
    );
    assert!(rows.contains(NO_ROW), "{rows}");
    pane.keys(&["1"]);

    let title = "Allow Write(";
    let rows = dialog_rows(&pane.wait_for(title), title);
    assert!(rows.contains("1. Yes"), "{rows}");
    let edit_rule = format!("2. Yes, and don't ask again for Edit(/{})", file.display());
    assert!(rows.contains(&edit_rule), "{rows}");
    assert!(rows.contains(NO_ROW), "{rows}");
    pane.keys(&["2"]);

    let title = "Allow WebFetch(";
    let rows = dialog_rows(&pane.wait_for(title), title);
    assert!(rows.contains("1. Yes"), "{rows}");
    assert!(
        rows.contains("2. Yes, and don't ask again for WebFetch(domain:docs.example.org)"),
        "{rows}"
    );
    assert!(rows.contains(NO_ROW), "{rows}");
    pane.keys(&["3"]);
    pane.wait_for("Reason:");
    pane.tmux(&["send-keys", "-t", &pane.name, "-l", "no network today"]);
    pane.keys(&["Enter"]);

    let title = "Allow Bash(GREETING=hi touch b.txt)?";
    let rows = dialog_rows(&pane.wait_for(title), title);
    assert!(
        rows.contains("2. Yes, and don't ask again (no rule can cover this call)"),
        "{rows}"
    );
    assert!(rows.contains(NO_ROW), "{rows}");
    // "2" cannot be chosen here; "3" is still No.
    pane.keys(&["2"]);
    pane.keys(&["3"]);
    pane.wait_for("Reason:");
    pane.keys(&["Enter"]);

    let screen = pane.wait_for("All asked.");
    assert!(
        screen.contains("Denied WebFetch: no network today"),
        "{screen}"
    );
    assert!(scratch.path().join("a.txt").is_file());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi\n");
    assert!(!scratch.path().join("b.txt").exists());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 5);
    let told = tool_results_text(&bodies[3]);
    assert!(
        told.contains(&format!("{REJECTED_BECAUSE}no network today")),
        "the model is told the reason: {told}"
    );
    let told = tool_results_text(&bodies[4]);
    assert!(told.contains(REJECTED), "{told}");
    for body in &bodies[3..] {
        let told = tool_results_text(body);
        assert!(!told.contains("requested permissions"), "{told}");
    }
}

/// Esc in the dialog is a "no" that also ends the turn: the model is not
/// asked again until the next prompt, and then sees Claude Code's reject
/// text for the call.
#[test]
fn esc_in_the_dialog_denies_and_ends_the_turn() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_esc", "Bash", json!({"command": "touch esc.txt"})),
        Reply::text("Next prompt answered."),
    ]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("make esc.txt");
    pane.wait_for("Allow Bash(touch esc.txt)?");
    pane.keys(&["Escape"]);
    pane.wait_for("Denied Bash and stopped");
    pane.wait_idle();
    // The turn ended: the denial was not sent back for another answer.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(server.bodies().len(), 1);
    assert!(!scratch.path().join("esc.txt").exists());
    pane.submit("what happened?");
    pane.wait_for("Next prompt answered.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let told = tool_results_text(&bodies[1]);
    assert!(told.contains(REJECTED), "{told}");
    assert!(!told.contains("requested permissions"), "{told}");
}
