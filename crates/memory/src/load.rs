//! Reading memory files and their imports: [`load`] walks the candidates
//! of [`Sources`] in order; [`Loader::file`] reads one through
//! `orbit_untrusted` (the candidate's root decides whether a link out is
//! followed), applies the caps, and follows its `@path` imports depth
//! first. A missing candidate is skipped silently; every other skip (a
//! refused file, a missing, cyclic, denied, too deep or outside import) is
//! exactly one line through [`Access::warn`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, UntrustedError, read_untrusted};

use crate::imports::{Import, imports};
use crate::sources::{Candidate, Root};
use crate::{Access, Caps, Kind, MAX_IMPORT_DEPTH, Memory, MemoryFile, Sources, label};

/// Skip lines given per load; the rest are counted in one line.
const MAX_WARNINGS: usize = 20;

/// Files left out by the total cap that the prompt's line names (the rest
/// are counted).
const LEFT_OUT_NAMED: usize = 10;

/// Every memory file of `sources`, in prompt order.
pub fn load(sources: &Sources, caps: Caps, access: &mut Access<'_>) -> Memory {
    let mut loader = Loader::new(sources, caps, access);
    for candidate in sources.candidates() {
        loader.candidate(&candidate);
    }
    loader.finish()
}

/// The state of one load: what was loaded, the bytes so far.
pub(crate) struct Loader<'s, 'a, 'b> {
    sources: &'s Sources,
    caps: Caps,
    access: &'a mut Access<'b>,
    files: Vec<MemoryFile>,
    /// Canonical targets loaded (or being loaded) so far.
    seen: HashSet<PathBuf>,
    total_bytes: usize,
    left_out: Vec<String>,
    /// Warning lines given so far.
    warned: usize,
}

/// The import being followed: who imports it, the chain above it.
struct Importing<'x> {
    word: &'x Import,
    by: &'x MemoryFile,
    chain: &'x [PathBuf],
}

impl<'s, 'a, 'b> Loader<'s, 'a, 'b> {
    pub(crate) fn new(sources: &'s Sources, caps: Caps, access: &'a mut Access<'b>) -> Self {
        Self {
            sources,
            caps,
            access,
            files: Vec::new(),
            seen: HashSet::new(),
            total_bytes: 0,
            left_out: Vec::new(),
            warned: 0,
        }
    }

    /// Marks targets already loaded elsewhere (a session's start, for
    /// nested files).
    pub(crate) fn with_seen(mut self, seen: impl IntoIterator<Item = PathBuf>) -> Self {
        self.seen.extend(seen);
        self
    }

    /// Reads one top-level candidate and its imports.
    pub(crate) fn candidate(&mut self, candidate: &Candidate) {
        self.file(candidate, None);
    }

    /// The targets loaded (or seen) so far.
    pub(crate) fn seen(&self) -> &HashSet<PathBuf> {
        &self.seen
    }

    pub(crate) fn finish(self) -> Memory {
        if self.warned > MAX_WARNINGS {
            let more = self.warned - MAX_WARNINGS;
            (self.access.warn)(&format!(
                "skipped {more} more memory files or imports (not listed)"
            ));
        }
        let over_total = (!self.left_out.is_empty()).then(|| {
            let mut names = self.left_out[..self.left_out.len().min(LEFT_OUT_NAMED)].join(", ");
            if self.left_out.len() > LEFT_OUT_NAMED {
                names.push_str(&format!(
                    " and {} more",
                    self.left_out.len() - LEFT_OUT_NAMED
                ));
            }
            format!(
                "[memory files left out: {names} (over the {} KiB total cap)]",
                self.caps.total_bytes / 1024
            )
        });
        Memory {
            files: self.files,
            over_total,
        }
    }

    fn label(&self, path: &Path) -> String {
        label(path, &self.sources.cwd, self.sources.home.as_deref())
    }

    /// One line per skip, the first [`MAX_WARNINGS`] of them (a file
    /// full of missing imports must not flood stderr); `finish` counts the
    /// rest.
    fn warn(&mut self, line: &str) {
        self.warned += 1;
        if self.warned <= MAX_WARNINGS {
            (self.access.warn)(line);
        }
    }

