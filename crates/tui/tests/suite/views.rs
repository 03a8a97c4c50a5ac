//! The main views as a person sees them: events go into a [`Screen`], it is
//! drawn into a `TestBackend` terminal with the same inline viewport the
//! real terminal gets (scrollback insertions included), and the whole
//! screen's text is snapshotted — at 80×24 and at 60 columns.

use orbit_composer::ComposerConfig;
use orbit_engine::ApprovalRequest;
use orbit_permissions::PermissionMode;
use orbit_protocol::events::{TodoItem, TodoStatus};
use orbit_protocol::{ContentBlock, EngineEvent, StreamEvent, ToolResultBlock, ToolUseBlock};
use orbit_tui::{LIVE_ROWS, Screen, StatusInfo, Theme};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::json;

fn status() -> StatusInfo {
    StatusInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        cwd: "/home/dev/projects/orbit".into(),
        mode: PermissionMode::Default,
        context_tokens: 0,
        context_window: 200_000,
        cost_usd: 0.0,
    }
}

fn terminal(width: u16, height: u16) -> Terminal<TestBackend> {
    Terminal::with_options(
        TestBackend::new(width, height),
        TerminalOptions {
            viewport: Viewport::Inline(LIVE_ROWS),
        },
    )
    .unwrap()
}

/// The screen's text, one row per line, trailing blanks cut.
fn text(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            redact_elapsed(row.trim_end())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `Working… 3s` → `Working… Ns` (the live counter is wall time).
fn redact_elapsed(row: &str) -> String {
    match row.split_once("Working… ") {
        Some((head, tail)) => {
            let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{head}Working… N{rest}")
        }
        None => row.to_string(),
    }
}

/// A screen set up by `setup`, drawn once on a `width`×`height` terminal.
fn drawn(
    color: bool,
    setup: fn(&mut Screen),
    width: u16,
    height: u16,
) -> (Screen, Terminal<TestBackend>) {
    let mut screen = Screen::new(status(), Theme::new(color), ComposerConfig::default());
    setup(&mut screen);
    let mut term = terminal(width, height);
    screen.draw(&mut term).unwrap();
    (screen, term)
}

fn delta(text: &str) -> EngineEvent {
    EngineEvent::Stream(StreamEvent::TextDelta {
        index: 0,
        text: text.into(),
    })
}

fn tool_use(id: &str, name: &str, input: serde_json::Value) -> Vec<EngineEvent> {
    vec![
        EngineEvent::Stream(StreamEvent::ContentBlockComplete {
            index: 1,
            block: ContentBlock::ToolUse(ToolUseBlock {
                id: id.into(),
                name: name.into(),
                input,
            }),
            invalid_input: None,
        }),
        EngineEvent::ToolStarted {
            tool_use_id: id.into(),
            name: name.into(),
        },
    ]
}

fn result(id: &str, text: &str, is_error: bool) -> EngineEvent {
    EngineEvent::ToolResult {
        result: ToolResultBlock::text(id, text, is_error),
        detail: None,
    }
}

/// A streamed answer with markdown, cut mid-line (the tail is live).
fn streaming(screen: &mut Screen) {
    screen.user_prompt("explain the build");
    screen.set_busy();
    for piece in [
        "## Build\n\nRun the **release** build with `cargo build`",
        " --release:\n\n- fast\n- small [docs](https://doc.rust-lang.org)\n\n```rust\n",
        "fn main() {\n    let n = 42; // answer\n    println!(\"{n}\");\n}\n```\n",
        "Then run the tests; they take a min",
    ] {
        screen.on_event(&delta(piece));
    }
}

/// A tool call the model sent and the engine started; with a result
/// (text, is_error) when it finished.
fn call(
    screen: &mut Screen,
    id: &str,
    name: &str,
    input: serde_json::Value,
    done: Option<(&str, bool)>,
) {
    for event in tool_use(id, name, input) {
        screen.on_event(&event);
    }
    if let Some((text, is_error)) = done {
        screen.on_event(&result(id, text, is_error));
    }
}

/// Edit with its diff, a Bash call with output, one still running.
fn tools(screen: &mut Screen) {
    screen.user_prompt("fix the greeting");
    screen.set_busy();
    let edit = json!({
        "file_path": "src/main.rs",
        "old_string": "fn main() {\n    println!(\"helo\");\n}",
        "new_string": "fn main() {\n    println!(\"hello\");\n    println!(\"bye\");\n}",
    });
    call(
        screen,
        "t1",
        "Edit",
        edit,
        Some(("The file src/main.rs has been updated.", false)),
    );
    let output = "running 3 tests\ntest a ... ok\ntest b ... ok";
    call(
        screen,
        "t2",
        "Bash",
        json!({"command": "cargo test"}),
        Some((output, false)),
    );
    let denied = Some(("Permission denied: rm -rf /", true));
    call(screen, "t3", "Bash", json!({"command": "rm -rf /"}), denied);
    screen.on_event(&EngineEvent::TodoUpdate {
        todos: vec![
            todo("Fix the greeting", TodoStatus::Completed),
            todo("Run the tests", TodoStatus::InProgress),
            todo("Commit", TodoStatus::Pending),
        ],
    });
    call(screen, "t4", "Bash", json!({"command": "sleep 30"}), None);
}

fn todo(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        content: content.into(),
        status,
        active_form: format!("{content}…"),
    }
}

