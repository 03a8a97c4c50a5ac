//! Submitted prompts, walked with ↑/↓ and persisted across sessions.
//!
//! Data flow: [`History::load`] reads the JSON-lines file once (one
//! `{"text", "project", "ts"}` object per submission), keeps the last
//! [`HISTORY_LOAD_LIMIT`] entries of this project and skips lines it cannot
//! parse. [`History::record`] appends a line (the file is created 0600).
//! I/O problems come back as a warning string — only the first one, so an
//! unwritable file does not nag on every prompt — and never stop the box.
//! [`History::older`] / [`History::newer`] walk the entries; the draft that
//! was in the box when the walk began comes back at the bottom.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many of this project's entries are loaded.
pub(crate) const HISTORY_LOAD_LIMIT: usize = 1_000;

/// One line of the history file.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    text: String,
    project: String,
    #[serde(default)]
    ts: u64,
}

/// The prompts of this project, oldest first, and the walk through them.
#[derive(Debug, Default)]
pub(crate) struct History {
    entries: Vec<String>,
    file: Option<PathBuf>,
    project: String,
    /// The entry shown while walking (`None`: the draft is shown).
    index: Option<usize>,
    /// What was in the box when the walk started.
    draft: String,
    warned: bool,
}

impl History {
    /// Loads `file`'s entries for `project`; a warning when it is unreadable.
    pub fn load(file: Option<PathBuf>, project: &Path) -> (Self, Option<String>) {
        let mut history = Self {
            file,
            project: project.to_string_lossy().into_owned(),
            ..Self::default()
        };
        let Some(path) = history.file.clone() else {
            return (history, None);
        };
        let content = match std::fs::read_to_string(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (history, None),
            Err(e) => {
                let warning = history.warn(&path, &e);
                return (history, warning);
            }
        };
        let mut entries: Vec<String> = content
            .lines()
            .filter_map(|l| serde_json::from_str::<Line>(l).ok())
            .filter(|l| l.project == history.project)
            .map(|l| l.text)
            .collect();
        let skip = entries.len().saturating_sub(HISTORY_LOAD_LIMIT);
        entries.drain(..skip);
        history.entries = entries;
        (history, None)
    }

    /// Remembers a submission and appends it to the file.
    pub fn record(&mut self, text: &str) -> Option<String> {
        self.reset_walk();
        if self.entries.last().is_some_and(|l| l == text) {
            return None;
        }
        self.entries.push(text.to_string());
        let path = self.file.clone()?;
        let line = Line {
            text: text.to_string(),
            project: self.project.clone(),
            ts: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        match append(&path, &line) {
            Ok(()) => None,
            Err(e) => self.warn(&path, &e),
        }
    }

    /// ↑ past the top: the next older entry, saving `current` as the draft
    /// when the walk starts; `None` at the oldest entry.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let next = match self.index {
            None => self.entries.len().checked_sub(1)?,
            Some(0) => return None,
            Some(i) => i - 1,
        };
        if self.index.is_none() {
            self.draft = current.to_string();
        }
        self.index = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// ↓ past the bottom: the next newer entry, or the draft after the
    /// newest; `None` when not walking.
    pub fn newer(&mut self) -> Option<String> {
        let i = self.index?;
        if i + 1 < self.entries.len() {
            self.index = Some(i + 1);
            return self.entries.get(i + 1).cloned();
        }
        self.index = None;
        Some(std::mem::take(&mut self.draft))
    }

    /// Editing ends the walk: the edited text is the new draft.
    pub fn reset_walk(&mut self) {
        self.index = None;
        self.draft.clear();
    }

    fn warn(&mut self, path: &Path, error: &std::io::Error) -> Option<String> {
        if std::mem::replace(&mut self.warned, true) {
            return None;
        }
        Some(format!(
            "prompt history {} is not usable ({error}); history is kept in memory only",
            path.display()
        ))
    }
}

/// Appends one JSON line, creating the file (0600) and its directory.
fn append(path: &Path, line: &Line) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut json = serde_json::to_string(line).map_err(std::io::Error::other)?;
    json.push('\n');
    options.open(path)?.write_all(json.as_bytes())
}
