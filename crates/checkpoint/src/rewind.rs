//! Code rewind: bring the project back to a checkpoint, refusing to
//! overwrite what someone other than orbit changed since.
//!
//! [`rewind_code`] restores the snapshot taken before prompt `n` (the
//! first prompt from `n` on that wrote: a prompt that wrote nothing changed
//! nothing). Orbit's own changes are what happened between a prompt's
//! `before` and `after` checkpoints; every other difference along the
//! chain (between one prompt's `after` and the next one's `before`, and
//! between the last checkpoint and now) was made outside orbit. A path in
//! that set that the rewind would change is a conflict: refused by name
//! unless `force`. Before anything is written the current tree is recorded
//! as a `rewind` checkpoint, which [`undo`] goes back to.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use crate::state::{MODE_EXEC, MODE_LINK, State, changed_paths};
use crate::store::{Checkpoint, Kind, Store};
use crate::{CheckpointError, NotRestorable};

/// What a rewind did.
#[derive(Debug, Clone, Default)]
pub struct RewindReport {
    /// Files written back (restored or re-created).
    pub restored: Vec<String>,
    /// Files removed (created after the checkpoint).
    pub removed: Vec<String>,
    /// Files changed outside orbit that `force` overwrote.
    pub forced: Vec<String>,
    /// What the checkpoints say cannot be brought back.
    pub not_restorable: Vec<NotRestorable>,
    /// The checkpoint taken first (what `--undo` restores); None when
    /// there was nothing to do (or a preview).
    pub undo_checkpoint: Option<u32>,
    /// Lines the rewind adds back, over the text files it changes.
    pub insertions: usize,
    /// Lines the rewind takes away, over the text files it changes.
    pub deletions: usize,
}

/// Restores the project to before prompt `to`.
pub fn rewind_code(
    store: &mut Store,
    to: u32,
    force: bool,
) -> Result<RewindReport, CheckpointError> {
    let live: Vec<Checkpoint> = live(store);
    let Some(start) = live
        .iter()
        .position(|c| c.kind == Kind::Before && c.prompt >= to)
    else {
        return Ok(RewindReport::default());
    };
    let target = store.state(&live[start].snapshot)?;
    let current = store.snapshot()?;
    let mut outside = BTreeSet::new();
    let mut known = target.clone();
    for checkpoint in &live[start + 1..] {
        let state = store.state(&checkpoint.snapshot)?;
        match checkpoint.kind {
            Kind::After => known = state,
            Kind::Before => {
                outside.extend(changed_paths(&known, &state));
                known = state;
            }
            Kind::Rewind => {
                outside.extend(changed_paths(&known, &state));
                known = match &checkpoint.restored_to {
                    Some(id) => store.state(id)?,
                    None => state,
                };
            }
        }
    }
    outside.extend(changed_paths(&known, &current.state));
    let mut not_restorable: Vec<NotRestorable> = Vec::new();
    for item in live[start..].iter().flat_map(|c| c.not_restorable.iter()) {
        if !not_restorable.contains(item) {
            not_restorable.push(item.clone());
        }
    }
    let target_id = live[start].snapshot.clone();
    let mut report = apply(store, &target, &target_id, current, &outside, force)?;
    report.not_restorable = not_restorable;
    Ok(report)
}

/// What [`rewind_code`] to prompt `to` would change, without changing
/// anything (the SDK's `dry_run`): the files it would write or remove
/// and the lines it would add and take away.
pub fn preview_code(store: &mut Store, to: u32) -> Result<RewindReport, CheckpointError> {
    let live = live(store);
    let Some(target) = live
        .iter()
        .find(|c| c.kind == Kind::Before && c.prompt >= to)
    else {
        return Ok(RewindReport::default());
    };
    let target = store.state(&target.snapshot)?;
    let current = store.snapshot()?;
    let mut report = RewindReport::default();
    let to_change = changed_paths(&target, &current.state);
    (report.insertions, report.deletions) = line_counts(store, &current.state, &target, &to_change);
    for path in to_change {
        match target.contains_key(&path) {
            true => report.restored.push(path),
            false => report.removed.push(path),
        }
    }
    Ok(report)
}

