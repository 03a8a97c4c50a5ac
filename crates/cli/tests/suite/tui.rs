//! The interactive UI end to end: the real `orbit` binary in a tmux pane
//! (100×30) against the fake Anthropic server — keys typed with
//! `send-keys`, the screen read with `capture-pane` (scrollback included),
//! polled with a bounded deadline. Each test gets its own tmux server
//! socket and session name; the session is killed by name when the test
//! ends (the server then exits by itself). Without tmux these tests fail.

use std::process::Command;
use std::time::{Duration, Instant};

use orbit_test_support::process::live_members_of_group;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::clients::{Pane, SCREEN_TIMEOUT};
use super::common::{Scratch, first_user_text, tool_results_text};
use super::harness::{assert_contains, open};

/// Longest an Esc may take to stop a running `sleep 30`.
const ESC_STOP_MAX: Duration = Duration::from_secs(5);

#[test]
fn two_turns_then_exit_names_the_session_to_resume() {
    // The first prompt is the positional argument (`orbit "hello one"`).
    let (scratch, server, pane) = open(
        vec![
            Reply::text("# Plan\n\nFirst **answer** with `code`.\n\n```rust\nfn main() {}\n```"),
            Reply::text("Second answer."),
        ],
        &["hello one"],
    );
    pane.wait_for("First answer with code.");
    pane.submit("hello two");
    let screen = pane.wait_for("Second answer.");
    assert_contains(&screen, "> hello one");
    assert_contains(&screen, "> hello two");
    assert!(
        screen.contains("fn main() {}") && !screen.contains("```"),
        "{screen}"
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let history = bodies[1]["messages"].to_string();
    assert!(
        history.contains("hello one") && history.contains("hello two"),
        "{history}"
    );
    let id = pane.exit();
    let transcript = std::fs::read_dir(scratch.home().join(".orbit/projects"))
        .unwrap()
        .flatten()
        .any(|d| d.path().join(format!("{id}.jsonl")).is_file());
    assert!(transcript, "no transcript for {id}");
}

#[test]
fn permission_dialog_allow_then_deny_with_a_reason() {
    let (scratch, server, pane) = open(
        vec![
            Reply::tool_use("toolu_a", "Bash", json!({"command": "touch allowed.txt"})),
            Reply::tool_use("toolu_b", "Bash", json!({"command": "touch denied.txt"})),
            Reply::text("All done."),
        ],
        &[],
    );
    pane.submit("make two files");
    pane.wait_for("Allow Bash(touch allowed.txt)?");
    pane.keys(&["1"]);
    pane.wait_for("Allow Bash(touch denied.txt)?");
    pane.keys(&["3"]);
    pane.wait_for("Reason:");
    pane.submit("not that one");
    let screen = pane.wait_for("All done.");
    assert!(screen.contains("Denied Bash: not that one"), "{screen}");
    assert!(scratch.path().join("allowed.txt").is_file());
    assert!(!scratch.path().join("denied.txt").exists());
    let bodies = server.bodies();
    // The model is told the reason.
    assert_contains(&tool_results_text(&bodies[2]), "not that one");
}

/// A custom command's `!`cmd`` in the UI goes through the same gate as a
/// model's call: the person is asked, and the output is in the prompt.
#[test]
fn a_custom_commands_shell_pattern_asks_then_inlines_its_output() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join(".claude/commands")).unwrap();
    scratch.write(
        ".claude/commands/mk.md",
        "Made: !`touch from-command.txt && echo made-$0`\n",
    );
    let server = FakeAnthropic::start(vec![Reply::text("Seen it.")]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("/mk it");
    pane.wait_for("Allow Bash(");
    pane.keys(&["1"]);
    pane.wait_for("Seen it.");
    assert!(scratch.path().join("from-command.txt").is_file());
    let prompt = first_user_text(&server.bodies()[0]);
    assert!(prompt.contains("Made: made-it"), "{prompt}");
}

