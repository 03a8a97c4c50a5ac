//! A dialog's one-line text entry — the plan dialog's "What should
//! change?", the question dialog's "Other" answer, the permission dialog's
//! reason for "No": [`edit`] applies a key to the text and hands Enter and
//! Esc back to the dialog, which decides what they mean; [`row`] draws the
//! line with its cursor.

use crossterm::event::KeyCode;
use ratatui::text::{Line, Span};

use crate::theme::Theme;

/// What a key did to the typed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typed {
    /// The text changed, or the key does nothing here.
    Editing,
    /// Enter: the dialog takes the text.
    Enter,
    /// Esc: the dialog leaves the entry.
    Esc,
}

/// Applies `key` to `text`: Backspace deletes the last character, a
/// character is appended; Enter and Esc are returned as they are.
pub(crate) fn edit(text: &mut String, key: KeyCode) -> Typed {
    match key {
        KeyCode::Enter => return Typed::Enter,
        KeyCode::Esc => return Typed::Esc,
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char(c) => text.push(c),
        _ => {}
    }
    Typed::Editing
}

/// The entry's row: `label` in bold, then `text` and the cursor.
pub(crate) fn row(theme: Theme, label: &'static str, text: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(label, theme.bold()),
        Span::raw(format!("{text}▏")),
    ])
}

#[cfg(test)]
mod tests {
    use ratatui::style::Style;

    use super::*;

    #[test]
    fn keys_edit_the_text_and_enter_and_esc_go_back_to_the_dialog() {
        let mut text = String::from("ab");
        let cases = [
            (KeyCode::Char('c'), Typed::Editing, "abc"),
            (KeyCode::Backspace, Typed::Editing, "ab"),
            (KeyCode::Left, Typed::Editing, "ab"),
            (KeyCode::Enter, Typed::Enter, "ab"),
            (KeyCode::Esc, Typed::Esc, "ab"),
        ];
        for (key, typed, after) in cases {
            assert_eq!(edit(&mut text, key), typed, "{key:?}");
            assert_eq!(text, after, "{key:?}");
        }
    }

    #[test]
    fn the_row_is_the_bold_label_then_the_text_and_the_cursor() {
        for theme in [Theme::new(true), Theme::new(false)] {
            let line = row(theme, "  Answer: ", "yes");
            let spans: Vec<(&str, Style)> = line
                .spans
                .iter()
                .map(|s| (s.content.as_ref(), s.style))
                .collect();
            assert_eq!(
                spans,
                [("  Answer: ", theme.bold()), ("yes▏", Style::default())],
                "{theme:?}"
            );
        }
    }
}
