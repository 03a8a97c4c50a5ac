//! Edit and Write shown as coloured unified diffs (`similar`): removed
//! lines red with `-`, added green with `+`, two lines of context, hunks
//! separated by a dim `⋮`, at most [`DIFF_MAX_LINES`] lines.

use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::theme::Theme;

/// Longest diff shown under a tool line (Ctrl-O shows the tool's output).
pub(crate) const DIFF_MAX_LINES: usize = 40;
const CONTEXT_LINES: usize = 2;

/// The diff of `old` → `new`, indented under a tool line; counts of
/// added and removed lines.
pub(crate) fn diff_lines(old: &str, new: &str, theme: Theme) -> (Vec<Line<'static>>, usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (i, group) in diff.grouped_ops(CONTEXT_LINES).iter().enumerate() {
        if i > 0 {
            out.push(Line::from(Span::styled("    ⋮", theme.dim())));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']).to_string();
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
                out.push(Line::from(vec![
                    Span::styled(format!("    {line_no:>4} "), theme.dim()),
                    Span::styled(format!("{sign} {text}"), style),
                ]));
            }
        }
    }
    if out.len() > DIFF_MAX_LINES {
        let more = out.len() - DIFF_MAX_LINES;
        out.truncate(DIFF_MAX_LINES);
        out.push(Line::from(Span::styled(
            format!("    … {more} more diff lines"),
            theme.dim(),
        )));
    }
    (out, added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_signs() {
        let (lines, added, removed) = diff_lines("a\nb\nc\n", "a\nB\nc\nd\n", Theme::new(false));
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
}
