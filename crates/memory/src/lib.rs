//! The memory hierarchy: every instruction file a session starts with, in
//! Claude Code's order, plus the subfolders' files loaded later.
//!
//! Where the files are ([`Sources`], see `sources`), in this order:
//! 1. the managed policy file (`/etc/claude-code/CLAUDE.md`, or the path
//!    the caller was given: `ORBIT_MANAGED_MEMORY_PATH`);
//! 2. the user's: `~/.claude/CLAUDE.md` (`$CLAUDE_CONFIG_DIR/CLAUDE.md`)
//!    and `~/.claude/rules/*.md`;
//! 3. each parent folder from the top down to the working directory's
//!    parent, then the working directory: its `CLAUDE.md`,
//!    `.claude/CLAUDE.md`, `.claude/rules/*.md` (sorted by path) and
//!    `CLAUDE.local.md`;
//! 4. `AGENTS.md` from the project root (the git root, else the working
//!    directory) down to the working directory, as Codex reads them.
//!
//! Each file's `@path` imports (see `imports`) follow it, depth first, at
//! most [`MAX_IMPORT_DEPTH`] deep; a file already loaded is not loaded
//! again (a cycle is cut with one warning). Data flow: [`load`] reads every
//! file through `orbit_untrusted` as [`Access`] allows (a regular file
//! only; a link or import out of its project only from a user file or in a
//! trusted folder; never a target the deny predicate refuses) and cuts each
//! at [`Caps::file_bytes`] and all at [`Caps::total_bytes`] with a stated
//! line; every file it skips is one line through [`Access::warn`]. The
//! caller renders the [`MemoryFile`]s ([`render`]) into its prompt.
//! [`NestedMemory`] does the same for a subfolder's files when the model
//! first reads a file there.

#![deny(missing_docs)]

mod imports;
mod load;
mod nested;
pub mod output_style;
mod sources;

use std::path::{Path, PathBuf};

pub use imports::{Import, imports};
pub use load::load;
pub use nested::{NestedMemory, SharedDeny, SharedWarn};
pub use sources::{MANAGED_MEMORY_PATH, Sources, project_root};

/// Largest part of one memory file that is sent, in bytes.
pub const MEMORY_FILE_MAX_BYTES: usize = 40 * 1024;
/// Largest total of all memory files sent at the start of a session, in
/// bytes (every byte is paid on every request).
pub const MEMORY_TOTAL_MAX_BYTES: usize = 128 * 1024;
/// Imports are followed at most this many levels deep (Claude Code's 5).
pub const MAX_IMPORT_DEPTH: usize = 5;
/// At most this many `.claude/rules/*.md` files are read per folder.
pub const MAX_RULE_FILES: usize = 100;

/// How much of the memory files is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Per file, in bytes.
    pub file_bytes: usize,
    /// All files together, in bytes.
    pub total_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Self {
            file_bytes: MEMORY_FILE_MAX_BYTES,
            total_bytes: MEMORY_TOTAL_MAX_BYTES,
        }
    }
}

/// How memory files may be read, and where a skipped file's one warning
/// line goes.
pub struct Access<'a> {
    /// The folder is trusted: links and imports out of the project are
    /// followed.
    pub trusted: bool,
    /// Final targets no memory file may be read from (the Read deny rules,
    /// the sandbox's deny list).
    pub deny: &'a dyn Fn(&Path) -> bool,
    /// Receives `skipped CLAUDE.md: …` for a file that was not read.
    pub warn: &'a mut dyn FnMut(&str),
}

/// Which part of the hierarchy a file comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// The managed policy file.
    Managed,
    /// The user's own (`~/.claude`).
    User,
    /// A parent folder's checked-in file.
    Parent,
    /// The working directory's checked-in file (CLAUDE.md, .claude/…,
    /// AGENTS.md).
    Project,
    /// A `CLAUDE.local.md` (the user's, not checked in).
    Local,
    /// Imported by the file with this label.
    Imported(String),
    /// A subfolder's file, loaded when a file there was first read.
    Nested,
}

impl Kind {
    /// What the prompt's heading says about the file.
    pub fn description(&self) -> String {
        match self {
            Kind::Managed => "managed policy instructions for every user of this machine".into(),
            Kind::User => "user's private instructions for all projects".into(),
            Kind::Parent => "project instructions from a parent folder".into(),
            Kind::Project => "project instructions from the working directory".into(),
            Kind::Local => "user's private project instructions, not checked in".into(),
            Kind::Imported(by) => format!("imported by {by}"),
            Kind::Nested => "instructions for this folder".into(),
        }
    }
}

/// One loaded memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// The path it was found at.
    pub path: PathBuf,
    /// The file read (canonical).
    pub target: PathBuf,
    /// Its name in the prompt: relative to the working directory, under
    /// `~/`, or absolute.
    pub label: String,
    /// Where it comes from.
    pub kind: Kind,
    /// Its text, trimmed (cut when over a cap).
    pub text: String,
    /// The stated line when the text was cut.
    pub cut: Option<String>,
}

impl MemoryFile {
    /// `# LABEL (description; follow them)`, the text, and the cut line.
    pub fn section(&self) -> String {
        let mut section = format!(
            "# {} ({}; follow them)\n{}",
            self.label,
            self.kind.description(),
            self.text
        );
        match &self.cut {
            Some(line) => {
                section.push('\n');
                section.push_str(line);
                section.push('\n');
            }
            None => section.push('\n'),
        }
        section
    }
}

/// What [`load`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    /// The files, in prompt order.
    pub files: Vec<MemoryFile>,
    /// The stated line when the total cap left files out.
    pub over_total: Option<String>,
}

/// The sections of `memory`, each preceded by a blank line (as the default
/// prompt appends them after its environment facts).
pub fn render(memory: &Memory) -> String {
    let mut out = String::new();
    for file in &memory.files {
        out.push('\n');
        out.push_str(&file.section());
    }
    if let Some(line) = &memory.over_total {
        out.push('\n');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `path` as the prompt names it: relative to `cwd` when under it, `~/…`
/// under `home`, else absolute.
pub fn label(path: &Path, cwd: &Path, home: Option<&Path>) -> String {
    if let Ok(rel) = path.strip_prefix(cwd)
        && !rel.as_os_str().is_empty()
    {
        return rel.display().to_string();
    }
    if let Some(home) = home
        && let Ok(rel) = path.strip_prefix(home)
        && !rel.as_os_str().is_empty()
    {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

/// A list of the memory files a session loaded (start and nested), shared
/// by the session's parts that show it (`/memory`, the SDK's `init`): its
/// clones share one list.
#[derive(Debug, Clone, Default)]
pub struct LoadedMemory {
    files: std::sync::Arc<std::sync::Mutex<Vec<(PathBuf, String)>>>,
}

/// The key of [`LoadedMemory`] among a tool context's extensions.
pub const LOADED_MEMORY_KEY: &str = "orbit-memory/loaded";

impl LoadedMemory {
    /// Records a loaded file (its path and label), once.
    pub fn push(&self, path: PathBuf, label: String) {
        let mut files = match self.files.lock() {
            Ok(files) => files,
            Err(poisoned) => poisoned.into_inner(),
        };
        if !files.iter().any(|(p, _)| *p == path) {
            files.push((path, label));
        }
    }

    /// The files loaded so far: (path, label), in load order.
    pub fn files(&self) -> Vec<(PathBuf, String)> {
        match self.files.lock() {
            Ok(files) => files.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}
