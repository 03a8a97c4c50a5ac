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
use super::common::{Scratch, bash_calls, tool_results_text};
use super::harness::{assert_contains, write_call};

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

/// Waits for the ask `title`; its rows must be "1. Yes", `second` and
/// [`NO_ROW`].
fn assert_ask_rows(pane: &Pane, title: &str, second: &str) {
    let rows = dialog_rows(&pane.wait_for(title), title);
    for row in ["1. Yes", second, NO_ROW] {
        assert_contains(&rows, row);
    }
}

/// None of what a call that needs no ask could still show — its own ask,
/// a trust prompt — is in `screen`.
fn assert_not_asked(screen: &str, call: &str) {
    for never in [
        format!("Allow {call}?").as_str(),
        "Trust this folder?",
        "not a trusted folder",
    ] {
        assert!(!screen.contains(never), "{never}:\n{screen}");
    }
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
    assert_contains(&screen, "2. Yes, and don't ask again for Bash(touch:*)");
    pane.keys(&["2"]);
    let screen = pane.wait_for("Made one.");
    assert_contains(&screen, "Always allowed: Bash(touch:*)");
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
    assert_not_asked(after(&screen, "/clear"), "Bash(touch two.txt)");
    pane.exit();
    drop(pane);

    let server = bash_calls(
        &[("toolu_3", json!({"command": "touch three.txt"}))],
        "Made three.",
    );
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("make three");
    let screen = pane.wait_for("Made three.");
    assert!(scratch.path().join("three.txt").is_file());
    assert_not_asked(&screen, "Bash(touch three.txt)");
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
        write_call("toolu_write", &file, "hi\n"),
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

    let edit_rule = format!("2. Yes, and don't ask again for Edit(/{})", file.display());
    // (the ask's title, its row 2, the keys pressed in turn, the reason
    // typed after a "no"). At the last ask "2" cannot be chosen; "3" is
    // still No.
    let asks: [(&str, &str, &[&str], Option<&str>); 4] = [
        (
            "Allow Bash(touch a.txt)?",
            "2. Yes, and don't ask again for Bash(touch:*)",
            &["1"],
            None,
        ),
        ("Allow Write(", &edit_rule, &["2"], None),
        (
            "Allow WebFetch(",
            "2. Yes, and don't ask again for WebFetch(domain:docs.example.org)",
            &["3"],
            Some("no network today"),
        ),
        (
            "Allow Bash(GREETING=hi touch b.txt)?",
            "2. Yes, and don't ask again (no rule can cover this call)",
            &["2", "3"],
            Some(""),
        ),
    ];
    for (title, second, keys, reason) in asks {
        assert_ask_rows(&pane, title, second);
        for key in keys {
            pane.keys(&[*key]);
        }
        if let Some(reason) = reason {
            pane.wait_for("Reason:");
            match reason {
                "" => pane.keys(&["Enter"]),
                typed => pane.submit(typed),
            }
        }
    }

    let screen = pane.wait_for("All asked.");
    assert_contains(&screen, "Denied WebFetch: no network today");
    assert!(scratch.path().join("a.txt").is_file());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi\n");
    assert!(!scratch.path().join("b.txt").exists());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 5);
    // The model is told the reason.
    let told = tool_results_text(&bodies[3]);
    assert_contains(&told, &format!("{REJECTED_BECAUSE}no network today"));
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
    let server = bash_calls(
        &[("toolu_esc", json!({"command": "touch esc.txt"}))],
        "Next prompt answered.",
    );
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
