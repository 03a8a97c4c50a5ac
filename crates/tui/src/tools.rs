//! Tool calls as the UI shows them: one line each (`● Bash(npm test)`)
//! with a short summary of the result (`⎿ 12 lines`, the first line of an
//! error), Edit/Write with their diff; the full output is kept for Ctrl-O.
//! Knows tools only by the shape of their input (`command`, `file_path`,
//! `pattern`, `url`…) — it decides nothing. An edit's file is read for its
//! diff through `orbit_untrusted` ([`file_before_edit`]): the model named
//! it, so a FIFO or a device is never opened blocking nor read whole. Subjects and summaries are
//! made terminal-safe before they are cut to length, so the cut counts what
//! is shown (`␛]0;x␇`), not the raw bytes.

use orbit_protocol::{ToolResultBlock, ToolResultContent, ToolResultContentBlock};
use orbit_tool::{ReadDetail, ToolDetail};
use orbit_untrusted::{ReadOpts, read_untrusted};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::diff::{DIFF_MAX_LINES, diff_lines, edit_texts, is_edit_shaped};
use crate::sanitize::{Mode, sanitize};
use crate::shell_diff::shell_diff;
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
    /// An edit's file as it was before the call.
    pub(crate) before: Before,
    pub(crate) running: bool,
}

/// Largest file read for an edit's diff preview, in bytes: Edit's own cap
/// (`orbit_tools::builtin::edit::MAX_EDIT_FILE_BYTES`; the UI does not
/// depend on the tools), so a file the edit may change is always shown.
pub(crate) const PREVIEW_MAX_BYTES: usize = 16 * 1024 * 1024;

/// An edit's file as it was before the call, for its diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Before {
    /// Not an edit, or a file not shown: no diff.
    Unknown,
    /// No such file yet.
    Absent,
    /// The file's text.
    Text(String),
}

/// The file an edit-shaped `input` names, as it is now. The model chose
/// the path, so it is read as an untrusted file: a FIFO, a device, a file
/// over [`PREVIEW_MAX_BYTES`] or one that is not UTF-8 is
/// [`Before::Unknown`] (no preview) — never a blocked UI or a file read
/// into memory whole.
pub(crate) fn file_before_edit(input: &Value) -> Before {
    let Some(path) = is_edit_shaped(input)
        .then(|| input.get("file_path").and_then(Value::as_str))
        .flatten()
    else {
        return Before::Unknown;
    };
    let path = std::path::Path::new(path);
    // A special file is refused before it is opened, and again on the
    // open file (non-blocking) if it was swapped in meanwhile.
    let regular = std::fs::metadata(path).map(|meta| orbit_untrusted::check_regular(&meta));
    match regular {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Before::Absent,
        Err(_) | Ok(Err(_)) => return Before::Unknown,
        Ok(Ok(())) => {}
    }
    let opts = ReadOpts::user_file(PREVIEW_MAX_BYTES).refuse_over_cap();
    match read_untrusted(path, &opts) {
        Ok(file) => String::from_utf8(file.bytes).map_or(Before::Unknown, Before::Text),
        Err(e) if e.is_not_found() => Before::Absent,
        Err(_) => Before::Unknown,
    }
}