    /// Reads `candidate` (imported as `import` says) and its imports.
    fn file(&mut self, candidate: &Candidate, import: Option<Importing<'_>>) {
        let name = self.label(&candidate.path);
        let skipped = |why: &str| match &import {
            Some(i) => format!(
                "skipped @{} (imported by {}): {why}",
                i.word.path, i.by.label
            ),
            None => format!("skipped {name}: {why}"),
        };
        let chain: Vec<PathBuf> = import.as_ref().map_or(Vec::new(), |i| i.chain.to_vec());
        let target = match candidate.path.canonicalize() {
            Ok(target) => target,
            Err(err) => {
                let err = UntrustedError::from(err);
                let quiet = import.as_ref().is_none_or(|i| i.word.is_bare_word());
                if !(err.is_not_found() && quiet) {
                    self.warn(&skipped(&err.to_string()));
                }
                return;
            }
        };
        if chain.contains(&target) {
            self.warn(&skipped("an import cycle, cut here"));
            return;
        }
        if self.seen.contains(&target) {
            return;
        }
        if self.total_bytes >= self.caps.total_bytes {
            // Not read at all: one line for the first, the rest counted.
            if self.left_out.is_empty() {
                self.warn(&skipped(&format!(
                    "the memory files' {} KiB total cap is reached (later files are left out too)",
                    self.caps.total_bytes / 1024
                )));
            }
            self.left_out.push(name);
            return;
        }
        let follow_out = self.access.trusted || candidate.root == Root::User;
        if let (Some(_), Root::Project(root)) = (&import, &candidate.root)
            && !follow_out
            && !target.starts_with(root.canonicalize().unwrap_or_else(|_| root.clone()))
        {
            self.warn(&skipped(&format!(
                "{} is outside the project (imports out of a project are followed only from user files or in a trusted folder)",
                target.display()
            )));
            return;
        }
        let opts = match &candidate.root {
            Root::User => ReadOpts::user_file(self.caps.file_bytes),
            Root::Project(root) => ReadOpts::in_project(root, self.caps.file_bytes),
        }
        .follow_links_out(follow_out)
        .deny(self.access.deny);
        let read = match read_untrusted(&candidate.path, &opts) {
            Ok(read) => read,
            Err(err) if err.is_not_found() && import.is_none() => return,
            Err(err) => {
                self.warn(&skipped(&err.to_string()));
                return;
            }
        };
        self.seen.insert(target.clone());
        let text = read.text();
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let remaining = self.caps.total_bytes.saturating_sub(self.total_bytes);
        let mut cut = None;
        let mut text = text.to_string();
        if read.truncated {
            cut = Some(format!(
                "[{name} truncated: showing the first {} of {} bytes]",
                read.bytes.len(),
                read.size
            ));
        }
        if text.len() > remaining {
            let size = text.len();
            let mut at = remaining;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.truncate(at);
            cut = Some(format!(
                "[{name} truncated: showing the first {at} of {size} bytes (the memory files' {} KiB total cap)]",
                self.caps.total_bytes / 1024
            ));
        }
        self.total_bytes += text.len();
        let words = if candidate.imports {
            imports(&text)
        } else {
            Vec::new()
        };
        let kind = match &import {
            Some(i) => Kind::Imported(i.by.label.clone()),
            None => candidate.kind.clone(),
        };
        let file = MemoryFile {
            path: candidate.path.clone(),
            target: target.clone(),
            label: name,
            kind,
            text,
            cut,
        };
        self.files.push(file.clone());
        if words.is_empty() {
            return;
        }
        let mut chain = chain;
        chain.push(target);
        for word in &words {
            self.import(candidate, &file, word, &chain);
        }
    }

    /// Follows one `@path` of `by` (found at `from`).
    fn import(&mut self, from: &Candidate, by: &MemoryFile, word: &Import, chain: &[PathBuf]) {
        if chain.len() > MAX_IMPORT_DEPTH {
            self.warn(&format!(
                "skipped @{} (imported by {}): deeper than {MAX_IMPORT_DEPTH} imports",
                word.path, by.label
            ));
            return;
        }
        let path = if let Some(rest) = word.path.strip_prefix("~/") {
            match &self.sources.home {
                Some(home) => home.join(rest),
                None => {
                    self.warn(&format!(
                        "skipped @{} (imported by {}): no home folder is known",
                        word.path, by.label
                    ));
                    return;
                }
            }
        } else {
            let base = from.path.parent().unwrap_or(Path::new("/"));
            // `./x` and `a/./b` named without their `.` parts.
            base.join(&word.path).components().collect()
        };
        let candidate = Candidate {
            path,
            kind: from.kind.clone(),
            root: from.root.clone(),
            imports: true,
        };
        self.file(&candidate, Some(Importing { word, by, chain }));
    }
}
