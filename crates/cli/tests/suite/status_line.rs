//! The `statusLine` setting in the interactive UI (tmux, the real binary
//! against the fake server): the command gets Claude Code's JSON on stdin
//! and its output replaces the built-in status line; a command that hangs
//! or fails leaves the UI responsive (a typed key shows within a second,
//! a prompt is answered); a project's statusLine waits for folder trust.

use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::clients::Pane;
use super::common::Scratch;

/// Longest a typed key may take to show while the statusLine command hangs.
const KEY_ECHO_MAX: Duration = Duration::from_secs(1);

/// A scratch project whose user settings set `statusLine` to `script`
/// (written as an executable file).
fn with_status_line(script: &str) -> Scratch {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new();
    let dir = scratch.home().join(".orbit");
    std::fs::create_dir_all(&dir).unwrap();
    let path = scratch.home().join("status.sh");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let settings = json!({"statusLine": {"type": "command", "command": path, "padding": 1}});
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    scratch
}

#[test]
fn the_command_s_output_replaces_the_status_line() {
    let scratch = with_status_line(
        "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nprint('SL[' + d['model']['id'] + '|' + d['hook_event_name'] + '|' + str(d['context_window']['context_window_size']) + ']')\n",
    );
    let server = FakeAnthropic::start(vec![Reply::text("Answered.")]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    let screen = pane.wait_for("SL[");
    assert!(screen.contains("|Status|"), "{screen}");
    pane.submit("hello");
    pane.wait_for("Answered.");
    pane.exit();
}

#[test]
fn a_hanging_or_failing_command_leaves_the_ui_responsive() {
    for (name, script) in [
        ("hang", "#!/bin/sh\nsleep 30\necho never\n"),
        ("fail", "#!/bin/sh\necho broken >&2\nexit 3\n"),
    ] {
        let scratch = with_status_line(script);
        let server = FakeAnthropic::start(vec![Reply::text("Answered.")]);
        let pane = Pane::start(&scratch, &server.env(), &[]);
        // The built-in line stays.
        pane.wait_for("ctx ");
        std::thread::sleep(Duration::from_millis(400));
        let started = Instant::now();
        pane.tmux(&["send-keys", "-t", &pane.name, "-l", "zqzq"]);
        pane.wait_for("zqzq");
        let echo = started.elapsed();
        assert!(echo < KEY_ECHO_MAX, "{name}: key shown after {echo:?}");
        pane.keys(&["Enter"]);
        let screen = pane.wait_for("Answered.");
        assert!(!screen.contains("never"), "{name}: {screen}");
        pane.exit();
    }
}

#[test]
fn a_project_status_line_waits_for_trust() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join(".claude")).unwrap();
    let settings = json!({"statusLine": {"type": "command",
        "command": "touch sl-ran; echo PROJECT-SL"}});
    scratch.write(".claude/settings.json", &settings.to_string());
    let server = FakeAnthropic::start(vec![Reply::text("Answered.")]);
    let pane = Pane::start(&scratch, &server.env(), &["go"]);
    let screen = pane.wait_for("Trust this folder?");
    assert!(screen.contains("statusLine"), "{screen}");
    pane.keys(&["Down", "Enter"]);
    pane.wait_for("Answered.");
    std::thread::sleep(Duration::from_millis(600));
    assert!(!scratch.path().join("sl-ran").exists());
    assert!(!pane.screen().contains("PROJECT-SL"));
    pane.exit();
}
