//! The plain-folder backend (a project outside git): a snapshot is a stat
//! manifest of every file under the project — size, mtime, inode, mode —
//! with each content copied once into the store under its SHA-256
//! (`objects/<2 hex>/<64 hex>`). A file whose stat matches the previous
//! snapshot's is not read again: only changed files cost a read and a copy.
//!
//! Caps (a home directory is not snapshotted by accident):
//! [`PLAIN_MAX_FILES`] files and [`PLAIN_MAX_TOTAL_BYTES`] in the project,
//! above which checkpoints are off for the session (one line); a file over
//! [`PLAIN_FILE_MAX_BYTES`] is listed as not restorable. Files are read
//! through `orbit_untrusted` (regular files only, links not followed out).

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::state::{FileEntry, MODE_EXEC, MODE_FILE, MODE_LINK, State};
use crate::{CheckpointError, NotRestorable};

/// Most files a plain project may hold for checkpoints to be taken.
pub const PLAIN_MAX_FILES: usize = 50_000;
/// Most bytes (all files' sizes) a plain project may hold for checkpoints.
pub const PLAIN_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// A file larger than this is not copied (listed as not restorable).
pub const PLAIN_FILE_MAX_BYTES: u64 = 32 * 1024 * 1024;

/// What the last snapshot saw of one file: enough to know it is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    size: u64,
    mtime_ns: i128,
    ino: u64,
    entry: FileEntry,
}

/// Path → stamp, kept between snapshots (`stamps.json`).
pub(crate) type Stamps = BTreeMap<String, Stamp>;

/// One plain snapshot.
pub(crate) struct PlainSnapshot {
    pub(crate) state: State,
    pub(crate) stamps: Stamps,
    pub(crate) added_bytes: u64,
    pub(crate) not_restorable: Vec<NotRestorable>,
}

/// Snapshots `root` into `store`, reusing `prev`'s ids for unchanged files.
pub(crate) fn snapshot(
    root: &Path,
    store: &Path,
    prev: &Stamps,
) -> Result<PlainSnapshot, CheckpointError> {
    let mut files = Vec::new();
    let mut total = 0u64;
    walk(root, root, store, &mut files, &mut total)?;
    let mut snap = PlainSnapshot {
        state: State::new(),
        stamps: Stamps::new(),
        added_bytes: 0,
        not_restorable: Vec::new(),
    };
    for (rel, path, meta) in files {
        let mtime_ns = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
        // A chmod changes neither size nor mtime: the mode is compared too.
        let mode = if meta.file_type().is_symlink() {
            MODE_LINK
        } else if meta.permissions().mode() & 0o111 != 0 {
            MODE_EXEC
        } else {
            MODE_FILE
        };
        if let Some(old) = prev.get(&rel)
            && old.size == meta.len()
            && old.mtime_ns == mtime_ns
            && old.ino == meta.ino()
            && old.entry.mode == mode
        {
            snap.state.insert(rel.clone(), old.entry.clone());
            snap.stamps.insert(rel, old.clone());
            continue;
        }
        let (bytes, mode) = if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).map_err(CheckpointError::io(&path))?;
            (target.into_os_string().into_encoded_bytes(), MODE_LINK)
        } else if meta.len() > PLAIN_FILE_MAX_BYTES {
            snap.not_restorable.push(NotRestorable::new(
                &rel,
                format!("over {} MiB", PLAIN_FILE_MAX_BYTES >> 20),
            ));
            continue;
        } else {
            let cap = usize::try_from(PLAIN_FILE_MAX_BYTES).unwrap_or(usize::MAX);
            let opts = orbit_untrusted::ReadOpts::in_project(root, cap).refuse_over_cap();
            match orbit_untrusted::read_untrusted(&path, &opts) {
                Ok(file) => (file.bytes, mode),
                Err(err) => {
                    snap.not_restorable
                        .push(NotRestorable::new(&rel, err.to_string()));
                    continue;
                }
            }
        };
        let id = hex(&Sha256::digest(&bytes));
        snap.added_bytes += store_object(store, &id, &bytes)?;
        let entry = FileEntry { id, mode };
        snap.state.insert(rel.clone(), entry.clone());
        snap.stamps.insert(
            rel,
            Stamp {
                size: meta.len(),
                mtime_ns,
                ino: meta.ino(),
                entry,
            },
        );
    }
    Ok(snap)
}

/// Every regular file and link under `dir` (not the store itself).
fn walk(
    root: &Path,
    dir: &Path,
    store: &Path,
    files: &mut Vec<(String, PathBuf, std::fs::Metadata)>,
    total: &mut u64,
) -> Result<(), CheckpointError> {
    let entries = std::fs::read_dir(dir).map_err(CheckpointError::io(dir))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            // Orbit's own session files, when its data directory is inside
            // the project, are not the project's.
            if store.ancestors().nth(2) != Some(path.as_path()) {
                walk(root, &path, store, files, total)?;
            }
            continue;
        }
        if !meta.is_file() && !meta.file_type().is_symlink() {
            continue;
        }
        let Some(rel) = path
            .strip_prefix(root)
            .ok()
            .and_then(|r| r.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        *total += meta.len();
        files.push((rel, path, meta));
        if files.len() > PLAIN_MAX_FILES || *total > PLAIN_MAX_TOTAL_BYTES {
            return Err(CheckpointError::OverCap(format!(
                "checkpoints are off for this session: the project holds more than {PLAIN_MAX_FILES} files or {} MiB outside git",
                PLAIN_MAX_TOTAL_BYTES >> 20
            )));
        }
    }
    Ok(())
}

/// Where object `id` lives in `store`.
pub(crate) fn object_path(store: &Path, id: &str) -> PathBuf {
    let (head, _) = id.split_at(id.len().min(2));
    store.join("objects").join(head).join(id)
}

/// Writes `bytes` as object `id` unless it is there; the bytes added.
fn store_object(store: &Path, id: &str, bytes: &[u8]) -> Result<u64, CheckpointError> {
    let path = object_path(store, id);
    if path.exists() {
        return Ok(0);
    }
    crate::disk::write_atomic(&path, bytes)?;
    Ok(bytes.len() as u64)
}

/// The content of object `id`.
pub(crate) fn read_object(store: &Path, id: &str) -> Result<Vec<u8>, CheckpointError> {
    let path = object_path(store, id);
    std::fs::read(&path).map_err(CheckpointError::io(&path))
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