/// The permission dialog for a Bash call with a suggested rule.
fn dialog(screen: &mut Screen) {
    screen.user_prompt("run the tests");
    screen.set_busy();
    call(screen, "t1", "Bash", json!({"command": "npm test"}), None);
    screen.ask(ApprovalRequest {
        tool_name: "Bash".into(),
        tool_use_id: "t1".into(),
        input: json!({"command": "npm test"}),
        reason: "Bash commands that are not read-only need approval".into(),
        subject: "npm test".into(),
        suggested_rule: Some("Bash(npm test:*)".into()),
    });
}

/// The status line in acceptEdits with context used and a cost; text typed.
fn status_line(screen: &mut Screen) {
    let status = screen.status_mut();
    status.mode = PermissionMode::AcceptEdits;
    status.context_tokens = 50_000;
    status.cost_usd = 0.1234;
    screen.composer_mut().set_text("half-typed prompt");
}

#[test]
fn main_views_at_80x24_and_60_columns() {
    type Setup = fn(&mut Screen);
    let cases: [(&str, Setup); 4] = [
        ("streaming_markdown", streaming),
        ("tool_lines_and_diff", tools),
        ("permission_dialog", dialog),
        ("status_line", status_line),
    ];
    for (name, setup) in cases {
        for (width, height) in [(80, 24), (60, 24)] {
            let (_, term) = drawn(true, setup, width, height);
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), text(&term));
        }
    }
}

#[test]
fn no_color_writes_no_colour() {
    for (color, want_colours) in [(true, true), (false, false)] {
        let both = |screen: &mut Screen| {
            tools(screen);
            streaming(screen);
        };
        let (_, term) = drawn(color, both, 80, 24);
        let buffer = term.backend().buffer();
        let coloured = buffer
            .content()
            .iter()
            .any(|cell| cell.fg != Color::Reset || cell.bg != Color::Reset);
        assert_eq!(coloured, want_colours, "color={color}");
    }
}

#[test]
fn a_resize_redraws_the_live_region_at_the_new_width() {
    let (mut screen, mut term) = drawn(true, streaming, 80, 24);
    term.backend_mut().resize(60, 24);
    screen.draw(&mut term).unwrap();
    let text = text(&term);
    assert!(text.lines().all(|l| l.chars().count() <= 60));
    assert!(text.contains("claude-sonnet-4-5"), "{text}");
    assert!(text.contains("Then run the tests"), "{text}");
}

#[test]
fn ctrl_o_shows_the_full_output_of_the_last_calls() {
    let (mut screen, mut term) = drawn(false, tools, 80, 40);
    assert!(!text(&term).contains("test b ... ok"));
    screen.toggle_full_output();
    screen.draw(&mut term).unwrap();
    let shown = text(&term);
    assert!(shown.contains("Full tool output on"), "{shown}");
    assert!(shown.contains("     test b ... ok"), "{shown}");
    assert!(
        shown.contains("     Permission denied: rm -rf /"),
        "{shown}"
    );
}

