//! The composer's state and its public API: configuration, what a key
//! returns, and what Enter submits.
//!
//! Data flow: [`Composer::handle_key`] (in `keys.rs`) and
//! [`Composer::handle_paste`] edit `text` at `cursor` (a byte offset on a
//! char boundary) and refresh the completion popup; Enter expands paste
//! placeholders, records the text in the history, classifies it by its
//! first character into a [`Submission`] and clears the box. Rendering
//! (`render.rs`) only reads this state.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use crate::completion::{self, Popup, PopupKind, Trigger};
use crate::files::{Files, IndexWaker};
use crate::history::History;
use crate::paste::Pastes;

/// What the composer needs to know about its surroundings.
#[derive(Debug, Clone, Default)]
pub struct ComposerConfig {
    /// Where submitted prompts are remembered across sessions (`None`: in
    /// memory only).
    pub history_file: Option<PathBuf>,
    /// The project root `@path` mentions complete against.
    pub project_root: PathBuf,
    /// Slash command names (without `/`) offered for completion, with a
    /// one-line description each: the built-ins and the custom commands
    /// ([`crate::custom::load_custom_commands`]), in the order shown.
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
    /// The text, cursor or popup changed: redraw the box.
    Changed,
    /// Enter with a non-empty text.
    Submit(Submission),
}

/// Submissions whose collapsed form is remembered for their echo (a
/// queue of prompts waits at most this deep in practice).
const SHOWN_FORMS_MAX: usize = 16;

/// The input box.
#[derive(Debug, Default)]
pub struct Composer {
    pub(crate) config: ComposerConfig,
    pub(crate) text: String,
    pub(crate) cursor: usize,
    /// The column ↑/↓ aim for while moving vertically.
    pub(crate) preferred_col: Option<usize>,
    /// The text Ctrl-K/U/W removed last (Ctrl-Y yanks it).
    pub(crate) kill_buffer: String,
    pub(crate) history: History,
    pub(crate) pastes: Pastes,
    /// Recent submissions that held collapsed pastes: (the expanded text,
    /// the text as the box showed it), oldest first, at most
    /// [`SHOWN_FORMS_MAX`].
    shown_forms: std::collections::VecDeque<(String, String)>,
    pub(crate) popup: Option<Popup>,
    /// The start of the token whose popup Esc closed.
    dismissed: Option<usize>,
    files: Files,
    /// Called (from the indexing thread) when the file index is ready.
    index_waker: Option<IndexWaker>,
    warnings: Vec<String>,
    /// Draw with colours and styles (off under `NO_COLOR`).
    pub(crate) color: bool,
    /// The text width of the last layout (0: not drawn yet, no wrapping).
    pub(crate) wrap_width: Cell<u16>,
    /// The last layout drawn, reused while text, cursor and width match.
    pub(crate) layout_cache: RefCell<Option<crate::render::LayoutCache>>,
}

impl Composer {
    /// An empty box; loads the history.
    pub fn new(config: ComposerConfig) -> Self {
        let (history, warning) = History::load(config.history_file.clone(), &config.project_root);
        Self {
            config,
            history,
            warnings: warning.into_iter().collect(),
            color: true,
            ..Self::default()
        }
    }

    /// Colours and styles on (the default) or off (`NO_COLOR`).
    pub fn set_color(&mut self, color: bool) {
        self.color = color;
    }

