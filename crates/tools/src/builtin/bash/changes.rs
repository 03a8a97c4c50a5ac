//! What a shell command changed, among the files the shell analysis says
//! it writes (`sed -i FILE`, `> f`, `mv a b`, `tee`, `perl -pi`, …).
//!
//! Flow: before the run, [`watch`] parses the command (`orbit_shell`),
//! resolves its written paths against the session cwd as the Bash facts
//! do (a plain glob's files found as bash will find them, `globs`), and takes their before-state with the checkpoint crate's one
//! before/after mechanism ([`Probe::keeping`]: kind, size, mtime, hash, the
//! bytes of small files; no link followed out of the project, no FIFO
//! opened, big files compared by size and mtime only). A command that
//! names no written path costs one parse and nothing else. After the run,
//! [`Watch::finish`] compares them again:
//! - nothing changed, every named path that existed a regular file whose
//!   bytes were compared, and the paths are where the cwd puts them (no
//!   `cd`, every path known, no `touch`/`chmod`, whose point is not the
//!   bytes): one note line for the model — "this command
//!   changed no file" when the analysis says it can write nothing else
//!   ([`orbit_shell::Script::writes_are_named`]), else "left F unchanged";
//! - files changed: for each, Edit's [`FileChange`] shape (hunks of the
//!   content before → after, a created file all added) or an
//!   [`UnshownChange`] with the reason (removed, not text, over the cap),
//!   at most [`CHANGES_MAX_FILES`] files and [`CHANGE_MAX_PATCH_LINES`]
//!   lines of [`PATCH_LINE_MAX_CHARS`] each, for the embedder (the UI's
//!   diff), never for the model;
//! - a command that only prints (`sed` without `-i`, `sort FILE`) names no
//!   written path: nothing is claimed.

use std::path::{Path, PathBuf};

use orbit_checkpoint::{Change, Content, NotKept, PROBE_KEEP_FILE_MAX_BYTES, Probe, StampKind};
use orbit_tool::texts::tools::bash as texts;
use orbit_tool::{ChangeKind, FileChange, PatchHunk, UnshownChange};

use super::facts::resolve;
use super::globs;
use crate::builtin::patch::structured_patch;

/// Most paths probed for one command; a command naming more is not
/// watched (no note, no diff).
pub(crate) const WATCH_MAX_PATHS: usize = 64;
/// Most changed files reported with their hunks; the others are unshown.
pub(crate) const CHANGES_MAX_FILES: usize = 20;
/// Most hunk lines reported per file (whole hunks while they fit).
pub(crate) const CHANGE_MAX_PATCH_LINES: usize = 200;
/// Longest hunk line reported, in chars (a minified file's one line).
pub(crate) const PATCH_LINE_MAX_CHARS: usize = 500;
/// Most file names the note lists before "and N more".
const NOTE_MAX_NAMES: usize = 5;

/// What may be said when the named files are unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    /// The command can write no other file: "changed no file".
    Whole,
    /// It may write others: "left F unchanged".
    Named,
    /// Its paths may not be where the cwd puts them: nothing.
    Nothing,
}

/// The before-state of one command's written paths.
#[derive(Debug)]
pub(crate) struct Watch {
    probe: Probe,
    /// Each probed path as the command wrote it.
    shown: Vec<String>,
    claim: Claim,
}

/// What [`Watch::finish`] found.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Outcome {
    /// The line for the model when nothing changed.
    pub(crate) note: Option<String>,
    /// The note says the command changed no file at all (not only that
    /// the named files are unchanged).
    pub(crate) changed_no_file: bool,
    /// Changed files with hunks.
    pub(crate) changes: Vec<FileChange>,
    /// Changed files without hunks.
    pub(crate) unshown: Vec<UnshownChange>,
}

/// The before-state of what `command` names as written, resolved against
/// `cwd`, reads confined to `root`; `None` when it names nothing (or too
/// much, or does not parse).
pub(crate) fn watch(command: &str, cwd: &Path, root: &Path) -> Option<Watch> {
    let script = orbit_shell::parse(command).ok()?;
    let access = script.file_access();
    if access.writes.is_empty() {
        return None;
    }
    let (mut paths, mut shown): (Vec<PathBuf>, Vec<String>) = (Vec::new(), Vec::new());
    let mut add = |path: PathBuf, written: String| {
        if !paths.contains(&path) {
            paths.push(path);
            shown.push(written);
        }
    };
    // A plain glob's files replace the directory the analysis names in
    // its place (one occurrence per glob expanded).
    let mut expanded: Vec<String> = Vec::new();
    for (pattern, root) in script.written_globs() {
        let Some(files) = globs::expand(cwd, &pattern, WATCH_MAX_PATHS) else {
            continue;
        };
        expanded.push(root);
        for file in files {
            let written = file
                .strip_prefix(cwd)
                .map_or_else(|_| file.display().to_string(), |r| r.display().to_string());
            add(file, written);
        }
    }
    for written in access.writes {
        if let Some(at) = expanded.iter().position(|root| *root == written) {
            expanded.remove(at);
            continue;
        }
        add(resolve(cwd, &written), written);
    }
    if paths.len() > WATCH_MAX_PATHS {
        return None;
    }
    let claim = if !access.complete || script.changes_directory() || sets_metadata(&script) {
        Claim::Nothing
    } else if script.writes_are_named() {
        Claim::Whole
    } else {
        Claim::Named
    };
    Some(Watch {
        probe: Probe::keeping(&paths, root),
        shown,
        claim,
    })
}

