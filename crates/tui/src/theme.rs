//! Colours and text styles of the UI. One [`Theme`] value is built at
//! start-up from `NO_COLOR`; every renderer asks it for styles, so with
//! `NO_COLOR` set no colour escape is ever written (bold, dim and reverse
//! stay: they are not colours).

use ratatui::style::{Color, Modifier, Style};

/// One style method per named role: `name => colour, modifiers;`.
macro_rules! styles {
    ($($name:ident => $color:expr, $modifier:expr;)*) => {
        $(
            pub(crate) fn $name(self) -> Style {
                self.style($color, $modifier)
            }
        )*
    };
}

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

    /// Whether colours are on.
    pub(crate) fn has_color(self) -> bool {
        self.color
    }

    /// `modifier`, with `color` unless colours are off.
    fn style(self, color: Option<Color>, modifier: Modifier) -> Style {
        let style = Style::default().add_modifier(modifier);
        match color {
            Some(color) if self.color => style.fg(color),
            _ => style,
        }
    }

    styles! {
        plain => None, Modifier::empty();
        dim => None, Modifier::DIM;
        bold => None, Modifier::BOLD;
        heading => Some(Color::Cyan), Modifier::BOLD;
        code => Some(Color::Yellow), Modifier::empty();
        link => Some(Color::Blue), Modifier::UNDERLINED;
        keyword => Some(Color::Magenta), Modifier::BOLD;
        string => Some(Color::Green), Modifier::empty();
        comment => Some(Color::DarkGray), Modifier::ITALIC;
        number => Some(Color::Cyan), Modifier::empty();
        added => Some(Color::Green), Modifier::empty();
        removed => Some(Color::Red), Modifier::empty();
        error => Some(Color::Red), Modifier::empty();
        ok => Some(Color::Green), Modifier::empty();
        accent => Some(Color::Magenta), Modifier::empty();
        user => Some(Color::Gray), Modifier::BOLD;
        warn => Some(Color::Yellow), Modifier::empty();
        thinking => None, Modifier::DIM.union(Modifier::ITALIC);
        selected => None, Modifier::REVERSED;
    }

    /// A dialog's choice row: [`Self::selected`] under the cursor, else
    /// [`Self::plain`].
    pub(crate) fn choice(self, under_cursor: bool) -> Style {
        if under_cursor {
            self.selected()
        } else {
            self.plain()
        }
    }
}

/// How a note is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    Dim,
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dialog's choice row: reversed under the cursor, plain elsewhere.
    #[test]
    fn the_choice_under_the_cursor_is_reversed() {
        for theme in [Theme::new(true), Theme::new(false)] {
            assert_eq!(theme.choice(true), theme.selected(), "{theme:?}");
            assert_eq!(theme.choice(false), theme.plain(), "{theme:?}");
        }
    }
}
