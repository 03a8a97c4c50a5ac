//! What a new user of the interactive UI tripped over in the first hour
//! (issue 39's smaller list), each checked end to end as `tui.rs` does:
//! the real `orbit` binary in a tmux pane against the fake Anthropic
//! server, keys sent with `send-keys`, the screen (scrollback included)
//! read with `capture-pane`.

use serde_json::json;

use orbit_test_support::{FakeAnthropic, Reply};

use super::clients::Pane;
use super::common::{Scratch, first_user_text};
use super::harness::{assert_contains, local_model_pane, open, write_then_answer};

/// A 13-line Python file.
fn thirteen_lines() -> String {
    let mut text: String = (1..=11).map(|n| format!("x{n} = {n}\n")).collect();
    text.push_str("if __name__ == \"__main__\":\n\tprint(x1)\n");
    text
}

/// Ctrl-O shows a Read's lines with the number apart from the code, and
/// the call's line counts the file's 13 lines (not 14: the empty line
/// after the final newline is the model's, not the person's).
#[test]
fn full_output_of_a_read_keeps_line_numbers_apart_and_counts_lines() {
    let scratch = Scratch::new();
    scratch.write("app.py", &thirteen_lines());
    let path = scratch.path().join("app.py").display().to_string();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_read", "Read", json!({"file_path": path})),
        Reply::text("Read it."),
    ]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("show app.py");
    let screen = pane.wait_for("Read it.");
    assert!(screen.contains("⎿ Read 13 lines"), "{screen}");
    assert!(!screen.contains("14 lines"), "{screen}");
    pane.wait_idle();
    pane.keys(&["C-o"]);
    pane.wait_for("Full tool output on");
    let screen = pane.wait_until("the numbered lines", |_| {
        pane.screen().contains("12  if __name__")
    });
    assert!(
        screen.contains("13      print(x1)") && screen.contains(" 1  x1 = 1"),
        "{screen}"
    );
    assert!(
        !screen.contains("12if") && !screen.contains("\n14"),
        "{screen}"
    );
}

/// A resize while an answer streams (narrower, then wider again) leaves
/// no line of the old live region — the working line, the input box, the
/// status line — in the scrollback: after the turn, each shows once, at
/// the bottom.
#[test]
fn a_resize_mid_stream_leaves_no_old_live_region_in_the_scrollback() {
    use orbit_test_support::anthropic::Turn;
    use std::time::Duration;
    let before: String = (1..=40).map(|n| format!("before {n}\n\n")).collect();
    let chunks: Vec<String> = (1..=30).map(|n| format!("streamed {n}\n\n")).collect();
    let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let slow = Turn::new()
        .text_chunks(&chunks)
        .event_delay(Duration::from_millis(60));
    let (_scratch, _server, pane) = open(vec![Reply::text(before), Reply::turn(slow)], &[]);
    pane.submit("first");
    pane.wait_for("before 40");
    pane.wait_idle();
    pane.submit("second");
    pane.wait_for("streamed 3");
    pane.tmux(&["resize-window", "-t", &pane.name, "-x", "60", "-y", "24"]);
    pane.wait_for("streamed 12");
    pane.tmux(&["resize-window", "-t", &pane.name, "-x", "100", "-y", "30"]);
    pane.wait_for("streamed 30");
    pane.wait_idle();
    std::thread::sleep(Duration::from_millis(300));
    let all = pane.tmux(&["capture-pane", "-p", "-S", "-", "-t", &pane.name]);
    assert!(!all.contains("Working"), "{all}");
    for live in ["ctx ", "Type a message"] {
        assert_eq!(all.matches(live).count(), 1, "{live}: {all}");
    }
    // Every final line is there once: nothing was lost or repeated.
    let lines: Vec<&str> = all.lines().map(str::trim_end).collect();
    let finals = (1..=40)
        .map(|n| format!("before {n}"))
        .chain((1..=30).map(|n| format!("streamed {n}")));
    for line in finals {
        assert_eq!(
            lines.iter().filter(|l| **l == line).count(),
            1,
            "{line}: {all}"
        );
    }
}

/// The status line names the provider with the whole (long) model name
/// at 120 columns, in acceptEdits too, and `/status` lists provider,
/// model and base URL: here an OpenAI-compatible server running the
/// local model's weights.
#[test]
fn status_line_and_status_command_name_the_provider() {
    let scratch = Scratch::new();
    let server = orbit_test_support::FakeOpenAi::start(vec![]);
    let model = "qwen2.5-coder-1.5b-instruct-q4_k_m";
    let pane = Pane::start(&scratch, &server.env(), &["--model", model]);
    pane.tmux(&["resize-window", "-t", &pane.name, "-x", "120", "-y", "30"]);
    let shown = format!("openai · {model} · ");
    pane.keys(&["BTab"]);
    pane.wait_until(
        "acceptEdits with the provider and the whole model name",
        |_| {
            let rows = pane.visible();
            rows.contains("acceptEdits") && rows.contains(&shown)
        },
    );
    pane.submit("/status");
    let screen = pane.wait_for("Base URL:");
    for want in [
        "Provider:    openai".to_string(),
        format!("Model:       {model}"),
        format!("Base URL:    {}", server.base_url()),
        "Mode:        acceptEdits".to_string(),
    ] {
        assert!(screen.contains(&want), "{want}: {screen}");
    }
}

