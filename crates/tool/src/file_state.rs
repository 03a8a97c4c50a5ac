//! The file-state cache behind read-before-write (T5): what each file looked
//! like when a tool last read or wrote it.
//!
//! Read records a [`FileState`] for every file it reads; Write asks
//! [`FileStateCache::check_fresh`] before replacing an existing file, Edit
//! asks [`FileStateCache::check_not_modified`] (as Claude Code 2.1.332: a
//! file never read may be edited, its exact `old_string` match proves the
//! model knows the text); both record the state they leave behind, so a
//! following Edit needs no re-read.
//! Entries are keyed by the canonical path ([`state_key`]), so `a/../b`, a
//! symlink and the target are one file.

use std::collections::HashMap;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

pub use crate::texts::tools::{MODIFIED_MESSAGE, NOT_READ_MESSAGE};

/// Buffer size for streaming a file through the hasher, in bytes.
const HASH_BUF_BYTES: usize = 64 * 1024;

/// A file's observed state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// Size in bytes when read or written.
    pub size: u64,
    /// Modification time when read or written.
    pub mtime: Option<SystemTime>,
    /// sha256 of the content, hex. Empty when the content was not seen
    /// whole (a partial Read of a large file): then any change of size or
    /// mtime counts as a modification.
    pub hash: String,
}

impl FileState {
    /// The state of a file whose whole content is `bytes`.
    pub fn from_content(meta: &Metadata, bytes: &[u8]) -> Self {
        Self {
            size: meta.len(),
            mtime: meta.modified().ok(),
            hash: sha256_hex(bytes),
        }
    }

    /// Reads and hashes the file at `path` as it is now.
    pub fn observe(path: &Path) -> io::Result<Self> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; HASH_BUF_BYTES];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(Self {
            size: meta.len(),
            mtime: meta.modified().ok(),
            hash: to_hex(&hasher.finalize()),
        })
    }
}

/// Why a Write/Edit of an existing file is refused (T5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StaleFileError {
    #[error("{}", NOT_READ_MESSAGE)]
    /// The file was never read in this session.
    NotRead,
    #[error("{}", MODIFIED_MESSAGE)]
    /// The file changed on disk since it was read.
    Modified,
}

#[derive(Debug, Default)]
/// Per-session read-before-write state, by canonical path.
pub struct FileStateCache {
    entries: Mutex<HashMap<PathBuf, FileState>>,
}

impl FileStateCache {
    /// Records what a read or write saw.
    pub fn record(&self, path: &Path, state: FileState) {
        let mut g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.insert(path.to_path_buf(), state);
    }

    /// What was recorded for `path`.
    pub fn get(&self, path: &Path) -> Option<FileState> {
        let g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.get(path).cloned()
    }

    /// Forgets `path` (it was deleted or moved).
    pub fn forget(&self, path: &Path) {
        let mut g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.remove(path);
    }

    /// T5: Ok when the existing file at `path` was read (or written) in this
    /// session and is unchanged since. Size differs → modified; same size
    /// and mtime → unchanged without reading; mtime differs → the content
    /// hash decides (a `touch` or a rewrite with equal bytes is no change).
    pub fn check_fresh(&self, path: &Path) -> Result<(), StaleFileError> {
        let key = state_key(path);
        let Some(recorded) = self.get(&key) else {
            return Err(StaleFileError::NotRead);
        };
        let Ok(meta) = fs::metadata(&key) else {
            return Err(StaleFileError::Modified);
        };
        if meta.len() != recorded.size {
            return Err(StaleFileError::Modified);
        }
        if meta.modified().ok() == recorded.mtime {
            return Ok(());
        }
        if recorded.hash.is_empty() {
            return Err(StaleFileError::Modified);
        }
        match FileState::observe(&key) {
            Ok(now) if now.hash == recorded.hash => {
                // Same bytes: remember the new mtime so the next check is cheap.
                self.record(&key, now);
                Ok(())
            }
            _ => Err(StaleFileError::Modified),
        }
    }

