//! The scrollback's latest lines, kept for one case: a resize after which
//! the terminal's reflow pushed part of the old live region into its
//! history (tmux counts every screen row, blank ones too, and pushes the
//! rows a narrower width adds off the top — with the live region near the
//! top, its first rows go). Those rows cannot be taken back one by one, so
//! `crate::term` clears the screen and the terminal's history and
//! [`Screen::reprint`] puts the kept lines back, wrapped to the new width.
//!
//! Data flow: every line inserted into the scrollback passes
//! [`Screen::remember_shown`] (the newest [`REPRINT_MAX_LINES`] are kept);
//! [`Screen::reprint`] queues them again for the next frame.

use ratatui::text::Line;

use super::Screen;

/// Lines kept for a reprint (older ones are gone from the scrollback after
/// such a resize).
pub(crate) const REPRINT_MAX_LINES: usize = 1_000;

impl Screen {
    /// `lines` go into the scrollback now.
    pub(super) fn remember_shown(&mut self, lines: &[Line<'static>]) {
        let keep = lines.len().min(REPRINT_MAX_LINES);
        self.shown
            .extend(lines[lines.len() - keep..].iter().cloned());
        while self.shown.len() > REPRINT_MAX_LINES {
            self.shown.pop_front();
        }
    }

    /// The kept lines go into the scrollback again at the next frame, before
    /// anything new (the terminal's screen and history were cleared).
    pub(crate) fn reprint(&mut self) {
        let mut lines: Vec<Line<'static>> = std::mem::take(&mut self.shown).into();
        lines.append(&mut self.history);
        self.history = lines;
    }
}