impl ToolCall {
    pub(crate) fn new(name: String, input: Value) -> Self {
        // An edit's diff needs the file as it was; it is read now, before
        // the call can run (the call waits for its permission at least).
        let before = file_before_edit(&input);
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
                ToolResultContentBlock::Document { .. } => "[document]",
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The finished call: its line with a summary, then a diff for edits.
/// `detail` is the tool's facts (`orbit_tool::ToolDetail`'s JSON form).
pub(crate) fn finished_lines(
    call: &ToolCall,
    result: &ToolResultBlock,
    detail: Option<&Value>,
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
    let diff = (!failed)
        .then(|| edit_diff(call, theme).or_else(|| shell_diff(detail, theme)))
        .flatten();
    let summary = match (&diff, failed) {
        (Some((_, added, removed)), _) => format!("+{added} -{removed}"),
        (None, true) => error_summary(&text, true),
        (None, false) => match read_detail(detail) {
            Some(read) => match shown_lines(&read).len() {
                1 => "Read 1 line".to_string(),
                n => format!("Read {n} lines"),
            },
            None => summarize(&text),
        },
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

/// A Read's facts, when `detail` is one.
fn read_detail(detail: Option<&Value>) -> Option<ReadDetail> {
    match ToolDetail::from_value(detail?)? {
        ToolDetail::Read(read) => Some(read),
        _ => None,
    }
}

/// The lines of a Read a person counts: the empty line after a file's
/// final newline (Read shows it to the model) is not one.
fn shown_lines(read: &ReadDetail) -> Vec<&str> {
    let mut lines: Vec<&str> = read.content.split('\n').collect();
    let last = read
        .start_line
        .saturating_add(read.num_lines)
        .saturating_sub(1);
    let at_end = read.total_lines.is_none_or(|total| total == last);
    if at_end && lines.len() > 1 && lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if read.content.is_empty() {
        lines.clear();
    }
    lines
}

/// Columns a tab stands for in the full output (the terminal would
/// otherwise show it as nothing: a cell holds one char).
const TAB_COLUMNS: usize = 4;

/// What Ctrl-O shows of a result: a Read's lines with their numbers set
/// apart from the code (`  12  if __name__…`; the model's `12\t…` form
/// loses its tab in a cell), anything else as it came; tabs expanded.
pub(crate) fn full_output(raw: &str, detail: Option<&Value>) -> Vec<String> {
    let expand = |line: &str| line.replace('\t', &" ".repeat(TAB_COLUMNS));
    let Some(read) = read_detail(detail) else {
        return raw.lines().map(expand).collect();
    };
    let lines = shown_lines(&read);
    let last = read.start_line + u64::try_from(lines.len()).unwrap_or(0);
    let width = last.max(1).to_string().len();
    lines
        .iter()
        .zip(read.start_line.max(1)..)
        .map(|(line, n)| format!("{n:>width$}  {}", expand(line)))
        .collect()
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

/// The summary of a result kept without its tool's facts (a resumed
/// session's history): the same words as a live call's — the first line
/// of a failure, `Read N lines` for Read's numbered lines (`N\t…`; the empty
/// line after the file's final newline not counted), else [`summarize`].
pub(crate) fn stored_summary(raw: &str, failed: bool) -> String {
    let text = sanitize(raw, Mode::Cells);
    if failed {
        return error_summary(&text, false);
    }
    let numbered = |line: &str| {
        line.split_once('\t')
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut lines: Vec<&str> = raw.lines().collect();
    if !lines.is_empty() && lines.iter().all(|l| numbered(l)) {
        if lines.len() > 1 && lines.last().is_some_and(|l| l.ends_with('\t')) {
            lines.pop();
        }
        return match lines.len() {
            1 => "Read 1 line".to_string(),
            n => format!("Read {n} lines"),
        };
    }
    truncate(&summarize(&text), SUMMARY_MAX_CHARS)
}

/// A failed call's first line as a person reads it (drawn in the error
/// colour): the `<tool_use_error>` wrapper the model gets is not shown,
/// and the count of further lines says there is
/// more (a failing test run's `Exit code 1` alone says nothing of what
/// failed); `live`: Ctrl-O can show them (a resumed history keeps no
/// tool output for it).
fn error_summary(text: &str, live: bool) -> String {
    let text = text.trim();
    let text = text.strip_prefix("<tool_use_error>").unwrap_or(text);
    let text = text.strip_suffix("</tool_use_error>").unwrap_or(text);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        return "failed".to_string();
    };
    let first = truncate(first.trim(), SUMMARY_MAX_CHARS);
    let hint = if live { ", Ctrl-O" } else { "" };
    match lines.count() {
        0 => first,
        1 => format!("{first} (+1 line{hint})"),
        more => format!("{first} (+{more} lines{hint})"),
    }
}

/// An edit's diff: the file before the call → the file after it.
fn edit_diff(call: &ToolCall, theme: Theme) -> Option<(Vec<Line<'static>>, usize, usize)> {
    let file = match &call.before {
        Before::Unknown => return None,
        Before::Absent => None,
        Before::Text(text) => Some(text.as_str()),
    };
    let (before, after) = edit_texts(&call.input, file)?;
    Some(diff_lines(&before, &after, DIFF_MAX_LINES, theme))
}

#[cfg(test)]
pub(crate) mod tests {
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

    /// Runs `f` on a thread; panics when it takes over a second (a read of
    /// a FIFO would block forever).
    #[allow(clippy::expect_used)]
    pub(crate) fn within_a_second<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(std::time::Duration::from_secs(1))
            .expect("blocked for over a second")
    }

    /// Model-named paths for an edit's preview: a FIFO, a device or a
    /// file over the cap give no preview, at once; a missing file is
    /// absent, a normal file its text.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn edit_previews_never_block_on_or_read_whole_hostile_paths() {
        let (dir, fifo) = orbit_test_support::files::temp_fifo();
        let big = dir.path().join("big.txt");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(PREVIEW_MAX_BYTES as u64 + 1)
            .unwrap();
        let text = dir.path().join("a.txt");
        std::fs::write(&text, "old\n").unwrap();
        let cases = [
            (fifo.display().to_string(), Before::Unknown),
            ("/dev/zero".to_string(), Before::Unknown),
            (big.display().to_string(), Before::Unknown),
            (
                dir.path().join("new.txt").display().to_string(),
                Before::Absent,
            ),
            (text.display().to_string(), Before::Text("old\n".into())),
        ];
        for (path, want) in cases {
            let input = json!({"file_path": path, "old_string": "old", "new_string": "new"});
            let call = within_a_second(move || ToolCall::new("Edit".into(), input));
            assert_eq!(call.before, want, "{path}");
        }
    }

    #[test]
    fn summaries() {
        let cases = [("", "(no output)"), ("ok", "ok"), ("a\nb\nc", "3 lines")];
        for (text, want) in cases {
            assert_eq!(summarize(text), want);
        }
    }

    /// A failed call's summary: no `<tool_use_error>` tags, and the count
    /// of lines behind Ctrl-O.
    #[test]
    fn error_summaries_drop_the_model_wrapper() {
        let cases = [
            (
                "<tool_use_error>No changes to make: same</tool_use_error>",
                "No changes to make: same",
            ),
            (
                "Exit code 1\nF..\n\nFAIL: test_a\n",
                "Exit code 1 (+2 lines, Ctrl-O)",
            ),
            ("", "failed"),
        ];
        for (text, want) in cases {
            assert_eq!(error_summary(text, true), want, "{text:?}");
        }
    }

    /// A resumed history's summaries read as the live ones.
    #[test]
    fn stored_summaries_match_the_live_words() {
        let read = "1\timport unittest\n2\t\n3\tx = 1\n4\t";
        assert_eq!(stored_summary(read, false), "Read 3 lines");
        assert_eq!(stored_summary("1\tonly", false), "Read 1 line");
        assert_eq!(stored_summary("a\nb", false), "2 lines");
        assert_eq!(stored_summary("12 passed", false), "12 passed");
        assert_eq!(
            stored_summary(
                "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>",
                true
            ),
            "String to replace not found in file. (+1 line)"
        );
    }

    /// A Read's numbered lines, for a whole file with and without a final
    /// newline and for a window inside it.
    #[test]
    fn read_output_keeps_numbers_apart_and_counts_lines_as_a_person_does() {
        let detail = |content: &str, start: u64, num: u64, total: Option<u64>| {
            ToolDetail::Read(ReadDetail {
                file: "a.py".into(),
                content: content.into(),
                num_lines: num,
                start_line: start,
                total_lines: total,
            })
            .to_value()
        };
        let cases = [
            (detail("a\n\tb\n", 1, 3, Some(3)), vec!["1  a", "2      b"]),
            (detail("a\nb", 1, 2, Some(2)), vec!["1  a", "2  b"]),
            (detail("x\n", 9, 2, Some(20)), vec![" 9  x", "10  "]),
            (detail("", 1, 1, Some(1)), vec![]),
        ];
        for (value, want) in cases {
            assert_eq!(full_output("ignored", Some(&value)), want, "{value}");
        }
        assert_eq!(full_output("1\tx\n", None), vec!["1    x"]);
    }
}
