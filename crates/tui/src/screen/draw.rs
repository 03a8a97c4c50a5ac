//! Drawing the [`Screen`]: final lines go into the scrollback above the
//! inline viewport once (wrapped to the width); the live region (the
//! unfinished answer, running tools, the working line, a dialog, picker or
//! the input box, the status line and hint) is rendered top-aligned into
//! the viewport each frame, the input box's caret drawn in reverse video
//! (the terminal's cursor stays hidden: see `crate::term`).

use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{Picker, Screen};
use crate::status::status_line;
use crate::theme::Theme;
use crate::tools::call_line;
use crate::wrap::{wrap_all, wrap_line};

impl Screen {
    /// Inserts the final lines into the scrollback, then draws the live
    /// region into the terminal's inline viewport.
    pub fn draw<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> Result<(), B::Error> {
        // A file index finished in the background shows up at the next frame.
        self.composer.poll_files();
        let size = terminal.size()?;
        let rows = self.answer.commit_rows(size.width);
        self.history.extend(rows);
        if !self.history.is_empty() {
            let taken = std::mem::take(&mut self.history);
            self.remember_shown(&taken);
            let lines = wrap_all(&taken, size.width);
            let chunk = usize::from(size.height.max(1));
            for part in lines.chunks(chunk) {
                let rows = u16::try_from(part.len()).unwrap_or(u16::MAX);
                terminal.insert_before(rows, |buf| {
                    Paragraph::new(part.to_vec()).render(buf.area, buf);
                })?;
            }
        }
        terminal.draw(|frame| {
            let area = frame.area();
            let cursor = self.render_live(area, frame.buffer_mut());
            // The caret is drawn (reverse video): the terminal's own
            // cursor stays hidden, parked at the live region's top-left
            // (`crate::term`), so a resize can find the region.
            if let Some(cell) = cursor.and_then(|(x, y)| frame.buffer_mut().cell_mut((x, y))) {
                cell.modifier.insert(Modifier::REVERSED);
            }
        })?;
        Ok(())
    }

    /// The live region, top-aligned in `area`; where the cursor goes.
    fn render_live(&self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        let t = self.theme;
        let width = area.width;
        let mut top: Vec<Line<'static>> = Vec::new();
        top.extend(self.answer.preview_rows(width));
        for (id, call) in &self.tools {
            // A subagent's call: its live line (its calls too with Ctrl-O).
            let description = crate::tools::subject(&call.input);
            if let Some(lines) = self.subagents.lines(id, &description, self.full_output, t) {
                top.extend(wrap_all(&lines, width));
                continue;
            }
            let asking = self.dialogs.iter().any(|d| d.request.tool_use_id == *id);
            let marker = if call.running {
                Span::styled("◌ ", t.warn())
            } else {
                Span::styled("○ ", t.dim())
            };
            let mut line = call_line(call, marker, t);
            if asking {
                line.spans
                    .push(Span::styled(" waiting for your answer", t.dim()));
            } else if call.running {
                line.spans.push(Span::styled(" running…", t.dim()));
            }
            top.extend(wrap_line(&line, width));
        }
        if let Some(started) = self.busy {
            let secs = started.elapsed().as_secs();
            // What a local model is doing (loading, reading the prompt
            // with progress, generating), when it reports it.
            let what = orbit_model::activity::current()
                .describe()
                .map(|what| format!(" · {what}"))
                .unwrap_or_default();
            let mut text = format!("✻ Working… {secs}s{what} (Esc to interrupt)");
            if let Some((label, detail)) = &self.activity {
                text = text.replacen("Working…", &format!("{label}…"), 1);
                text = text.replacen(" (Esc", &format!("{detail} (Esc"), 1);
            }
            if self.queued > 0 {
                text.push_str(&format!(" · {} queued", self.queued));
            }
            top.push(Line::from(Span::styled(text, t.accent())));
        }
        // The bottom part: a dialog or picker replaces the input box.
        // The input box draws its own borders; a dialog or picker that
        // replaces it gets a rule above the status line.
        let rule = Line::from(Span::styled("─".repeat(usize::from(width)), t.dim()));
        let mut bottom: Vec<Line<'static>> = Vec::new();
        let mut tail: Vec<Line<'static>> = Vec::new();
        let mut composer_rows = 0u16;
        if let Some(dialog) = self.dialogs.front() {
            bottom.extend(wrap_all(&dialog.lines(t), width));
            tail.push(rule);
        } else if let Some(picker) = &self.picker {
            bottom.extend(wrap_all(
                &picker_lines(picker, t, area.height.saturating_sub(4)),
                width,
            ));
            tail.push(rule);
        } else {
            composer_rows = self
                .composer
                .desired_height(width)
                .min(area.height.saturating_sub(2))
                .max(1);
        }
        tail.push(match &self.custom_status {
            Some(text) => crate::status_line::custom_line(text, &self.status, t, width),
            None => status_line(&self.status, t, width),
        });
        if let Some(hint) = &self.hint {
            tail.extend(wrap_line(
                &Line::from(Span::styled(hint.clone(), t.dim())),
                width,
            ));
        }
        let fixed = bottom.len() + usize::from(composer_rows) + tail.len();
        let room = usize::from(area.height).saturating_sub(fixed);
        if top.len() > room {
            top.drain(..top.len() - room);
        }
        let mut y = area.y;
        put(&top, area, &mut y, buf);
        put(&bottom, area, &mut y, buf);
        let mut cursor = None;
        if composer_rows > 0 && y < area.bottom() {
            let rows = composer_rows.min(area.bottom() - y);
            let box_area = Rect::new(area.x, y, width, rows);
            self.composer.render(box_area, buf);
            cursor = self.composer.cursor_position(box_area);
            y += rows;
        }
        put(&tail, area, &mut y, buf);
        cursor
    }
}

/// Renders `lines` one row each from row `y` down, inside `area`.
fn put(lines: &[Line<'static>], area: Rect, y: &mut u16, buf: &mut Buffer) {
    for line in lines {
        if *y >= area.bottom() {
            return;
        }
        line.clone()
            .render(Rect::new(area.x, *y, area.width, 1), buf);
        *y += 1;
    }
}

/// The picker's title and its visible choices, the selected one marked.
fn picker_lines(picker: &Picker, t: Theme, max_rows: u16) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(picker.title.clone(), t.bold()))];
    // A long title (the trust question) wraps; keep the choices visible.
    let max_rows = max_rows.saturating_sub(u16::try_from(picker.title.len() / 60).unwrap_or(0));
    let rows = usize::from(max_rows.max(1));
    let first = picker.selected.saturating_sub(rows - 1);
    for (i, (_, label)) in picker.items.iter().enumerate().skip(first).take(rows) {
        let style = if i == picker.selected {
            t.selected()
        } else {
            t.plain()
        };
        out.push(Line::from(Span::styled(format!("  {label}"), style)));
    }
    out
}
