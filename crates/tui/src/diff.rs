//! Edits shown as coloured unified diffs (`similar`): removed lines red
//! with `-`, added green with `+`, the file's line numbers and three lines
//! of context, hunks separated by a dim `⋮`, at most a given number of
//! lines. [`edit_texts`] turns an edit-shaped tool input (`old_string` /
//! `new_string`, `edits`, or `content`) plus the file as it is before the
//! call into the whole file before and after, so the diff shows the file's
//! real lines rather than only the strings the model sent. [`hunk_lines`]
//! shows a tool's own hunks (a shell command's change) the same way.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::theme::Theme;

/// Longest diff shown under a finished tool line (Ctrl-O shows the tool's output).
pub(crate) const DIFF_MAX_LINES: usize = 40;
const CONTEXT_LINES: usize = 3;

/// Whether `input` has the shape of a file edit (a path and a change), so
/// the file's content before the call is worth keeping.
pub(crate) fn is_edit_shaped(input: &Value) -> bool {
    input.get("file_path").is_some()
        && ["old_string", "content", "edits"]
            .iter()
            .any(|k| input.get(*k).is_some())
}

/// The file before and after an edit-shaped `input`, given the file's
/// content before the call (`None`: no such file). `old_string` found in
/// the file → the whole file with the replacement (all occurrences with
/// `replace_all`); not found (or no file) → just the two strings; `edits`
/// applied in order; `content` replaces the file. None: not an edit.
pub(crate) fn edit_texts(input: &Value, file: Option<&str>) -> Option<(String, String)> {
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    if let Some(content) = field(input, "content") {
        return Some((
            file.unwrap_or_default().to_string(),
            ensure_newline(&content),
        ));
    }
    let edits: Vec<Value> = match input.get("edits").and_then(Value::as_array) {
        Some(list) => list.clone(),
        None => vec![input.clone()],
    };
    let mut pairs = Vec::new();
    for edit in &edits {
        let (Some(old), Some(new)) = (field(edit, "old_string"), field(edit, "new_string")) else {
            return None;
        };
        let all = edit.get("replace_all").and_then(Value::as_bool) == Some(true);
        pairs.push((old, new, all));
    }
    if let Some(before) = file {
        let mut after = before.to_string();
        let applied = pairs.iter().all(|(old, new, all)| {
            if old.is_empty() || !after.contains(old.as_str()) {
                return false;
            }
            after = if *all {
                after.replace(old.as_str(), new)
            } else {
                after.replacen(old.as_str(), new, 1)
            };
            true
        });
        if applied {
            return Some((before.to_string(), after));
        }
    }
    let old: Vec<&str> = pairs.iter().map(|(o, _, _)| o.as_str()).collect();
    let new: Vec<&str> = pairs.iter().map(|(_, n, _)| n.as_str()).collect();
    Some((
        ensure_newline(&old.join("\n")),
        ensure_newline(&new.join("\n")),
    ))
}

fn ensure_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// The diff of `old` → `new`, indented under a tool line, at most
/// `max_lines` rows (then a "… N more" row); counts of added and removed
/// lines.
pub(crate) fn diff_lines(
    old: &str,
    new: &str,
    max_lines: usize,
    theme: Theme,
) -> (Vec<Line<'static>>, usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (i, group) in diff.grouped_ops(CONTEXT_LINES).iter().enumerate() {
        if i > 0 {
            out.push(Line::from(Span::styled("    ⋮", theme.dim())));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']);
                let line_no = change
                    .new_index()
                    .or(change.old_index())
                    .map_or(0, |n| n + 1);
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => {
                        removed += 1;
                        ("-", theme.removed())
                    }
                    ChangeTag::Insert => {
                        added += 1;
                        ("+", theme.added())
                    }
                    ChangeTag::Equal => (" ", theme.dim()),
                };
                out.push(diff_row(line_no, sign, text, style, theme));
            }
        }
    }
    cap_rows(&mut out, max_lines, theme);
    (out, added, removed)
}

/// One row of the diff view: the line number (dim), then the sign and the
/// text in `style`.
fn diff_row(
    line_no: impl std::fmt::Display,
    sign: &str,
    text: &str,
    style: Style,
    theme: Theme,
) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("    {line_no:>4} "), theme.dim()),
        Span::styled(format!("{sign} {text}"), style),
    ])
}

/// Cuts a diff view to `max_lines` rows, then a "… N more diff lines" row
/// when rows were cut.
pub(crate) fn cap_rows(out: &mut Vec<Line<'static>>, max_lines: usize, theme: Theme) {
    if out.len() > max_lines {
        let more = out.len() - max_lines;
        out.truncate(max_lines);
        out.push(Line::from(Span::styled(
            format!("    … {more} more diff lines"),
            theme.dim(),
        )));
    }
}

