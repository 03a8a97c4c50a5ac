//! A subfolder's memory files, loaded when the model first reads a file
//! there (Claude Code's nested memory): [`NestedMemory::for_read`] is told
//! the file a Read showed and returns a `<system-reminder>` block per new
//! file of each folder between the working directory (exclusive) and the
//! file's folder — `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and
//! their imports — for the caller to append to that Read's result. Each
//! folder is looked at once and each file sent at most once per session;
//! files the session started with are never sent again. Reads go through
//! the same loader as the start's (`orbit_untrusted`, the caps, the deny
//! predicate, the folder's trust); a skipped file is one line through the
//! `warn` callback.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::load::Loader;
use crate::sources::{Candidate, Root, folder_files, project_root};
use crate::{Access, Caps, Kind, LoadedMemory, Sources};

/// A deny predicate that can be kept for the session.
pub type SharedDeny = Arc<dyn Fn(&Path) -> bool + Send + Sync>;
/// Where a nested file's skip line goes.
pub type SharedWarn = Arc<dyn Fn(&str) + Send + Sync>;

/// The session's nested memory: what was looked at and sent so far.
pub struct NestedMemory {
    sources: Sources,
    trusted: bool,
    deny: SharedDeny,
    warn: SharedWarn,
    caps: Caps,
    loaded: LoadedMemory,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Folders already looked at.
    folders: HashSet<PathBuf>,
    /// Canonical targets already sent (or loaded at the start).
    seen: HashSet<PathBuf>,
}

impl std::fmt::Debug for NestedMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NestedMemory")
            .field("cwd", &self.sources.cwd)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

impl NestedMemory {
    /// Nested memory under `sources.cwd`; `loaded` lists the files the
    /// session started with (never sent again) and receives the new ones.
    pub fn new(
        sources: Sources,
        trusted: bool,
        deny: SharedDeny,
        warn: SharedWarn,
        loaded: LoadedMemory,
    ) -> Self {
        let seen = loaded
            .files()
            .into_iter()
            .filter_map(|(path, _)| path.canonicalize().ok())
            .collect();
        Self {
            sources,
            trusted,
            deny,
            warn,
            caps: Caps::default(),
            loaded,
            state: Mutex::new(State {
                folders: HashSet::new(),
                seen,
            }),
        }
    }

    /// The reminders for a Read of `file` (absolute): None when every
    /// folder on its way was looked at already or holds nothing new.
    pub fn for_read(&self, file: &Path) -> Option<String> {
        let cwd = &self.sources.cwd;
        let folder = file.parent()?;
        let below = folder.strip_prefix(cwd).ok()?;
        let mut state = match self.state.lock() {
            Ok(state) => state,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut candidates = Vec::new();
        let root = Root::Project(project_root(cwd));
        let mut dir = cwd.clone();
        for part in below.components() {
            dir.push(part);
            if !state.folders.insert(dir.clone()) {
                continue;
            }
            for path in folder_files(&dir) {
                candidates.push(Candidate {
                    path,
                    kind: Kind::Nested,
                    root: root.clone(),
                    imports: true,
                });
            }
        }
        if candidates.is_empty() {
            return None;
        }
        let mut lines = Vec::new();
        let mut warn = |line: &str| lines.push(line.to_string());
        let deny = |p: &Path| (self.deny)(p);
        let mut access = Access {
            trusted: self.trusted,
            deny: &deny,
            warn: &mut warn,
        };
        let mut loader = Loader::new(&self.sources, self.caps, &mut access)
            .with_seen(state.seen.iter().cloned());
        for candidate in &candidates {
            loader.candidate(candidate);
        }
        state.seen.extend(loader.seen().iter().cloned());
        let memory = loader.finish();
        drop(state);
        for line in &lines {
            (self.warn)(line);
        }
        let blocks: Vec<String> = memory
            .files
            .iter()
            .map(|file| {
                self.loaded.push(file.path.clone(), file.label.clone());
                let cut = file
                    .cut
                    .as_ref()
                    .map_or(String::new(), |line| format!("{line}\n"));
                format!(
                    "<system-reminder>\nContents of {}:\n\n{}\n{cut}</system-reminder>",
                    file.path.display(),
                    file.text
                )
            })
            .collect();
        (!blocks.is_empty()).then(|| blocks.join("\n"))
    }
}