/// Commands whose point is a file's metadata, not its bytes: "unchanged"
/// would read as "it failed".
const METADATA_COMMANDS: &[&str] = &["touch", "chmod", "chown", "chgrp"];

/// Whether `script` runs one of [`METADATA_COMMANDS`] (or is more than
/// simple commands).
fn sets_metadata(script: &orbit_shell::Script) -> bool {
    script.simple_commands().is_none_or(|commands| {
        commands
            .iter()
            .any(|c| c.name().is_some_and(|n| METADATA_COMMANDS.contains(&n)))
    })
}

impl Watch {
    /// Compares the paths again (see the module docs).
    pub(crate) fn finish(self) -> Outcome {
        let changes = self.probe.changes();
        if changes.is_empty() {
            let note = self.note();
            return Outcome {
                changed_no_file: note.is_some() && self.claim == Claim::Whole,
                note,
                ..Outcome::default()
            };
        }
        let mut outcome = Outcome::default();
        for change in changes {
            if outcome.changes.len() >= CHANGES_MAX_FILES {
                outcome
                    .unshown
                    .push(unshown(change.path, "more changed files than shown"));
                continue;
            }
            match file_change(change) {
                Ok(c) => outcome.changes.push(c),
                Err(u) => outcome.unshown.push(u),
            }
        }
        outcome
    }

    /// The note when no path changed, if it can be said truthfully.
    fn note(&self) -> Option<String> {
        if self.claim == Claim::Nothing {
            return None;
        }
        let mut names = Vec::new();
        for ((_, stamp), shown) in self.probe.stamps().zip(&self.shown) {
            match stamp.kind {
                StampKind::Missing => {}
                // Compared by its bytes: it is unchanged.
                StampKind::File if stamp.hash.is_some() => names.push(shown.as_str()),
                // A directory's files, a link's target, a big file's
                // bytes were not compared.
                _ => return None,
            }
        }
        if names.is_empty() {
            return None;
        }
        let list = name_list(&names);
        Some(match self.claim {
            Claim::Whole => texts::changed_no_file_note(&list),
            _ => texts::named_files_unchanged_note(&list),
        })
    }
}

/// `a, b and 3 more`.
fn name_list(names: &[&str]) -> String {
    let shown = names.len().min(NOTE_MAX_NAMES);
    let mut list = names[..shown].join(", ");
    if names.len() > shown {
        list.push_str(&format!(" and {} more", names.len() - shown));
    }
    list
}

fn unshown(file: PathBuf, reason: &str) -> UnshownChange {
    UnshownChange {
        file,
        reason: reason.to_string(),
    }
}

/// One changed path as hunks, or why it has none.
fn file_change(change: Change) -> Result<FileChange, UnshownChange> {
    let text = |content: &Content| -> Result<Option<String>, String> {
        match content {
            Content::Absent => Ok(None),
            Content::Bytes(b) => String::from_utf8(b.clone())
                .map(Some)
                .map_err(|_| "not text".to_string()),
            Content::NotKept(why) => Err(not_kept_reason(*why)),
        }
    };
    let path = change.path;
    let after = match text(&change.after) {
        Ok(Some(after)) => after,
        Ok(None) => return Err(unshown(path, "removed")),
        Err(reason) => return Err(unshown(path, &reason)),
    };
    let (kind, before) = match text(&change.before) {
        Ok(None) => (ChangeKind::Create, String::new()),
        Ok(Some(before)) => (ChangeKind::Update, before),
        Err(reason) => return Err(unshown(path, &reason)),
    };
    Ok(FileChange {
        file: path,
        kind,
        structured_patch: bounded(structured_patch(&before, &after)),
        original: None,
    })
}

fn not_kept_reason(why: NotKept) -> String {
    match why {
        NotKept::NotRegular(StampKind::Dir) => "a directory".into(),
        NotKept::NotRegular(StampKind::Link) => "a symbolic link".into(),
        NotKept::NotRegular(_) => "not a regular file".into(),
        NotKept::TooLarge(_) => format!("over {} KiB", PROBE_KEEP_FILE_MAX_BYTES / 1024),
        NotKept::LinkOut => "reached through a link out of the project: not read".into(),
        NotKept::Unreadable => "could not be read".into(),
        NotKept::NotAsked => "over the size cap of all files shown".into(),
    }
}

/// Whole hunks while they fit in [`CHANGE_MAX_PATCH_LINES`] (the first
/// one cut to it when alone too long), each line at most
/// [`PATCH_LINE_MAX_CHARS`].
fn bounded(hunks: Vec<PatchHunk>) -> Vec<PatchHunk> {
    let mut out: Vec<PatchHunk> = Vec::new();
    let mut lines = 0;
    for mut hunk in hunks {
        if lines + hunk.lines.len() > CHANGE_MAX_PATCH_LINES {
            if out.is_empty() {
                hunk.lines.truncate(CHANGE_MAX_PATCH_LINES);
                out.push(hunk);
            }
            break;
        }
        lines += hunk.lines.len();
        out.push(hunk);
    }
    for line in out.iter_mut().flat_map(|h| h.lines.iter_mut()) {
        if let Some((cut, _)) = line.char_indices().nth(PATCH_LINE_MAX_CHARS) {
            line.truncate(cut);
            line.push('…');
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
