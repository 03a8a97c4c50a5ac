//! Drawing the box: a top border, the wrapped text behind a `> ` marker,
//! then the completion popup, all inside the area the UI gives.
//!
//! Data flow: [`Composer::desired_height`], [`Composer::render`] and
//! [`Composer::cursor_position`] compute the same `Frame` from the shared
//! `layout` — which rows fit, scrolled so the cursor row is visible, and how
//! many popup rows fit below them — so the drawn text and the terminal
//! cursor always agree. Drawing records the wrap width so ↑/↓ move by
//! screen rows. With `color` off only plain text and markers are drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::Composer;
use crate::completion::PopupKind;
use crate::layout::{Layout, char_width, layout, str_width};

/// Cells taken by the `> ` marker in front of every row.
const MARKER_WIDTH_CELLS: u16 = 2;
/// The first row's marker.
const PROMPT_MARKER: &str = "> ";
/// The marker of the other rows.
const CONTINUATION_MARKER: &str = "  ";
/// The top border's height in rows.
const BORDER_ROWS: u16 = 1;
/// The most popup rows shown at once (the selection scrolls).
const POPUP_MAX_ROWS: usize = 8;
/// Command names are padded to at most this many cells before their
/// descriptions.
const LABEL_MAX_WIDTH_CELLS: usize = 28;
/// Shown in an empty box.
const EMPTY_HINT: &str = "Type a message, / for commands, @ for files";

/// The last layout and what it was computed for.
#[derive(Debug)]
pub(crate) struct LayoutCache {
    text: String,
    cursor: usize,
    width: u16,
    layout: Layout,
}

/// What fits in an area.
struct Frame {
    lay: Layout,
    /// The first text row shown.
    top: usize,
    text_rows: u16,
    popup_rows: u16,
}