/// `/compact` says what it does while it runs ("Compacting
/// conversation…", not a generic "Working…"), then leaves one collapsed
/// "Conversation compacted" line whose summary Ctrl-O shows.
#[test]
fn compact_shows_its_progress_and_a_summary_ctrl_o_expands() {
    use orbit_test_support::anthropic::Turn;
    use std::time::Duration;
    let summary = Turn::new()
        .text("SUMMARY: the user said hi and got an answer.")
        .event_delay(Duration::from_millis(400));
    let (_scratch, _server, pane) = open(
        vec![
            Reply::text("An answer."),
            Reply::turn(summary),
            Reply::text("After."),
        ],
        &[],
    );
    pane.submit("hi");
    pane.wait_for("An answer.");
    pane.wait_idle();
    pane.submit("/compact");
    pane.wait_until("the compaction's own working line", |_| {
        pane.visible().contains("✻ Compacting conversation… ")
    });
    let screen = pane.wait_for("Conversation compacted");
    assert!(screen.contains("Ctrl-O shows the summary"), "{screen}");
    assert!(!screen.contains("the user said hi"), "collapsed: {screen}");
    assert!(!screen.contains("Working…"), "{screen}");
    pane.wait_idle();
    pane.keys(&["C-o"]);
    let screen = pane.wait_for("the user said hi and got an answer");
    assert_contains(&screen, "Summary of the conversation so far");
}

/// `/init` asks the model to write CLAUDE.md with the Write tool; the
/// usual ask comes; the file exists afterwards.
#[test]
fn init_has_the_model_write_claude_md() {
    let scratch = Scratch::new();
    let file = scratch.path().join("CLAUDE.md");
    let written = "# Project\n\nRun `make test`.\n";
    let server = write_then_answer("toolu_w", &file, written, "Wrote CLAUDE.md.");
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("/init");
    pane.wait_for("1. Yes");
    assert!(!file.exists(), "written before the answer");
    pane.keys(&["1"]);
    pane.wait_for("Wrote CLAUDE.md.");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
    let prompt = first_user_text(&server.bodies()[0]);
    let target = format!("Write tool (file_path: {})", file.display());
    assert!(
        prompt.contains("create a CLAUDE.md") && prompt.contains(&target),
        "{prompt}"
    );
}

/// `/init` answered with text only (as a small local model may do): a
/// line says CLAUDE.md was not written.
#[test]
fn init_answered_without_a_write_says_no_file_was_written() {
    let (scratch, _server, pane) = open(
        vec![Reply::text("Here is a CLAUDE.md:\n\n- build: make")],
        &[],
    );
    pane.submit("/init");
    let screen = pane.wait_for("CLAUDE.md was not written");
    assert!(screen.contains("build: make"), "{screen}");
    assert!(!scratch.path().join("CLAUDE.md").exists());
}

/// A 30-line paste is echoed into the transcript as the placeholder the
/// input box showed; the model gets all 30 lines.
#[test]
fn a_large_paste_is_echoed_collapsed_and_sent_whole() {
    let (_scratch, server, pane) = open(vec![Reply::text("Got the log.")], &[]);
    let pasted: String = (1..=30).map(|n| format!("log line {n:02}\n")).collect();
    pane.tmux(&["set-buffer", "-b", "first-hour", &pasted]);
    pane.tmux(&["paste-buffer", "-p", "-b", "first-hour", "-t", &pane.name]);
    pane.wait_for("[Pasted text #1 +30 lines]");
    pane.submit(" what failed?");
    let screen = pane.wait_for("Got the log.");
    assert_contains(&screen, "> [Pasted text #1 +30 lines] what failed?");
    assert!(!screen.contains("log line 17"), "echoed whole: {screen}");
    let prompt = first_user_text(&server.bodies()[0]);
    assert!(
        (1..=30).all(|n| prompt.contains(&format!("log line {n:02}")))
            && prompt.ends_with("what failed?"),
        "{prompt}"
    );
}

/// On the local model the status line says `local · MODEL` and `/status`
/// shows the warm llama-server the session uses (kept 2 s here).
#[test]
fn status_on_the_local_model_shows_the_warm_server() {
    let scratch = Scratch::new();
    let env = [("ORBIT_LOCAL_KEEP_ALIVE".to_string(), "2".to_string())];
    let pane = local_model_pane(&scratch, &env);
    let model = orbit_local::MODEL_NAME;
    pane.wait_until("local · MODEL in the status line", |_| {
        pane.visible().contains(&format!("local · {model} · "))
    });
    pane.submit("/status");
    let screen = pane.wait_for("Warm server:");
    let paths = orbit_local::LocalPaths::in_data_dir(&scratch.home().join(".orbit"));
    let record = orbit_local::server::warm_server(&paths).expect("a warm server");
    for want in [
        "Provider:    local".to_string(),
        format!("Model:       {model}"),
        format!("Base URL:    http://127.0.0.1:{}", record.port),
        format!(
            "Warm server: pid {} · in use; stops 2 s after the runs using it end",
            record.pid
        ),
    ] {
        assert!(screen.contains(&want), "{want}: {screen}");
    }
}

/// A resize while the live region is still near the top of the screen:
/// the terminal's reflow pushes the rows a narrower width adds off the
/// top, the region's first ones included; the screen is then cleared with
/// the terminal's history and orbit's lines printed again, once each.
#[test]
fn a_resize_with_the_live_region_near_the_top_leaves_no_old_region() {
    let (_scratch, _server, pane) = open(vec![Reply::text("Answered.")], &[]);
    pane.tmux(&["resize-window", "-t", &pane.name, "-x", "70", "-y", "12"]);
    pane.wait_until("a 70-column screen", |_| {
        pane.visible().lines().all(|l| l.chars().count() <= 70)
    });
    pane.submit("first");
    pane.wait_for("Answered.");
    pane.wait_idle();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let all = pane.tmux(&["capture-pane", "-p", "-S", "-", "-t", &pane.name]);
    for once in [
        "ctx ",
        "Type a message",
        "orbit 0.1.0",
        "> first",
        "Answered.",
    ] {
        assert_eq!(all.matches(once).count(), 1, "{once}: {all}");
    }
}
