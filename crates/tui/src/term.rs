//! The real terminal: raw mode, bracketed paste, an inline viewport of
//! [`LIVE_ROWS`] rows at the bottom (ratatui's `Viewport::Inline`; lines
//! above it are inserted with scrolling regions, so the scrollback is the
//! terminal's own), each frame wrapped in a synchronized update
//! (`BeginSynchronizedUpdate` … `End…`) so a terminal that supports it
//! shows it at once. [`Term::restore`] (also on drop, e.g. a panic) leaves
//! the terminal as it was, with the cursor under the last output.
//!
//! A resize: after each frame the terminal's cursor is hidden and parked
//! at the live region's top-left (the input box draws its own caret).
//! When the size changed, the terminal has already reflowed its lines —
//! the live region's rows may be split or moved — but the cursor is still
//! on the region's first row, so [`Term::draw`] clears from there down
//! (the old region, whatever the reflow did to it) and starts a new
//! viewport there. Nothing is cleared above it, so no old live row is
//! pushed into the scrollback (as a whole-screen clear would be, in tmux),
//! and the scrollback above keeps every line. Unless the region's row is
//! the screen's first after the reflow: the terminal may then have pushed
//! its first rows into its history (tmux does when the rows a narrower
//! width adds outnumber those above the region), so the history is
//! cleared and the screen prints its latest lines again (`screen/reprint`).

use std::io::{Stdout, Write, stdout};

use crossterm::cursor::{MoveTo, MoveToColumn, Show};
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{
    BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate, disable_raw_mode,
    enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::backend::CrosstermBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::screen::Screen;

/// Rows of the live region (fewer on a shorter terminal).
pub const LIVE_ROWS: u16 = 10;

/// The terminal while the UI runs.
pub(crate) struct Term {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    /// The terminal's size (columns, rows) the viewport was made for.
    size: (u16, u16),
    restored: bool,
}

/// A ratatui terminal whose inline viewport starts at the cursor's row
/// (it asks the terminal where the cursor is).
fn inline_terminal(rows: u16) -> std::io::Result<Terminal<CrosstermBackend<Stdout>>> {
    let height = LIVE_ROWS.min(rows.saturating_sub(1)).max(3);
    Terminal::with_options(
        CrosstermBackend::new(stdout()),
        TerminalOptions {
            viewport: Viewport::Inline(height),
        },
    )
}

impl Term {
    pub(crate) fn start() -> std::io::Result<Self> {
        let size = crossterm::terminal::size()?;
        enable_raw_mode()?;
        execute!(stdout(), EnableBracketedPaste)?;
        match inline_terminal(size.1) {
            Ok(terminal) => Ok(Self {
                terminal,
                size,
                restored: false,
            }),
            Err(err) => {
                let _ = execute!(stdout(), DisableBracketedPaste);
                let _ = disable_raw_mode();
                Err(err)
            }
        }
    }

    /// One frame: scrollback insertions and the live region, synchronized;
    /// after a resize the old live region is cleared first (module docs).
    pub(crate) fn draw(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        let size = crossterm::terminal::size()?;
        if size != self.size {
            self.resized(size, screen)?;
        }
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)?;
        let drawn = screen.draw(&mut self.terminal);
        // Parked (hidden) at the live region's top-left until the next frame.
        let top = self.terminal.get_frame().area().y;
        queue!(
            self.terminal.backend_mut(),
            MoveTo(0, top),
            EndSynchronizedUpdate
        )?;
        self.terminal.backend_mut().flush()?;
        drawn
    }

    /// The terminal is `size` now: the old live region (from the parked
    /// cursor's row down) is cleared and a new viewport starts on that row.
    /// When that row is the screen's first, the reflow may have pushed the
    /// region's first rows into the terminal's history: then the history is
    /// cleared too and the screen's kept lines are printed again.
    fn resized(&mut self, size: (u16, u16), screen: &mut Screen) -> std::io::Result<()> {
        execute!(
            self.terminal.backend_mut(),
            MoveToColumn(0),
            Clear(ClearType::FromCursorDown)
        )?;
        self.terminal = inline_terminal(size.1)?;
        self.size = size;
        if self.terminal.get_frame().area().y == 0 {
            execute!(self.terminal.backend_mut(), Clear(ClearType::Purge))?;
            screen.reprint();
        }
        Ok(())
    }

    /// Clears the live region and gives the terminal back; the cursor ends
    /// where the live region began.
    pub(crate) fn restore(&mut self) -> std::io::Result<()> {
        if self.restored {
            return Ok(());
        }
        self.restored = true;
        // Not `Terminal::clear`: it asks the terminal for the cursor
        // position, an answer the event reader may take first.
        let top = self.terminal.get_frame().area().y;
        execute!(
            self.terminal.backend_mut(),
            MoveTo(0, top),
            Clear(ClearType::FromCursorDown),
            Show,
            DisableBracketedPaste
        )?;
        disable_raw_mode()
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}