#[test]
fn esc_stops_a_running_bash_call_within_seconds() {
    let (scratch, server, pane) = open(
        vec![
            Reply::tool_use(
                "toolu_sleep",
                "Bash",
                json!({"command": "echo $$ > started.pid; sleep 30", "timeout": 60000}),
            ),
            Reply::text("must not be requested"),
        ],
        &["--permission-mode", "bypassPermissions"],
    );
    pane.submit("sleep please");
    pane.wait_for("running…");
    let pid_file = scratch.path().join("started.pid");
    let started = Instant::now();
    while !pid_file.is_file()
        || std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .is_empty()
    {
        assert!(
            started.elapsed() < SCREEN_TIMEOUT,
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pgid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let sent = Instant::now();
    pane.keys(&["Escape"]);
    pane.wait_for("⎿ Interrupted");
    while !live_members_of_group(pgid).is_empty() {
        assert!(
            sent.elapsed() < ESC_STOP_MAX,
            "sleep 30 still running after Esc"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(sent.elapsed() < ESC_STOP_MAX, "took {:?}", sent.elapsed());
    assert_eq!(server.request_count(), 1, "no request after the interrupt");
    // The UI is still usable.
    pane.submit("/cost");
    pane.wait_for("Session cost:");
}

#[test]
fn compact_command_summarizes_the_conversation() {
    let replies = [
        "An answer.",
        "SUMMARY: the user said hi.",
        "After compaction.",
    ];
    let (_scratch, server, pane) = open(replies.map(Reply::text).to_vec(), &[]);
    pane.submit("hi");
    pane.wait_for("An answer.");
    pane.submit("/compact keep it short");
    pane.wait_for("Conversation compacted");
    pane.submit("next");
    pane.wait_for("After compaction.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert!(
        bodies[1].to_string().contains("keep it short"),
        "{}",
        bodies[1]
    );
    let after = bodies[2]["messages"].to_string();
    assert!(after.contains("the user said hi"), "{after}");
}

#[test]
fn resume_picker_continues_an_earlier_session() {
    let (scratch, server, first) = open(
        vec![Reply::text("Remembered."), Reply::text("Back again.")],
        &[],
    );
    first.submit("the password is swordfish");
    first.wait_for("Remembered.");
    let id = first.exit();
    drop(first);

    let second = Pane::start(&scratch, &server.env(), &[]);
    second.submit("/resume");
    second.wait_for("Resume a session");
    second.wait_for(&id[..8]);
    second.keys(&["Enter"]);
    second.wait_for(&format!("Resumed session {id}"));
    second.submit("what was it?");
    second.wait_for("Back again.");
    let bodies = server.bodies();
    let history = bodies[1]["messages"].to_string();
    assert!(history.contains("swordfish"), "{history}");
    assert_eq!(second.exit(), id);
}

#[test]
fn at_mention_attaches_the_file_unless_a_deny_rule_covers_it() {
    let (scratch, server, pane) = open(
        vec![Reply::text("Read it.")],
        &["--disallowedTools", "Read(./secret.txt)"],
    );
    scratch.write("notes.txt", "alpha\nsecret-content-42\n");
    scratch.write("secret.txt", "do-not-send-this\n");
    pane.submit("summarize @notes.txt and @secret.txt please");
    let screen = pane.wait_for("Read it.");
    assert!(screen.contains("Attached @notes.txt"), "{screen}");
    assert!(screen.contains("Not attached @secret.txt"), "{screen}");
    let text = first_user_text(&server.bodies()[0]);
    assert!(
        text.starts_with("summarize @notes.txt and @secret.txt please"),
        "{text}"
    );
    assert!(text.contains("2→secret-content-42"), "{text}");
    assert!(!text.contains("do-not-send-this"), "{text}");
}

#[test]
fn resize_to_60_columns_keeps_the_ui_within_the_width() {
    let long = "word ".repeat(40);
    let (_scratch, _server, pane) =
        open(vec![Reply::text("Before."), Reply::text(long.trim())], &[]);
    pane.submit("first");
    pane.wait_for("Before.");
    pane.tmux(&["resize-window", "-t", &pane.name, "-x", "60", "-y", "24"]);
    pane.wait_until("a 60-column screen", |_| {
        pane.visible().lines().all(|l| l.chars().count() <= 60)
    });
    pane.submit("second");
    pane.wait_for("> second");
    let visible = pane.wait_until("the wrapped answer", |_| {
        pane.visible().matches("word").count() >= 40
    });
    let _ = visible;
    let rows = pane.visible();
    assert!(rows.lines().all(|l| l.chars().count() <= 60), "{rows}");
    assert!(rows.contains("ctx "), "the status line is shown: {rows}");
}

#[test]
fn shell_note_custom_command_modes_and_double_ctrl_c() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join(".claude/commands")).unwrap();
    scratch.write(".claude/commands/greet.md", "Say hello to $ARGUMENTS.");
    let server = FakeAnthropic::start(vec![Reply::text("Custom ran.")]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    let typed = [
        ("!echo from-the-shell", "from-the-shell"),
        ("#always use tabs", "Noted in CLAUDE.md"),
        ("/nosuch", "Unknown command /nosuch"),
        ("/help", "/greet"),
        ("/greet Bob", "Custom ran."),
    ];
    for (input, shown) in typed {
        pane.submit(input);
        pane.wait_for(shown);
        pane.wait_idle();
    }
    let memory = std::fs::read_to_string(scratch.path().join("CLAUDE.md")).unwrap();
    assert_eq!(memory, "- always use tabs\n");
    let prompt = first_user_text(&server.bodies()[0]);
    assert!(
        prompt.contains("<bash-input>echo from-the-shell</bash-input>")
            && prompt.contains("<bash-stdout>from-the-shell</bash-stdout>")
            && prompt.contains("Say hello to Bob."),
        "{prompt}"
    );
    for mode in ["acceptEdits", "plan", "default ("] {
        pane.keys(&["BTab"]);
        pane.wait_until(mode, |_| pane.visible().contains(mode));
    }
    pane.keys(&["C-c"]);
    pane.wait_for("Press Ctrl-C again to exit");
    pane.keys(&["C-c"]);
    pane.wait_for("[orbit exited 0]");
}

#[test]
fn no_terminal_gives_one_clear_error() {
    let scratch = Scratch::new();
    let out = super::common::run(super::common::orbit_with_env(&scratch, &[]));
    out.assert_error_containing("interactive mode needs a terminal");
}

/// An untrusted folder whose settings carry a hook: the UI asks once;
/// yes trusts it (the hook then runs, the trust store lists the folder,
/// the next start does not ask), no continues without the hook.
#[test]
fn untrusted_folder_is_asked_about_once() {
    for yes in [true, false] {
        let scratch = Scratch::new();
        std::fs::create_dir_all(scratch.path().join(".orbit")).unwrap();
        let hook = json!({"hooks": {"UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "touch hook-ran"}]}
        ]}});
        scratch.write(".orbit/settings.json", &hook.to_string());
        let server = FakeAnthropic::start(vec![Reply::text("Answered."), Reply::text("Again.")]);
        let pane = Pane::start(&scratch, &server.env(), &["first prompt"]);
        let screen = pane.wait_for("Trust this folder?");
        assert!(
            screen.contains("enables: hooks") && screen.contains("Yes, trust"),
            "{screen}"
        );
        // The first prompt waits for the answer.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(server.request_count(), 0, "{screen}");
        pane.keys(if yes { &["Enter"] } else { &["Down", "Enter"] });
        pane.wait_for(if yes { "now apply" } else { "Not trusted" });
        pane.wait_for("Answered.");
        let store = scratch.home().join(".orbit/trusted-folders.json");
        assert_eq!(scratch.path().join("hook-ran").is_file(), yes, "yes={yes}");
        let stored = std::fs::read_to_string(&store).unwrap_or_default();
        assert_eq!(
            stored.contains(&*scratch.path().to_string_lossy()),
            yes,
            "{stored}"
        );
        pane.exit();
        drop(pane);
        // Next start: asked again only when the answer was no.
        let again = Pane::start(&scratch, &server.env(), &[]);
        let screen = again.wait_for("ctx ");
        std::thread::sleep(Duration::from_millis(300));
        let screen = format!("{screen}{}", again.screen());
        assert_eq!(screen.contains("Trust this folder?"), !yes, "{screen}");
    }
}

#[test]
fn memory_lists_the_loaded_files_and_opens_one_in_the_editor() {
    let scratch = Scratch::new();
    scratch.write("CLAUDE.md", "project memory\n");
    scratch.write_home(".claude/CLAUDE.md", "user memory\n");
    let editor = scratch.home().join("editor.sh");
    std::fs::write(&editor, "#!/bin/sh\necho EDITED-BY-31 >> \"$1\"\n").unwrap();
    let made = Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .unwrap();
    assert!(made.success());
    let server = FakeAnthropic::start(vec![]);
    let mut env = server.env();
    env.push(("EDITOR".to_string(), editor.display().to_string()));
    let pane = Pane::start(&scratch, &env, &[]);
    pane.submit("/memory");
    pane.wait_for("1. ~/.claude/CLAUDE.md");
    pane.wait_for("2. CLAUDE.md");
    pane.submit("/memory 2");
    pane.wait_for("Edited ");
    let text = std::fs::read_to_string(scratch.path().join("CLAUDE.md")).unwrap();
    assert_eq!(text, "project memory\nEDITED-BY-31\n");
    pane.submit("/memory 9");
    pane.wait_for("No memory file 9");
    pane.exit();
}
