//! Issue 29, class 10 in the interactive UI: model text, tool input and
//! output, todos, an ask and the status line's cwd carrying terminal
//! control sequences go into a [`Screen`], which is drawn into a
//! `TestBackend`; every control shows as its visible form (`␛]0;x␇`) and
//! no cell holds a control character.

use orbit_composer::ComposerConfig;
use orbit_engine::ApprovalRequest;
use orbit_permissions::PermissionMode;
use orbit_protocol::events::{TodoItem, TodoStatus};
use orbit_protocol::{ContentBlock, EngineEvent, StreamEvent, ToolResultBlock, ToolUseBlock};
use orbit_tui::{LIVE_ROWS, Screen, StatusInfo, Theme};
use ratatui::backend::TestBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::json;

fn delta(text: &str) -> EngineEvent {
    EngineEvent::Stream(StreamEvent::TextDelta {
        index: 0,
        text: text.into(),
    })
}

/// The whole screen's text, and every control character found in a cell.
fn screen_text(terminal: &Terminal<TestBackend>) -> (String, Vec<String>) {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    let mut controls = Vec::new();
    let mut rows = Vec::new();
    for y in 0..area.height {
        let mut row = String::new();
        for x in 0..area.width {
            let symbol = buffer[(x, y)].symbol();
            if symbol.chars().any(char::is_control) {
                controls.push(format!("{symbol:?} at ({x}, {y})"));
            }
            row.push_str(symbol);
        }
        rows.push(row.trim_end().to_string());
    }
    (rows.join("\n"), controls)
}

#[test]
fn control_sequences_from_model_and_tools_are_shown_not_sent() {
    let status = StatusInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        cwd: "/home/dev/\x1b]0;CWD\x07proj".into(),
        mode: PermissionMode::Default,
        context_tokens: 0,
        context_window: 200_000,
        cost_usd: 0.0,
    };
    let mut screen = Screen::new(status, Theme::new(true), ComposerConfig::default());
    let mut term = Terminal::with_options(
        TestBackend::new(120, 40),
        TerminalOptions {
            viewport: Viewport::Inline(LIVE_ROWS),
        },
    )
    .unwrap();
    screen.user_prompt("go");
    screen.set_busy();
    // A colour and an OSC split across deltas, a C1 CSI, a carriage return.
    for piece in [
        "\x1b[3",
        "1mred\x1b[0m then \x1b]52;c;aGk=",
        "\x07 and \x1b]0;ANSWER\x07 \u{9b}2J over\rwrite\n",
    ] {
        screen.on_event(&delta(piece));
        screen.draw(&mut term).unwrap();
    }
    let command = "printf '\x1b]2;CMD\x07'";
    screen.on_event(&EngineEvent::Stream(StreamEvent::ContentBlockComplete {
        index: 1,
        block: ContentBlock::ToolUse(ToolUseBlock {
            id: "t1".into(),
            name: "Bash".into(),
            input: json!({ "command": command }),
        }),
        invalid_input: None,
    }));
    screen.on_event(&EngineEvent::ToolStarted {
        tool_use_id: "t1".into(),
        name: "Bash".into(),
    });
    screen.on_event(&EngineEvent::ToolResult {
        result: ToolResultBlock::text("t1", "\x1b]2;OUT\x07\x1b[2Jdone", false),
        detail: None,
    });
    screen.on_event(&EngineEvent::TodoUpdate {
        todos: vec![TodoItem {
            content: "todo \x1b[2J".into(),
            status: TodoStatus::Pending,
            active_form: "doing".into(),
        }],
    });
    screen.toggle_full_output();
    screen.ask(ApprovalRequest {
        tool_name: "Bash".into(),
        tool_use_id: "t2".into(),
        input: json!({ "command": "rm \x1b[8mhidden" }),
        reason: "needs \x1b]0;REASON\x07 approval".into(),
        subject: "rm \x1b[8mhidden".into(),
        suggested_rule: None,
    });
    screen.draw(&mut term).unwrap();
    let (text, controls) = screen_text(&term);
    assert!(
        controls.is_empty(),
        "controls in cells: {controls:?}\n{text}"
    );
    for shown in [
        "red then ␛]52;c;aGk=␇ and ␛]0;ANSWER␇ ␛[2J over␍write",
        "Bash(printf '␛]2;CMD␇')",
        "␛]2;OUT␇␛[2Jdone",
        "todo ␛[2J",
        // Colour (conceal included) is removed in cells: the text shows.
        "Allow Bash(rm hidden)?",
        "needs ␛]0;REASON␇ approval",
        "/home/dev/␛]0;CWD␇proj",
    ] {
        assert!(text.contains(shown), "{shown:?} not on the screen:\n{text}");
    }
    // The colour sequence (split across two deltas) is gone, not shown.
    assert!(!text.contains("␛[3") && !text.contains("[31m"), "{text}");
}
