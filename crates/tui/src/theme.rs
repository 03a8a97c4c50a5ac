//! Colours and text styles of the UI. One [`Theme`] value is built at
//! start-up from `NO_COLOR`; every renderer asks it for styles, so with
//! `NO_COLOR` set no colour escape is ever written (bold, dim and reverse
//! stay: they are not colours).

use ratatui::style::{Color, Modifier, Style};

/// The palette: colours on, or `NO_COLOR` (modifiers only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// A theme with colours (`true`) or without (`NO_COLOR`).
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::default().fg(color)
        } else {
            Style::default()
        }
    }

    pub(crate) fn plain(self) -> Style {
        Style::default()
    }
    pub(crate) fn dim(self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }
    pub(crate) fn bold(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    pub(crate) fn heading(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    pub(crate) fn code(self) -> Style {
        self.fg(Color::Yellow)
    }
    pub(crate) fn link(self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::UNDERLINED)
    }
    pub(crate) fn keyword(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }
    pub(crate) fn string(self) -> Style {
        self.fg(Color::Green)
    }
    pub(crate) fn comment(self) -> Style {
        self.fg(Color::DarkGray).add_modifier(Modifier::ITALIC)
    }
    pub(crate) fn number(self) -> Style {
        self.fg(Color::Cyan)
    }
    pub(crate) fn added(self) -> Style {
        self.fg(Color::Green)
    }
    pub(crate) fn removed(self) -> Style {
        self.fg(Color::Red)
    }
    pub(crate) fn error(self) -> Style {
        self.fg(Color::Red)
    }
    pub(crate) fn ok(self) -> Style {
        self.fg(Color::Green)
    }
    pub(crate) fn accent(self) -> Style {
        self.fg(Color::Magenta)
    }
    pub(crate) fn user(self) -> Style {
        self.fg(Color::Gray).add_modifier(Modifier::BOLD)
    }
    pub(crate) fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }
    pub(crate) fn thinking(self) -> Style {
        Style::default().add_modifier(Modifier::DIM | Modifier::ITALIC)
    }
    pub(crate) fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
}
