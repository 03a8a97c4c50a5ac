//! The real terminal: raw mode, bracketed paste, an inline viewport of
//! [`LIVE_ROWS`] rows at the bottom (ratatui's `Viewport::Inline`; lines
//! above it are inserted with scrolling regions, so the scrollback is the
//! terminal's own), each frame wrapped in a synchronized update
//! (`BeginSynchronizedUpdate` … `End…`) so a terminal that supports it
//! shows it at once. [`Term::restore`] (also on drop, e.g. a panic) leaves
//! the terminal as it was, with the cursor under the last output.

use std::io::{Stdout, Write, stdout};

use crossterm::cursor::{MoveTo, Show};
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
    restored: bool,
}

impl Term {
    pub(crate) fn start() -> std::io::Result<Self> {
        let (_, rows) = crossterm::terminal::size()?;
        enable_raw_mode()?;
        execute!(stdout(), EnableBracketedPaste)?;
        let height = LIVE_ROWS.min(rows.saturating_sub(1)).max(3);
        let terminal = Terminal::with_options(
            CrosstermBackend::new(stdout()),
            TerminalOptions {
                viewport: Viewport::Inline(height),
            },
        );
        match terminal {
            Ok(terminal) => Ok(Self {
                terminal,
                restored: false,
            }),
            Err(err) => {
                let _ = execute!(stdout(), DisableBracketedPaste);
                let _ = disable_raw_mode();
                Err(err)
            }
        }
    }

    /// One frame: scrollback insertions and the live region, synchronized.
    pub(crate) fn draw(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)?;
        let drawn = screen.draw(&mut self.terminal);
        queue!(self.terminal.backend_mut(), EndSynchronizedUpdate)?;
        self.terminal.backend_mut().flush()?;
        drawn
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