/// Rows of a tool's own hunks (`orbit_tool::PatchHunk`: a shell command's
/// change) in the same view as [`diff_lines`]: the file's line numbers,
/// signs and colours, hunks separated by `⋮`; counts of added and removed
/// lines. Not cut: the caller bounds the whole view.
pub(crate) fn hunk_lines(
    hunks: &[orbit_tool::PatchHunk],
    theme: Theme,
) -> (Vec<Line<'static>>, usize, usize) {
    let mut out = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (i, hunk) in hunks.iter().enumerate() {
        if i > 0 {
            out.push(Line::from(Span::styled("    ⋮", theme.dim())));
        }
        let (mut old_no, mut new_no) = (hunk.old_start, hunk.new_start);
        for line in &hunk.lines {
            let mut chars = line.chars();
            let sign = chars.next().unwrap_or(' ');
            let text = chars.as_str();
            let (shown, line_no, style) = match sign {
                '-' => {
                    removed += 1;
                    old_no += 1;
                    ("-", old_no - 1, theme.removed())
                }
                '+' => {
                    added += 1;
                    new_no += 1;
                    ("+", new_no - 1, theme.added())
                }
                _ => {
                    old_no += 1;
                    new_no += 1;
                    (" ", new_no - 1, theme.dim())
                }
            };
            out.push(diff_row(line_no, shown, text, style, theme));
        }
    }
    (out, added, removed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A tool's hunks render as the diff of the same texts does.
    #[test]
    fn hunks_render_like_the_texts_diff() {
        let hunks = vec![orbit_tool::PatchHunk {
            old_start: 1,
            old_lines: 3,
            new_start: 1,
            new_lines: 4,
            lines: vec![
                " a".into(),
                "-b".into(),
                "+B".into(),
                " c".into(),
                "+d".into(),
            ],
        }];
        let (lines, added, removed) = hunk_lines(&hunks, Theme::new(false));
        let (want, ..) = diff_lines("a\nb\nc\n", "a\nB\nc\nd\n", 40, Theme::new(false));
        assert_eq!((added, removed), (2, 1));
        assert_eq!(text(&lines), text(&want));
    }

    #[test]
    fn counts_and_signs() {
        let (lines, added, removed) = diff_lines(
            "a\nb\nc\n",
            "a\nB\nc\nd\n",
            DIFF_MAX_LINES,
            Theme::new(false),
        );
        let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!((added, removed), (2, 1));
        assert_eq!(
            texts,
            [
                "       1   a",
                "       2 - b",
                "       2 + B",
                "       3   c",
                "       4 + d"
            ]
        );
    }

    /// A view over its bound keeps its first rows and says how many more.
    #[test]
    fn a_long_diff_is_cut_with_a_count_of_the_rest() {
        let (lines, added, removed) = diff_lines("a\nb\nc\n", "A\nB\nC\n", 4, Theme::new(false));
        assert_eq!((added, removed), (3, 3));
        assert_eq!(
            text(&lines),
            [
                "       1 - a",
                "       2 - b",
                "       3 - c",
                "       1 + A",
                "    … 2 more diff lines"
            ]
        );
    }

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn edit_in_a_file_shows_its_line_numbers_and_context() {
        let file: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let input = serde_json::json!({
            "file_path": "/x", "old_string": "line 10\n", "new_string": "ten\n"
        });
        let (before, after) = edit_texts(&input, Some(&file)).unwrap();
        assert_eq!(before, file);
        let (lines, added, removed) = diff_lines(&before, &after, 40, Theme::new(false));
        assert_eq!((added, removed), (1, 1));
        assert_eq!(
            text(&lines),
            [
                "       7   line 7",
                "       8   line 8",
                "       9   line 9",
                "      10 - line 10",
                "      10 + ten",
                "      11   line 11",
                "      12   line 12",
                "      13   line 13",
            ]
        );
    }

    #[test]
    fn edit_texts_by_shape() {
        use serde_json::json;
        let all =
            json!({"file_path": "/x", "old_string": "a", "new_string": "b", "replace_all": true});
        assert_eq!(edit_texts(&all, Some("a a\n")).unwrap().1, "b b\n");
        let one = json!({"file_path": "/x", "old_string": "a", "new_string": "b"});
        assert_eq!(edit_texts(&one, Some("a a\n")).unwrap().1, "b a\n");
        // Not in the file (or no file): the strings alone.
        assert_eq!(
            edit_texts(&one, Some("zzz\n")).unwrap(),
            ("a\n".to_string(), "b\n".to_string())
        );
        let multi = json!({"file_path": "/x", "edits": [
            {"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}
        ]});
        assert_eq!(edit_texts(&multi, Some("a\nc\n")).unwrap().1, "b\nd\n");
        let write = json!({"file_path": "/x", "content": "new"});
        assert_eq!(
            edit_texts(&write, None).unwrap(),
            (String::new(), "new\n".to_string())
        );
        assert!(edit_texts(&json!({"file_path": "/x"}), Some("a")).is_none());
        assert!(is_edit_shaped(&one) && !is_edit_shaped(&json!({"file_path": "/x"})));
    }
}
