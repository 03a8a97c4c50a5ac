//! Files a shell command changed, shown under its tool line in the same
//! diff view as Edit's: the Bash tool reports them as facts
//! (`orbit_tool::BashDetail::changes`, each file's hunks, and `unshown`,
//! files changed without hunks and why); this module turns them into rows
//! — a dim header per file (its path relative to the directory the UI
//! runs in), then its hunks through [`crate::diff::hunk_lines`] — at most
//! [`DIFF_MAX_LINES`] rows in all. It decides nothing: no detail, no diff.

use std::path::Path;

use orbit_tool::ToolDetail;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::diff::{DIFF_MAX_LINES, cap_rows, hunk_lines};
use crate::sanitize::{Mode, sanitize};
use crate::theme::Theme;

/// The rows of the files a shell command changed, with the counts of
/// added and removed lines; `None` when `detail` reports no change.
pub(crate) fn shell_diff(
    detail: Option<&Value>,
    theme: Theme,
) -> Option<(Vec<Line<'static>>, usize, usize)> {
    let ToolDetail::Bash(bash) = ToolDetail::from_value(detail?)? else {
        return None;
    };
    if bash.changes.is_empty() && bash.unshown.is_empty() {
        return None;
    }
    let here = std::env::current_dir().ok();
    let name = |file: &Path| {
        let shown = here
            .as_deref()
            .and_then(|h| file.strip_prefix(h).ok())
            .unwrap_or(file);
        sanitize(&shown.display().to_string(), Mode::Cells).into_owned()
    };
    let mut out = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for change in &bash.changes {
        out.push(Line::from(Span::styled(
            format!("    {}", name(&change.file)),
            theme.bold(),
        )));
        let (lines, a, r) = hunk_lines(&change.structured_patch, theme);
        let lines = lines.into_iter().map(|line| sanitized(line));
        out.extend(lines);
        added += a;
        removed += r;
    }
    for unshown in &bash.unshown {
        out.push(Line::from(Span::styled(
            format!("    {} — {}", name(&unshown.file), unshown.reason),
            theme.dim(),
        )));
    }
    cap_rows(&mut out, DIFF_MAX_LINES, theme);
    Some((out, added, removed))
}

/// A row with its text made terminal-safe (a file's line may hold escape
/// sequences).
fn sanitized(line: Line<'static>) -> Line<'static> {
    let spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|s| Span::styled(sanitize(&s.content, Mode::Cells).into_owned(), s.style))
        .collect();
    Line::from(spans)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use orbit_tool::{BashDetail, ChangeKind, FileChange, PatchHunk, UnshownChange};

    fn detail(changes: Vec<FileChange>, unshown: Vec<UnshownChange>) -> Value {
        ToolDetail::Bash(BashDetail {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: Some(0),
            interrupted: false,
            changes,
            unshown,
        })
        .to_value()
    }

    /// A changed file: its name, then its hunk rows; a removed one named
    /// with the reason; no change: no diff.
    #[test]
    fn changed_files_show_as_a_diff() {
        let here = std::env::current_dir().unwrap();
        let change = FileChange {
            file: here.join("app.py"),
            kind: ChangeKind::Update,
            structured_patch: vec![PatchHunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
                lines: vec!["-def old():\u{1b}[2J".into(), "+def new():".into()],
            }],
            original: None,
        };
        let gone = UnshownChange {
            file: "/elsewhere/gone".into(),
            reason: "removed".into(),
        };
        let value = detail(vec![change], vec![gone]);
        let (lines, added, removed) = shell_diff(Some(&value), Theme::new(false)).unwrap();
        let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!((added, removed), (1, 1));
        assert_eq!(texts[0], "    app.py");
        assert_eq!(texts[2], "       1 + def new():");
        assert!(!texts[1].contains('\u{1b}'), "{}", texts[1]);
        assert_eq!(texts[3], "    /elsewhere/gone — removed");
        assert!(shell_diff(Some(&detail(vec![], vec![])), Theme::new(false)).is_none());
        assert!(shell_diff(None, Theme::new(false)).is_none());
    }
}
