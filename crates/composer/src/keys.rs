//! Key handling: what each key does to the text, the cursor, the history
//! walk and the popup.
//!
//! Data flow: [`Composer::handle_key`] first offers the key to an open
//! popup (↑/↓ select, Tab/Enter accept, Esc closes), then maps it to an
//! edit or a motion computed by `textops` / `layout`. Keys the composer has
//! no use for come back as [`ComposerEvent::Ignored`] so the UI can use
//! them (Esc interrupts, Ctrl-C clears, Ctrl-D exits on an empty box).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::completion::PopupKind;
use crate::layout::{layout, offset_at_col};
use crate::textops::{line_end, line_start, next_char, prev_char, word_left, word_right};
use crate::{Composer, ComposerEvent};

impl Composer {
    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerEvent {
        if key.kind == KeyEventKind::Release {
            return ComposerEvent::Ignored;
        }
        if self.popup.is_some()
            && let Some(event) = self.popup_key(key)
        {
            return event;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Enter if shift || alt => self.insert_str("\n"),
            KeyCode::Enter if self.text[..self.cursor].ends_with('\\') => {
                self.text.remove(self.cursor - 1);
                self.cursor -= 1;
                self.insert_str("\n");
            }
            KeyCode::Enter => return self.submit(),
            // AltGr arrives as Ctrl+Alt on some terminals: a typed char.
            KeyCode::Char(c) if ctrl && alt => self.insert_str(c.encode_utf8(&mut [0; 4])),
            KeyCode::Char(c) if ctrl => return self.ctrl_key(c),
            KeyCode::Char('b') if alt => self.move_to(word_left(&self.text, self.cursor)),
            KeyCode::Char('f') if alt => self.move_to(word_right(&self.text, self.cursor)),
            KeyCode::Char('d') if alt => {
                self.remove(self.cursor..word_right(&self.text, self.cursor), true);
            }
            KeyCode::Char(_) if alt => return ComposerEvent::Ignored,
            KeyCode::Char(c) => self.insert_str(c.encode_utf8(&mut [0; 4])),
            KeyCode::Backspace if ctrl || alt => {
                self.remove(word_left(&self.text, self.cursor)..self.cursor, true);
            }
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if ctrl || alt => self.move_to(word_left(&self.text, self.cursor)),
            KeyCode::Right if ctrl || alt => self.move_to(word_right(&self.text, self.cursor)),
            KeyCode::Left => self.left(),
            KeyCode::Right => self.right(),
            KeyCode::Home => self.move_to(line_start(&self.text, self.cursor)),
            KeyCode::End => self.move_to(line_end(&self.text, self.cursor)),
            KeyCode::Up => return self.up(),
            KeyCode::Down => return self.down(),
            _ => return ComposerEvent::Ignored,
        }
        ComposerEvent::Changed
    }

    /// Keys an open popup takes; `None` lets the key edit the text.
    fn popup_key(&mut self, key: KeyEvent) -> Option<ComposerEvent> {
        let popup = self.popup.as_mut()?;
        let len = popup.items.len();
        match key.code {
            KeyCode::Esc => self.dismiss_popup(),
            KeyCode::Up => popup.selected = (popup.selected + len - 1) % len,
            KeyCode::Down => popup.selected = (popup.selected + 1) % len,
            KeyCode::Tab => self.accept_popup(),
            KeyCode::Enter if key.modifiers.is_empty() => {
                let slash = popup.kind == PopupKind::Slash;
                // A mention typed out in full: Enter sends the prompt.
                let complete = popup
                    .items
                    .get(popup.selected)
                    .is_some_and(|i| self.text.get(popup.range.clone()) == Some(i.insert.as_str()));
                if complete && !slash {
                    return Some(self.submit());
                }
                self.accept_popup();
                if slash {
                    return Some(self.submit());
                }
            }
            _ => return None,
        }
        Some(ComposerEvent::Changed)
    }

    fn ctrl_key(&mut self, c: char) -> ComposerEvent {
        let (text, at) = (&self.text, self.cursor);
        match c {
            'a' => self.move_to(line_start(text, at)),
            'e' => self.move_to(line_end(text, at)),
            'b' => self.left(),
            'f' => self.right(),
            'h' => self.backspace(),
            'j' => self.insert_str("\n"),
            'k' => {
                let end = line_end(text, at);
                let end = if end == at { next_char(text, at) } else { end };
                self.remove(at..end, true);
            }
            'u' => {
                let start = line_start(text, at);
                let start = if start == at {
                    prev_char(text, at)
                } else {
                    start
                };
                self.remove(start..at, true);
            }
            'w' => self.remove(word_left(text, at)..at, true),
            'y' => {
                let yank = self.kill_buffer.clone();
                self.insert_str(&yank);
            }
            'd' if !text.is_empty() => self.delete(),
            _ => return ComposerEvent::Ignored,
        }
        ComposerEvent::Changed
    }

    fn backspace(&mut self) {
        let range = self
            .pastes
            .ending_at(&self.text, self.cursor)
            .unwrap_or(prev_char(&self.text, self.cursor)..self.cursor);
        self.remove(range, false);
    }

    fn delete(&mut self) {
        let range = self
            .pastes
            .starting_at(&self.text, self.cursor)
            .unwrap_or(self.cursor..next_char(&self.text, self.cursor));
        self.remove(range, false);
    }

    fn left(&mut self) {
        let at = match self.pastes.ending_at(&self.text, self.cursor) {
            Some(r) => r.start,
            None => prev_char(&self.text, self.cursor),
        };
        self.move_to(at);
    }

    fn right(&mut self) {
        let at = match self.pastes.starting_at(&self.text, self.cursor) {
            Some(r) => r.end,
            None => next_char(&self.text, self.cursor),
        };
        self.move_to(at);
    }

    /// The width text wraps at for ↑/↓ (as last drawn; unwrapped before).
    fn wrap_width(&self) -> usize {
        match self.wrap_width.get() {
            0 => usize::MAX,
            w => usize::from(w),
        }
    }

    /// ↑: the row above, or the previous history entry from the top row.
    fn up(&mut self) -> ComposerEvent {
        let lay = layout(&self.text, self.wrap_width(), self.cursor);
        if lay.cursor_row == 0 {
            let Some(entry) = self.history.older(&self.text).map(str::to_string) else {
                return ComposerEvent::Ignored;
            };
            self.show_history_entry(entry);
            return ComposerEvent::Changed;
        }
        let col = *self.preferred_col.get_or_insert(lay.cursor_col);
        let at = offset_at_col(&self.text, lay.rows[lay.cursor_row - 1], col);
        self.cursor = self.outside_paste(at, false);
        self.popup = None;
        ComposerEvent::Changed
    }

    /// ↓: the row below, or the next history entry (then the draft) from
    /// the bottom row.
    fn down(&mut self) -> ComposerEvent {
        let lay = layout(&self.text, self.wrap_width(), self.cursor);
        let Some(&row) = lay.rows.get(lay.cursor_row + 1) else {
            let Some(entry) = self.history.newer() else {
                return ComposerEvent::Ignored;
            };
            self.show_history_entry(entry);
            return ComposerEvent::Changed;
        };
        let col = *self.preferred_col.get_or_insert(lay.cursor_col);
        self.cursor = self.outside_paste(offset_at_col(&self.text, row, col), true);
        self.popup = None;
        ComposerEvent::Changed
    }

    /// Shows a history entry (or the draft) without ending the walk.
    fn show_history_entry(&mut self, entry: String) {
        self.text = entry;
        self.cursor = self.text.len();
        self.preferred_col = None;
        self.popup = None;
    }
}
