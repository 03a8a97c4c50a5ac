//! The editable text, its cursor and what Enter submits.
//!
//! Data flow: [`Composer::handle_key`] edits `text` at `cursor` (a byte
//! offset on a char boundary); Enter classifies the text by its first
//! character into a [`Submission`] and clears the box.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

/// What the composer needs to know about its surroundings.
#[derive(Debug, Clone, Default)]
pub struct ComposerConfig {
    /// Where submitted prompts are remembered across sessions (`None`: in
    /// memory only).
    pub history_file: Option<PathBuf>,
    /// The project root `@path` mentions complete against.
    pub project_root: PathBuf,
    /// Slash command names (without `/`) offered for completion, with a
    /// one-line description each.
    pub commands: Vec<(String, String)>,
}

/// What Enter turned the text into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// A prompt for the model; pasted blocks are expanded, `mentions` are
    /// the `@path` mentions it contains (relative to the project root).
    Prompt {
        /// The full text.
        text: String,
        /// The mentioned paths, in order of appearance.
        mentions: Vec<PathBuf>,
    },
    /// `!command`: run in a shell, its output added to the context.
    Shell(String),
    /// `#note`: appended to the project memory file.
    Note(String),
    /// `/name args`: a built-in or custom slash command.
    Command {
        /// The command's name, without `/`.
        name: String,
        /// The rest of the line, trimmed.
        args: String,
    },
}

/// The composer's answer to one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerEvent {
    /// The key was not for the composer; the UI may use it.
    Ignored,
    /// The text or cursor changed: redraw the box.
    Changed,
    /// Enter with a non-empty text.
    Submit(Submission),
}

/// The input box.
#[derive(Debug, Default)]
pub struct Composer {
    config: ComposerConfig,
    text: String,
    cursor: usize,
}

impl Composer {
    /// An empty box.
    pub fn new(config: ComposerConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Empties the box.
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// Replaces the text (cursor at the end).
    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
    }

    /// The project root mentions complete against.
    pub fn project_root(&self) -> &std::path::Path {
        &self.config.project_root
    }

    /// A bracketed paste: inserted at the cursor.
    pub fn handle_paste(&mut self, pasted: &str) {
        let pasted = pasted.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &pasted);
        self.cursor += pasted.len();
    }

    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerEvent {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter if key.modifiers.contains(KeyModifiers::SHIFT) => self.insert('\n'),
            KeyCode::Enter if self.text[..self.cursor].ends_with('\\') => {
                self.cursor -= 1;
                self.text.remove(self.cursor);
                self.insert('\n')
            }
            KeyCode::Enter => self.submit(),
            KeyCode::Char(c) if !ctrl => self.insert(c),
            KeyCode::Backspace => {
                if let Some(c) = self.text[..self.cursor].chars().next_back() {
                    self.cursor -= c.len_utf8();
                    self.text.remove(self.cursor);
                }
                ComposerEvent::Changed
            }
            KeyCode::Left => {
                if let Some(c) = self.text[..self.cursor].chars().next_back() {
                    self.cursor -= c.len_utf8();
                }
                ComposerEvent::Changed
            }
            KeyCode::Right => {
                if let Some(c) = self.text[self.cursor..].chars().next() {
                    self.cursor += c.len_utf8();
                }
                ComposerEvent::Changed
            }
            _ => ComposerEvent::Ignored,
        }
    }

    fn insert(&mut self, c: char) -> ComposerEvent {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
        ComposerEvent::Changed
    }

    fn submit(&mut self) -> ComposerEvent {
        let text = std::mem::take(&mut self.text);
        self.cursor = 0;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return ComposerEvent::Changed;
        }
        ComposerEvent::Submit(classify(trimmed))
    }

    /// Rows the box wants at `width` (at least 1).
    pub fn desired_height(&self, width: u16) -> u16 {
        let width = usize::from(width.max(3) - 2);
        let rows: usize = self
            .text
            .split('\n')
            .map(|line| line.chars().count().div_ceil(width).max(1))
            .sum();
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Draws the box into `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let lines: Vec<Line> = self
            .text
            .split('\n')
            .enumerate()
            .map(|(i, l)| Line::from(format!("{}{l}", if i == 0 { "> " } else { "  " })))
            .collect();
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(area, buf);
    }

    /// Where the terminal cursor goes when the box is drawn in `area`.
    pub fn cursor_position(&self, area: Rect) -> Option<(u16, u16)> {
        let before = &self.text[..self.cursor];
        let row = before.matches('\n').count();
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
        let x = area
            .x
            .saturating_add(2)
            .saturating_add(u16::try_from(col).ok()?);
        let y = area.y.saturating_add(u16::try_from(row).ok()?);
        (x < area.right() && y < area.bottom()).then_some((x, y))
    }
}

/// Sorts a submitted text by its first character.
fn classify(text: &str) -> Submission {
    if let Some(cmd) = text.strip_prefix('!') {
        return Submission::Shell(cmd.trim().to_string());
    }
    if let Some(note) = text.strip_prefix('#') {
        return Submission::Note(note.trim().to_string());
    }
    if let Some(rest) = text.strip_prefix('/') {
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        return Submission::Command {
            name: name.to_string(),
            args: args.trim().to_string(),
        };
    }
    Submission::Prompt {
        text: text.to_string(),
        mentions: Vec::new(),
    }
}
