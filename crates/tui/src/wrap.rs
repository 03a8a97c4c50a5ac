//! Wrapping styled lines to a width: what goes into the scrollback is
//! wrapped here (so its height is known before it is inserted) and the live
//! region uses the same rule. Greedy, breaking after spaces when a word
//! fits, else mid-word; widths are display columns (`unicode-width`).
//! Every span is made terminal-safe here first ([`sanitize`] in
//! [`Mode::Cells`]): this is the one path model, tool, file and server text
//! takes to the scrollback and the live region, so a control character is
//! shown (`␛]0;x␇`) and counted in the width, never sent to the terminal.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::sanitize::{Mode, sanitize};

/// `line` cut into rows of at most `width` columns (at least one row).
pub(crate) fn wrap_line(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut cells: Vec<(char, Style)> = Vec::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let text = sanitize(&span.content, Mode::Cells);
        cells.extend(text.chars().map(|c| (c, style)));
    }
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut row: Vec<(char, Style)> = Vec::new();
    let mut row_width = 0usize;
    let mut last_space: Option<usize> = None;
    for (c, style) in cells {
        let w = c.width().unwrap_or(0);
        if row_width + w > width && !row.is_empty() {
            match last_space {
                Some(at) if at + 1 < row.len() => {
                    let rest = row.split_off(at + 1);
                    rows.push(std::mem::replace(&mut row, rest));
                }
                _ => rows.push(std::mem::take(&mut row)),
            }
            row_width = row.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
            last_space = None;
        }
        if c == ' ' {
            last_space = Some(row.len());
        }
        row.push((c, style));
        row_width += w;
    }
    rows.push(row);
    rows.into_iter().map(to_line).collect()
}

/// Every line of `lines` wrapped to `width`.
pub(crate) fn wrap_all(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap_line(l, width)).collect()
}

fn to_line(cells: Vec<(char, Style)>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current: Option<Style> = None;
    for (c, style) in cells {
        if current.is_some_and(|s| s != style) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                current.unwrap_or_default(),
            ));
        }
        current = Some(style);
        text.push(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, current.unwrap_or_default()));
    }
    Line::from(spans)
}

/// `text` cut to at most `max` chars, with `…` when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_spaces_then_mid_word() {
        let cases: [(&str, u16, &[&str]); 4] = [
            ("hello world", 20, &["hello world"]),
            ("hello world", 8, &["hello ", "world"]),
            ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
            ("", 5, &[""]),
        ];
        for (text, width, want) in cases {
            let got = texts(&wrap_line(&Line::from(text.to_string()), width));
            assert_eq!(got, want, "{text:?} at {width}");
        }
    }
}
