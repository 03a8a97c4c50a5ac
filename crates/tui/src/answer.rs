//! The streamed answer between the markdown renderer and the screen.
//! A long paragraph arrives as one unfinished line; redrawing all of its
//! wrapped rows in the live region on every token would rewrite most of
//! the region each time (and shift it once it overflows). So rows of the
//! unfinished line that are full are committed to the scrollback as soon
//! as a frame is drawn ([`Answer::commit_rows`]), at the width of that
//! moment; the live region shows only the rest, and when the line ends its
//! already committed rows are skipped. Greedy wrapping is prefix-stable:
//! a full row does not change when more text arrives. Deltas are made
//! terminal-safe ([`Sanitizer`], [`Mode::Cells`]) before the markdown
//! renderer sees them: a sequence split across deltas is decided once, so
//! the preview of an unfinished line stays a prefix of the final line.

use ratatui::text::Line;

use crate::markdown::MarkdownStream;
use crate::sanitize::{Mode, Sanitizer};
use crate::theme::Theme;
use crate::wrap::wrap_line;

#[derive(Debug)]
pub(crate) struct Answer {
    md: MarkdownStream,
    /// Deltas on their way to `md`.
    clean: Sanitizer,
    /// Rows of the unfinished line already in the scrollback, and the
    /// width they were wrapped at.
    committed: Option<(u16, usize)>,
}

impl Answer {
    pub(crate) fn new(theme: Theme) -> Self {
        Self {
            md: MarkdownStream::new(theme),
            clean: Sanitizer::new(Mode::Cells),
            committed: None,
        }
    }

    /// Adds `delta`; the finished lines for the scrollback.
    pub(crate) fn push(&mut self, delta: &str) -> Vec<Line<'static>> {
        let mut clean = String::new();
        self.clean.push(delta, &mut clean);
        let lines = self.md.push(&clean);
        self.skip_committed(lines)
    }

    /// Ends the answer block; the rest for the scrollback.
    pub(crate) fn finish(&mut self) -> Vec<Line<'static>> {
        let mut rest = String::new();
        self.clean.finish(&mut rest);
        let mut lines = self.md.push(&rest);
        lines.extend(self.md.finish());
        let out = self.skip_committed(lines);
        self.committed = None;
        out
    }

    /// Full rows of the unfinished line not yet in the scrollback.
    pub(crate) fn commit_rows(&mut self, width: u16) -> Vec<Line<'static>> {
        let Some(preview) = self.md.preview() else {
            return Vec::new();
        };
        let (width, done) = self.committed.unwrap_or((width, 0));
        let rows = wrap_line(&preview, width);
        if rows.len() <= done + 1 {
            return Vec::new();
        }
        let last = rows.len() - 1;
        self.committed = Some((width, last));
        rows[done..last].to_vec()
    }

    /// What the live region shows of the unfinished line at `width`.
    pub(crate) fn preview_rows(&self, width: u16) -> Vec<Line<'static>> {
        let Some(preview) = self.md.preview() else {
            return Vec::new();
        };
        match self.committed {
            Some((at, done)) => wrap_line(&preview, at)
                .into_iter()
                .skip(done)
                .flat_map(|row| wrap_line(&row, width))
                .collect(),
            None => wrap_line(&preview, width),
        }
    }

    fn skip_committed(&mut self, mut lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
        let Some((width, done)) = self.committed else {
            return lines;
        };
        if lines.is_empty() {
            return lines;
        }
        self.committed = None;
        let first = lines.remove(0);
        let mut out: Vec<Line<'static>> = wrap_line(&first, width).into_iter().skip(done).collect();
        out.extend(lines);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streams `pieces`, committing rows at `width` after each (as frames
    /// do); returns the scrollback's rows.
    fn stream(pieces: &[&str], width: u16) -> Vec<String> {
        let mut answer = Answer::new(Theme::new(false));
        let mut out = Vec::new();
        for piece in pieces {
            out.extend(answer.push(piece));
            out.extend(answer.commit_rows(width));
        }
        out.extend(answer.finish());
        out.iter()
            .flat_map(|l| wrap_line(l, width))
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn committed_rows_are_neither_lost_nor_repeated() {
        let text = "one two three four five six seven eight nine ten\nnext line";
        let whole = stream(&[text], 12);
        let pieces: Vec<String> = text.chars().map(String::from).collect();
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        assert_eq!(stream(&pieces, 12), whole);
        assert_eq!(
            whole,
            [
                "one two ",
                "three four ",
                "five six ",
                "seven eight ",
                "nine ten",
                "next line"
            ]
        );
    }
}
