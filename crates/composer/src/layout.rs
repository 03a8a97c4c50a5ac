//! Soft-wrapping of the text into screen rows, measured in terminal cells.
//!
//! Data flow: [`layout`] splits the text at `\n`, wraps each logical line at
//! the last space that fits (or mid-word when a word is wider than the
//! row), measuring with `unicode-width`, and places the cursor on the row and
//! column where the terminal must show it. Rendering, the cursor position
//! and ↑/↓ all read the same [`Layout`], so they cannot disagree.

use unicode_width::UnicodeWidthChar;

/// One screen row: a byte range of the text (never containing `\n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// First byte shown.
    pub start: usize,
    /// One past the last byte shown.
    pub end: usize,
}

/// The wrapped text and where the cursor sits in it.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The rows, top to bottom (at least one).
    pub rows: Vec<Row>,
    /// The cursor's row.
    pub cursor_row: usize,
    /// The cursor's column in cells (less than the width, except in rows
    /// narrower than one wide char).
    pub cursor_col: usize,
}

/// Cells a char takes; control chars (tabs) are drawn as one space.
pub(crate) fn char_width(c: char) -> usize {
    if c.is_control() {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

/// Cells `s` takes.
pub(crate) fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Wraps `text` into rows of at most `width` cells and places `cursor`.
pub(crate) fn layout(text: &str, width: usize, cursor: usize) -> Layout {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut line_start = 0;
    for line in text.split('\n') {
        wrap_line(line, line_start, width, &mut rows);
        line_start += line.len() + 1;
    }
    let cursor_row = rows
        .iter()
        .rposition(|r| r.start <= cursor)
        .unwrap_or_default();
    let row = rows[cursor_row];
    let cursor_col = str_width(&text[row.start..cursor.min(row.end).max(row.start)]);
    Layout {
        rows,
        cursor_row,
        cursor_col,
    }
}

/// Wraps one logical line starting at byte `base` into `rows`.
fn wrap_line(line: &str, base: usize, width: usize, rows: &mut Vec<Row>) {
    let mut row_start = base;
    let mut col = 0;
    // Byte offset just after the last space in the row, and its column.
    let mut last_break: Option<(usize, usize)> = None;
    for (i, c) in line.char_indices() {
        let at = base + i;
        let w = char_width(c);
        while col + w > width && col > 0 {
            match last_break.take() {
                Some((b, bcol)) if b > row_start && b <= at => {
                    rows.push(Row {
                        start: row_start,
                        end: b,
                    });
                    row_start = b;
                    col -= bcol;
                }
                _ => {
                    rows.push(Row {
                        start: row_start,
                        end: at,
                    });
                    row_start = at;
                    col = 0;
                }
            }
        }
        col += w;
        if c == ' ' {
            last_break = Some((at + 1, col));
        }
    }
    let end = base + line.len();
    rows.push(Row {
        start: row_start,
        end,
    });
    if col >= width {
        // A full row: the cursor after its last char goes on a row of its
        // own, always present so the box does not jump as the cursor moves.
        rows.push(Row { start: end, end });
    }
}

/// The byte offset in `row` closest to column `col` (not past it).
pub(crate) fn offset_at_col(text: &str, row: Row, col: usize) -> usize {
    let mut x = 0;
    for (i, c) in text[row.start..row.end].char_indices() {
        let w = char_width(c);
        if x + w > col {
            return row.start + i;
        }
        x += w;
    }
    row.end
}