/// Ctrl-O shows the first 200 lines of an output, then how many more.
#[test]
fn ctrl_o_cuts_a_long_output_and_counts_the_rest() {
    let long_output = |screen: &mut Screen| {
        let output: String = (1..=205).map(|i| format!("line {i}\n")).collect();
        call(
            screen,
            "t1",
            "Bash",
            json!({"command": "seq 205"}),
            Some((&output, false)),
        );
    };
    let (mut screen, mut term) = drawn(false, long_output, 80, 40);
    screen.toggle_full_output();
    screen.draw(&mut term).unwrap();
    let shown = text(&term);
    assert!(
        shown.contains("     line 200\n     … 5 more lines"),
        "{shown}"
    );
    assert!(!shown.contains("line 201"), "{shown}");
}

/// A 30-line file in a temp dir whose path has a fixed length, and the
/// screen text with the dir's random part redacted.
fn greet_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new()
        .prefix("views")
        .rand_bytes(6)
        .tempdir()
        .unwrap();
    let path = dir.path().join("greet.rs");
    let body: String = (1..=30)
        .map(|i| match i {
            15 => "    println!(\"helo\");\n".to_string(),
            n => format!("    // line {n}\n"),
        })
        .collect();
    std::fs::write(&path, body).unwrap();
    (dir, path.to_string_lossy().into_owned())
}

fn edit_input(path: &str) -> serde_json::Value {
    json!({
        "file_path": path,
        "old_string": "    println!(\"helo\");\n",
        "new_string": "    println!(\"hello\");\n    println!(\"bye\");\n",
    })
}

fn redact_dir(text: &str, dir: &tempfile::TempDir) -> String {
    let dir = dir.path().to_string_lossy();
    let fixed: String = dir
        .char_indices()
        .map(|(i, c)| if i >= dir.len() - 6 { 'X' } else { c })
        .collect();
    text.replace(dir.as_ref(), &fixed)
}

#[test]
fn an_edit_is_asked_and_shown_with_the_files_lines() {
    let (dir, path) = greet_file();
    // The dialog: the proposed change as a diff of the file's real lines.
    let mut screen = Screen::new(status(), Theme::new(true), ComposerConfig::default());
    screen.user_prompt("fix the greeting");
    screen.set_busy();
    call(&mut screen, "t1", "Edit", edit_input(&path), None);
    screen.ask(ApprovalRequest {
        tool_name: "Edit".into(),
        tool_use_id: "t1".into(),
        input: edit_input(&path),
        reason: "file edits need approval in default mode".into(),
        subject: "greet.rs".into(),
        suggested_rule: Some("Edit".into()),
    });
    let mut term = terminal(80, 24);
    screen.draw(&mut term).unwrap();
    let dialog = text(&term);
    insta::assert_snapshot!("edit_dialog_80x24", redact_dir(&dialog, &dir));
    let buffer = term.backend().buffer();
    let coloured = |needle: &str, colour: Color| {
        let area = buffer.area;
        (0..area.height).any(|y| {
            let row: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
            row.contains(needle) && (0..area.width).any(|x| buffer[(x, y)].fg == colour)
        })
    };
    assert!(coloured("-     println!(\"helo\")", Color::Red), "{dialog}");
    assert!(
        coloured("+     println!(\"bye\")", Color::Green),
        "{dialog}"
    );

    // After the call (the tool changed the file): the same real lines.
    let mut screen = Screen::new(status(), Theme::new(false), ComposerConfig::default());
    screen.user_prompt("fix the greeting");
    call(&mut screen, "t1", "Edit", edit_input(&path), None);
    let before = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        before.replace(
            "    println!(\"helo\");\n",
            "    println!(\"hello\");\n    println!(\"bye\");\n",
        ),
    )
    .unwrap();
    screen.on_event(&result("t1", "The file has been updated.", false));
    let mut term = terminal(80, 24);
    screen.draw(&mut term).unwrap();
    insta::assert_snapshot!("edit_result_80x24", redact_dir(&text(&term), &dir));
}