    /// Edit's check (Claude Code 2.1.332): Ok when the file was never read
    /// in this session (the exact `old_string` match is the proof the model
    /// knows the text), or was read (or written) and is unchanged since;
    /// [`StaleFileError::Modified`] when it changed on disk since.
    pub fn check_not_modified(&self, path: &Path) -> Result<(), StaleFileError> {
        match self.check_fresh(path) {
            Err(StaleFileError::NotRead) => Ok(()),
            other => other,
        }
    }
}

/// The cache key of `path`: canonical when it exists; for a missing file,
/// the canonical parent joined with the file name (so a file created later
/// keeps the same key); the path itself otherwise.
pub fn state_key(path: &Path) -> PathBuf {
    if let Ok(c) = fs::canonicalize(path) {
        return c;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => match fs::canonicalize(parent) {
            Ok(p) => p.join(name),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}

/// The lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// Lowercase hex of a digest.
pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(path: &Path, content: &str) {
        let mut f = File::create(path).unwrap();
        f.write_all(content.as_bytes()).unwrap();
    }

    /// `a.txt` holding "hello" in a temp dir, recorded as read in a fresh
    /// cache.
    fn recorded() -> (tempfile::TempDir, PathBuf, FileStateCache) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write(&p, "hello");
        let cache = FileStateCache::default();
        cache.record(&state_key(&p), FileState::observe(&p).unwrap());
        (dir, p, cache)
    }

    #[test]
    fn unread_file_is_refused() {
        let (_dir, p, _) = recorded();
        let cache = FileStateCache::default();
        assert_eq!(cache.check_fresh(&p), Err(StaleFileError::NotRead));
        assert_eq!(cache.check_not_modified(&p), Ok(()));
        assert_eq!(StaleFileError::NotRead.to_string(), NOT_READ_MESSAGE);
        assert_eq!(StaleFileError::Modified.to_string(), MODIFIED_MESSAGE);
    }

    /// What happened to a recorded file since decides whether it is fresh;
    /// any spelling of an unchanged file's path is fresh. Each case changes
    /// the file and names the path to check.
    #[test]
    fn changes_since_the_read() {
        type Change = fn(&Path) -> PathBuf;
        let table: [(&str, Change, Result<(), StaleFileError>); 4] = [
            ("unchanged", Path::to_path_buf, Ok(())),
            (
                "spelled with a dot",
                |p| p.with_file_name(".").join("a.txt"),
                Ok(()),
            ),
            (
                "grown",
                |p| {
                    write(p, "hello world");
                    p.to_path_buf()
                },
                Err(StaleFileError::Modified),
            ),
            (
                "deleted",
                |p| {
                    fs::remove_file(p).unwrap();
                    p.to_path_buf()
                },
                Err(StaleFileError::Modified),
            ),
        ];
        for (what, change, expected) in table {
            let (_dir, p, cache) = recorded();
            let path = change(&p);
            assert_eq!(cache.check_fresh(&path), expected, "{what}");
            // Once read, Edit's check is the same.
            assert_eq!(cache.check_not_modified(&path), expected, "{what}");
        }
    }

    #[test]
    fn same_size_new_mtime_is_decided_by_hash() {
        let (_dir, p, cache) = recorded();
        let mut state = FileState::observe(&p).unwrap();
        // Pretend the read happened at another mtime: same bytes → fresh.
        state.mtime = Some(SystemTime::UNIX_EPOCH);
        cache.record(&state_key(&p), state.clone());
        assert_eq!(cache.check_fresh(&p), Ok(()));
        // Different bytes of the same size → modified.
        cache.record(&state_key(&p), state.clone());
        write(&p, "HELLO");
        assert_eq!(cache.check_fresh(&p), Err(StaleFileError::Modified));
        // Unknown hash (partial read) and a new mtime → modified.
        state.hash.clear();
        cache.record(&state_key(&p), state);
        assert_eq!(cache.check_fresh(&p), Err(StaleFileError::Modified));
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