/// Lines added and removed going from `from` to `to` over `paths` (a
/// file that is not UTF-8 counts none): a rewind's size, a picker row's
/// diff size.
pub fn line_counts(
    store: &Store,
    from: &State,
    to: &State,
    paths: &BTreeSet<String>,
) -> (usize, usize) {
    let text = |state: &State, path: &str| {
        state
            .get(path)
            .and_then(|e| store.read(&e.id).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_default()
    };
    let (mut added, mut removed) = (0, 0);
    for path in paths {
        let (old, new) = (text(from, path), text(to, path));
        for change in similar::TextDiff::from_lines(&old, &new).iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    (added, removed)
}

/// Undoes the last rewind: back to the tree it replaced.
pub fn undo(store: &mut Store, force: bool) -> Result<RewindReport, CheckpointError> {
    let Some(last) = live(store)
        .into_iter()
        .rev()
        .find(|c| c.kind == Kind::Rewind)
    else {
        return Err(CheckpointError::Nothing("no rewind to undo".into()));
    };
    let target = store.state(&last.snapshot)?;
    let current = store.snapshot()?;
    let restored = match &last.restored_to {
        Some(id) => store.state(id)?,
        None => target.clone(),
    };
    let outside = changed_paths(&restored, &current.state);
    apply(store, &target, &last.snapshot, current, &outside, force)
}

/// The checkpoints no conversation rewind retired.
fn live(store: &Store) -> Vec<Checkpoint> {
    store
        .manifest
        .checkpoints
        .iter()
        .filter(|c| c.retired.is_none())
        .cloned()
        .collect()
}

/// Checks conflicts, records the undo point and writes `target` over the
/// project.
fn apply(
    store: &mut Store,
    target: &State,
    target_id: &str,
    current: crate::store::Snapshot,
    outside: &BTreeSet<String>,
    force: bool,
) -> Result<RewindReport, CheckpointError> {
    let to_change = changed_paths(target, &current.state);
    let conflicts: Vec<String> = to_change.intersection(outside).cloned().collect();
    if !conflicts.is_empty() && !force {
        return Err(CheckpointError::Conflict(conflicts));
    }
    let mut report = RewindReport {
        forced: conflicts,
        ..RewindReport::default()
    };
    if to_change.is_empty() {
        return Ok(report);
    }
    (report.insertions, report.deletions) = line_counts(store, &current.state, target, &to_change);
    let id = store.record(0, Kind::Rewind, &current)?.id;
    if let Some(last) = store.manifest.checkpoints.last_mut() {
        last.restored_to = Some(target_id.to_string());
    }
    store.save()?;
    report.undo_checkpoint = Some(id);
    let root = store.root().to_path_buf();
    for path in to_change {
        let dest = safe_join(&root, &path)?;
        match target.get(&path) {
            Some(entry) => {
                let bytes = store.read(&entry.id)?;
                write_file(&dest, &bytes, entry.mode)?;
                report.restored.push(path);
            }
            None => {
                remove_file(&root, &dest)?;
                report.removed.push(path);
            }
        }
    }
    Ok(report)
}

/// `root/rel`, refusing a path that leaves the project (`..`, absolute)
/// or goes through a link.
fn safe_join(root: &Path, rel: &str) -> Result<PathBuf, CheckpointError> {
    let rel_path = Path::new(rel);
    if rel_path
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(CheckpointError::Damaged(format!("unsafe path {rel}")));
    }
    let mut dir = root.to_path_buf();
    if let Some(parent) = rel_path.parent() {
        for part in parent.components() {
            dir.push(part);
            match std::fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Err(CheckpointError::Damaged(format!(
                        "{rel}: {} is not a directory now",
                        dir.display()
                    )));
                }
                Err(_) => std::fs::create_dir(&dir).map_err(CheckpointError::io(&dir))?,
            }
        }
    }
    Ok(root.join(rel_path))
}

fn write_file(dest: &Path, bytes: &[u8], mode: u32) -> Result<(), CheckpointError> {
    if let Ok(meta) = std::fs::symlink_metadata(dest)
        && meta.is_dir()
    {
        std::fs::remove_dir_all(dest).map_err(CheckpointError::io(dest))?;
    }
    if mode == MODE_LINK {
        let _ = std::fs::remove_file(dest);
        let target = std::ffi::OsString::from(String::from_utf8_lossy(bytes).into_owned());
        return std::os::unix::fs::symlink(target, dest).map_err(CheckpointError::io(dest));
    }
    let tmp = dest.with_file_name(format!(
        ".{}.orbit-rewind",
        dest.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).map_err(CheckpointError::io(&tmp))?;
    let perm = if mode == MODE_EXEC { 0o755 } else { 0o644 };
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(perm))
        .map_err(CheckpointError::io(&tmp))?;
    std::fs::rename(&tmp, dest).map_err(CheckpointError::io(dest))
}

/// Removes `dest`, then the directories above it that it leaves empty.
fn remove_file(root: &Path, dest: &Path) -> Result<(), CheckpointError> {
    match std::fs::remove_file(dest) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(CheckpointError::io(dest)(e)),
    }
    let mut dir = dest.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}