    /// The current text (paste placeholders not expanded).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Empties the box (and forgets its pastes and popup).
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.pastes.clear();
        self.edited();
    }

    /// Replaces the text (cursor at the end).
    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
        self.edited();
    }

    /// The project root mentions complete against.
    pub fn project_root(&self) -> &Path {
        &self.config.project_root
    }

    /// A bracketed paste: inserted at the cursor, or as a placeholder when
    /// it is large (more than 800 chars or 10 lines).
    pub fn handle_paste(&mut self, pasted: &str) {
        let pasted = pasted.replace("\r\n", "\n").replace('\r', "\n");
        let inserted = self.pastes.insert(pasted);
        self.insert_str(&inserted);
    }

    /// A warning for the user (the history file could not be read or
    /// written); call after [`Composer::new`] and after each submission.
    /// Each problem is reported once.
    pub fn take_warning(&mut self) -> Option<String> {
        (!self.warnings.is_empty()).then(|| self.warnings.remove(0))
    }

    /// True while a completion popup is shown (Esc closes it).
    pub fn popup_open(&self) -> bool {
        self.popup.is_some()
    }

    /// Forgets the project's file list; the next `@` walks the tree again.
    pub fn refresh_files(&mut self) {
        self.files = Files::None;
        self.refresh_popup();
    }

    /// Who to call when a file index built in the background is ready.
    pub fn set_index_waker(&mut self, waker: IndexWaker) {
        self.index_waker = Some(waker);
    }

    /// Takes a file index finished in the background and refreshes the
    /// popup with it; true when something changed (redraw).
    pub fn poll_files(&mut self) -> bool {
        let arrived = self.files.poll();
        if arrived {
            self.refresh_popup();
        }
        arrived
    }

    /// Inserts `s` at the cursor.
    pub(crate) fn insert_str(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
        self.edited();
    }

    /// Removes `range` from the text, keeping it for Ctrl-Y when `kill`; a
    /// paste placeholder the range cuts into is removed whole.
    pub(crate) fn remove(&mut self, mut range: std::ops::Range<usize>, kill: bool) {
        if range.is_empty() {
            return;
        }
        for r in self.pastes.ranges(&self.text) {
            if r.start < range.end && range.start < r.end {
                range = range.start.min(r.start)..range.end.max(r.end);
            }
        }
        if kill {
            self.kill_buffer = self.text[range.clone()].to_string();
        }
        self.cursor = range.start;
        self.text.replace_range(range, "");
        self.edited();
    }

    /// After an edit: the history walk ends and the popup follows the text.
    pub(crate) fn edited(&mut self) {
        self.history.reset_walk();
        self.preferred_col = None;
        self.refresh_popup();
    }

    /// `at`, or the start (moving back) or end (moving forward) of the
    /// paste placeholder it falls inside: the cursor never splits one.
    pub(crate) fn outside_paste(&self, at: usize, forward: bool) -> usize {
        let inside = self
            .pastes
            .ranges(&self.text)
            .into_iter()
            .find(|r| r.start < at && at < r.end);
        match inside {
            Some(r) if forward => r.end,
            Some(r) => r.start,
            None => at,
        }
    }

    /// Moves the cursor (not vertically) and updates the popup.
    pub(crate) fn move_to(&mut self, at: usize) {
        let at = self.outside_paste(at, at >= self.cursor);
        self.cursor = at;
        self.preferred_col = None;
        self.refresh_popup();
    }

    /// Opens, updates or closes the popup for the token at the cursor.
    pub(crate) fn refresh_popup(&mut self) {
        let Some(Trigger { kind, range, query }) = completion::trigger(&self.text, self.cursor)
        else {
            self.popup = None;
            self.dismissed = None;
            return;
        };
        if self.dismissed == Some(range.start) {
            self.popup = None;
            return;
        }
        self.dismissed = None;
        let items = match kind {
            PopupKind::Slash => completion::slash_items(&self.config.commands, &query),
            PopupKind::Mention => {
                let root = &self.config.project_root;
                match self.files.get(root, self.index_waker.as_ref()) {
                    Some(files) => {
                        completion::mention_items(files.search(&query, completion::POPUP_MAX_ITEMS))
                    }
                    None => vec![completion::indexing_item(&query)],
                }
            }
        };
        self.popup = (!items.is_empty()).then_some(Popup {
            kind,
            range,
            items,
            selected: 0,
        });
    }

    /// Esc on an open popup: closed until the cursor leaves the token.
    pub(crate) fn dismiss_popup(&mut self) {
        if let Some(popup) = self.popup.take() {
            self.dismissed = Some(popup.range.start);
        }
    }

    /// Replaces the popup's token with the selected item.
    pub(crate) fn accept_popup(&mut self) {
        let Some(popup) = self.popup.take() else {
            return;
        };
        let Some(item) = popup.items.get(popup.selected) else {
            return;
        };
        let mut insert = item.insert.clone();
        if !self.text[popup.range.end..].starts_with(char::is_whitespace) {
            insert.push(' ');
        }
        self.text.replace_range(popup.range.clone(), &insert);
        self.cursor = popup.range.start + insert.len();
        self.edited();
    }

    /// How the submitted prompt `text` is echoed: with its large pastes
    /// collapsed to the placeholders the box showed (`[Pasted text #1 +30
    /// lines]`) when it is one of the recent submissions that had any
    /// (that entry is then forgotten); else `text` itself. The model still
    /// gets `text`.
    pub fn shown_form(&mut self, text: &str) -> String {
        match self.shown_forms.iter().position(|(full, _)| full == text) {
            Some(at) => self
                .shown_forms
                .remove(at)
                .map_or_else(|| text.to_string(), |(_, shown)| shown),
            None => text.to_string(),
        }
    }

    /// Enter: the text becomes a [`Submission`] and the box empties.
    pub(crate) fn submit(&mut self) -> crate::ComposerEvent {
        let raw = std::mem::take(&mut self.text);
        self.cursor = 0;
        let expanded = self.pastes.expand(&raw);
        self.pastes.clear();
        self.popup = None;
        self.dismissed = None;
        self.preferred_col = None;
        let trimmed = expanded.trim();
        if trimmed.is_empty() {
            return ComposerEvent::Changed;
        }
        if expanded != raw {
            if self.shown_forms.len() == SHOWN_FORMS_MAX {
                self.shown_forms.pop_front();
            }
            let shown = (trimmed.to_string(), raw.trim().to_string());
            self.shown_forms.push_back(shown);
        }
        self.warnings.extend(self.history.record(trimmed));
        let mut submission = classify(trimmed);
        if let Submission::Prompt { mentions, .. } = &mut submission {
            *mentions = find_mentions(&raw, &self.config.project_root);
        }
        ComposerEvent::Submit(submission)
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

/// The `@path` tokens of the typed text that name existing files or
/// directories under `root`, in order, without repeats.
fn find_mentions(text: &str, root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for token in text.split_whitespace() {
        let Some(path) = token.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches([',', '.', ';', ':', ')', '!', '?', '"', '\'']);
        if path.is_empty() {
            continue;
        }
        let path = PathBuf::from(path);
        if root.join(&path).exists() && !found.contains(&path) {
            found.push(path);
        }
    }
    found
}
