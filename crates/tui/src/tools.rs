//! Tool calls as the UI shows them: one line each (`● Bash(npm test)`)
//! with a short summary of the result (`⎿ 12 lines`, the first line of an
//! error), Edit/Write with their diff; the full output is kept for Ctrl-O.
//! Knows tools only by the shape of their input (`command`, `file_path`,
//! `pattern`, `url`…) — it decides nothing. Subjects and summaries are
//! made terminal-safe before they are cut to length, so the cut counts what
//! is shown (`␛]0;x␇`), not the raw bytes.

use orbit_protocol::{ToolResultBlock, ToolResultContent, ToolResultContentBlock};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::diff::{DIFF_MAX_LINES, diff_lines, edit_texts, is_edit_shaped};
use crate::sanitize::{Mode, sanitize};
use crate::theme::Theme;
use crate::wrap::truncate;

/// Longest subject shown in a tool line, in chars.
const SUBJECT_MAX_CHARS: usize = 60;
/// Longest one-line result summary, in chars.
const SUMMARY_MAX_CHARS: usize = 70;

/// A tool_use the model sent, until its result arrives.
#[derive(Debug, Clone)]
pub(crate) struct ToolCall {
    pub(crate) name: String,
    pub(crate) input: Value,
    /// An edit's file content before the call (None: no such file, or not an edit).
    pub(crate) before: Option<String>,
    pub(crate) running: bool,
}

impl ToolCall {
    pub(crate) fn new(name: String, input: Value) -> Self {
        // An edit's diff needs the file as it was; it is read now, before
        // the call can run (the call waits for its permission at least).
        let before = is_edit_shaped(&input)
            .then(|| input.get("file_path").and_then(Value::as_str))
            .flatten()
            .and_then(|p| std::fs::read_to_string(p).ok());
        Self {
            name,
            input,
            before,
            running: false,
        }
    }
}

/// What a call is about, for a person: the command, the path, the pattern.
pub(crate) fn subject(input: &Value) -> String {
    for key in [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ] {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            let one_line = v.lines().next().unwrap_or_default();
            return truncate(&sanitize(one_line, Mode::Cells), SUBJECT_MAX_CHARS);
        }
    }
    match input {
        Value::Object(map) if map.is_empty() => String::new(),
        other => truncate(
            &sanitize(&other.to_string(), Mode::Cells),
            SUBJECT_MAX_CHARS,
        ),
    }
}

/// `● Name(subject)` in the call's state colour.
pub(crate) fn call_line(call: &ToolCall, marker: Span<'static>, theme: Theme) -> Line<'static> {
    Line::from(vec![
        marker,
        Span::styled(call.name.clone(), theme.bold()),
        Span::styled(format!("({})", subject(&call.input)), theme.plain()),
    ])
}

/// The text of a result (images left out).
pub(crate) fn result_text(result: &ToolResultBlock) -> String {
    match &result.content {
        ToolResultContent::Text(t) => t.clone(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ToolResultContentBlock::Text { text } => text.as_str(),
                ToolResultContentBlock::Image { .. } => "[image]",
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The finished call: its line with a summary, then a diff for edits.
pub(crate) fn finished_lines(
    call: &ToolCall,
    result: &ToolResultBlock,
    theme: Theme,
) -> Vec<Line<'static>> {
    let raw = result_text(result);
    let text = sanitize(&raw, Mode::Cells);
    let failed = result.is_error();
    let marker = if failed {
        Span::styled("● ", theme.error())
    } else {
        Span::styled("● ", theme.ok())
    };
    let mut head = call_line(call, marker, theme);
    let diff = (!failed).then(|| edit_diff(call, theme)).flatten();
    let summary = match (&diff, failed) {
        (Some((_, added, removed)), _) => format!("+{added} -{removed}"),
        (None, true) => truncate(text.lines().next().unwrap_or("failed"), SUMMARY_MAX_CHARS),
        (None, false) => summarize(&text),
    };
    let style = if failed { theme.error() } else { theme.dim() };
    head.spans
        .push(Span::styled(format!(" ⎿ {summary}"), style));
    let mut out = vec![head];
    if let Some((lines, _, _)) = diff {
        out.extend(lines);
    }
    out
}

/// `N lines`, or the only line when it is short.
fn summarize(text: &str) -> String {
    let lines = text.lines().count();
    match lines {
        0 => "(no output)".to_string(),
        1 if text.chars().count() <= SUMMARY_MAX_CHARS => text.trim().to_string(),
        n => format!("{n} lines"),
    }
}

/// An edit's diff: the file before the call → the file after it.
fn edit_diff(call: &ToolCall, theme: Theme) -> Option<(Vec<Line<'static>>, usize, usize)> {
    let (before, after) = edit_texts(&call.input, call.before.as_deref())?;
    Some(diff_lines(&before, &after, DIFF_MAX_LINES, theme))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subjects_from_common_inputs() {
        let cases = [
            (json!({"command": "npm test\nmore"}), "npm test"),
            (json!({"file_path": "src/a.rs", "content": "x"}), "src/a.rs"),
            (json!({"pattern": "fn main"}), "fn main"),
            (json!({}), ""),
            (json!({"n": 1}), "{\"n\":1}"),
        ];
        for (input, want) in cases {
            assert_eq!(subject(&input), want, "{input}");
        }
    }

    #[test]
    fn summaries() {
        let cases = [("", "(no output)"), ("ok", "ok"), ("a\nb\nc", "3 lines")];
        for (text, want) in cases {
            assert_eq!(summarize(text), want);
        }
    }
}