impl Composer {
    /// Rows the box wants at `width`: the border, the text (at least one
    /// row) and the popup.
    pub fn desired_height(&self, width: u16) -> u16 {
        let lay = self.layout_at(width);
        let rows = lay.rows.len() + self.popup_len() + usize::from(BORDER_ROWS);
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Draws the box into `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.is_empty() {
            return;
        }
        let frame = self.frame(area);
        let dim = self.style(Style::new().fg(Color::DarkGray));
        buf.set_line(
            area.x,
            area.y,
            &Line::styled("─".repeat(usize::from(area.width)), dim),
            area.width,
        );
        let text_y = area.y + BORDER_ROWS;
        if self.text.is_empty() {
            let line = Line::from(vec![
                Span::styled(PROMPT_MARKER, self.marker_style()),
                Span::styled(EMPTY_HINT, dim),
            ]);
            buf.set_line(area.x, text_y, &line, area.width);
        } else {
            let pastes = self.pastes.ranges(&self.text);
            for i in 0..frame.text_rows {
                let index = frame.top + usize::from(i);
                let Some(row) = frame.lay.rows.get(index) else {
                    break;
                };
                let marker = if index == 0 {
                    PROMPT_MARKER
                } else {
                    CONTINUATION_MARKER
                };
                let mut spans = vec![Span::styled(marker, self.marker_style())];
                let paste_style = self.style(Style::new().fg(Color::Cyan));
                let mut at = row.start;
                for r in pastes
                    .iter()
                    .filter(|r| r.end > row.start && r.start < row.end)
                {
                    let (start, end) = (r.start.max(row.start), r.end.min(row.end));
                    spans.push(Span::raw(visible(&self.text[at..start])));
                    spans.push(Span::styled(visible(&self.text[start..end]), paste_style));
                    at = end;
                }
                spans.push(Span::raw(visible(&self.text[at..row.end])));
                buf.set_line(area.x, text_y + i, &Line::from(spans), area.width);
            }
        }
        self.render_popup(&frame, area, buf);
    }

    /// Where the terminal cursor goes when the box is drawn in `area`.
    pub fn cursor_position(&self, area: Rect) -> Option<(u16, u16)> {
        let frame = self.frame(area);
        let row = frame.lay.cursor_row.checked_sub(frame.top)?;
        let x = area
            .x
            .saturating_add(MARKER_WIDTH_CELLS)
            .saturating_add(u16::try_from(frame.lay.cursor_col).ok()?);
        let y = area
            .y
            .saturating_add(BORDER_ROWS)
            .saturating_add(u16::try_from(row).ok()?);
        (x < area.right() && y < area.bottom() && row < usize::from(frame.text_rows))
            .then_some((x, y))
    }

    fn render_popup(&self, frame: &Frame, area: Rect, buf: &mut Buffer) {
        let Some(popup) = &self.popup else {
            return;
        };
        let shown = usize::from(frame.popup_rows);
        let first = popup.selected.saturating_sub(shown.saturating_sub(1));
        let items = popup.items.iter().enumerate().skip(first).take(shown);
        let label_width = popup
            .items
            .iter()
            .skip(first)
            .take(shown)
            .map(|i| str_width(&i.label))
            .max()
            .unwrap_or(0)
            .min(LABEL_MAX_WIDTH_CELLS);
        let room = usize::from(area.width.saturating_sub(MARKER_WIDTH_CELLS));
        let y0 = area.y + BORDER_ROWS + frame.text_rows;
        for (row, (i, item)) in (0u16..).zip(items) {
            let selected = i == popup.selected;
            let marker = if selected { "› " } else { "  " };
            let label_style = if selected {
                self.style(Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD))
            } else {
                Style::new()
            };
            let mut spans = vec![Span::styled(marker, label_style)];
            match popup.kind {
                PopupKind::Mention => {
                    spans.push(Span::styled(fit_left(&item.label, room), label_style));
                }
                PopupKind::Slash => {
                    let label = fit_left(&item.label, label_width);
                    let pad = label_width.saturating_sub(str_width(&label));
                    spans.push(Span::styled(label, label_style));
                    spans.push(Span::raw(" ".repeat(pad + 2)));
                    spans.push(Span::styled(
                        item.detail.clone(),
                        self.style(Style::new().fg(Color::DarkGray)),
                    ));
                }
            }
            buf.set_line(area.x, y0 + row, &Line::from(spans), area.width);
        }
    }

    /// Which rows fit in `area`: text first (at least one row), then popup.
    fn frame(&self, area: Rect) -> Frame {
        let lay = self.layout_at(area.width);
        let avail = area.height.saturating_sub(BORDER_ROWS);
        let popup_want = u16::try_from(self.popup_len()).unwrap_or(u16::MAX);
        let text_want = u16::try_from(lay.rows.len()).unwrap_or(u16::MAX);
        let popup_rows = popup_want.min(avail.saturating_sub(1));
        let text_rows = text_want.min(avail - popup_rows);
        let visible = usize::from(text_rows).max(1);
        let top = (lay.cursor_row + 1).saturating_sub(visible);
        Frame {
            lay,
            top,
            text_rows,
            popup_rows,
        }
    }

    /// The layout at a box `width`; remembers the wrap width for ↑/↓.
    /// A frame asks three times (height, drawing, cursor), so the last
    /// layout is kept with the text, cursor and width it was made for.
    fn layout_at(&self, width: u16) -> Layout {
        let text_width = width.saturating_sub(MARKER_WIDTH_CELLS).max(1);
        self.wrap_width.set(text_width);
        let mut cache = self.layout_cache.borrow_mut();
        if let Some(c) = cache.as_ref()
            && c.width == text_width
            && c.cursor == self.cursor
            && c.text == self.text
        {
            return c.layout.clone();
        }
        let fresh = layout(&self.text, usize::from(text_width), self.cursor);
        *cache = Some(LayoutCache {
            text: self.text.clone(),
            cursor: self.cursor,
            width: text_width,
            layout: fresh.clone(),
        });
        fresh
    }

    fn popup_len(&self) -> usize {
        self.popup
            .as_ref()
            .map_or(0, |p| p.items.len().min(POPUP_MAX_ROWS))
    }

    fn marker_style(&self) -> Style {
        self.style(Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD))
    }

    /// `style`, or no style at all without colour.
    fn style(&self, style: Style) -> Style {
        if self.color { style } else { Style::new() }
    }
}

/// Control chars (tabs) drawn as spaces, as `layout` measures them.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `s` cut to `max` cells from the left (`…` first), keeping its end.
fn fit_left(s: &str, max: usize) -> String {
    if str_width(s) <= max {
        return s.to_string();
    }
    let mut kept = Vec::new();
    let mut width = 1;
    for c in s.chars().rev() {
        width += char_width(c);
        if width > max {
            break;
        }
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}
