//! The one before/after mechanism for what a call changed: [`Probe::before`]
//! records, for each path a writing call names (its facts' `writes`, which
//! for a shell command are the shell analysis's), the path's kind, size,
//! mtime and the SHA-256 of its content; [`Probe::changed`] compares the
//! paths again after the call and returns those that differ (created,
//! removed or modified).
//!
//! [`Probe::keeping`] also keeps each small regular file's bytes (one read
//! gives the hash and the copy), so [`Probe::changes`] can return the
//! content before and after of each changed path, for a diff; and
//! [`Probe::unchanged`] the paths left byte-identical, for a "this command
//! changed no file" line. Used by the checkpoint hook to list the files
//! each prompt changed, and by the Bash tool for both.
//!
//! Files are hostile (a command the model wrote names them): only a path's
//! own `lstat` is taken (a link is stamped as a link, never followed); a
//! FIFO, a device or a directory is never opened; a regular file is read
//! through `orbit_untrusted` (non-blocking, `O_NOFOLLOW`, re-checked after
//! the open), at most [`PROBE_HASH_MAX_BYTES`] (larger files are compared
//! by size and mtime only, [`NotKept::TooLarge`]). With a project root
//! ([`Probe::keeping`]) a path whose directories lead out of the project
//! through a link is not read ([`NotKept::LinkOut`]); a path outside the
//! project is read only when no link is on its way. Kept copies are capped
//! per file ([`PROBE_KEEP_FILE_MAX_BYTES`]) and in all
//! ([`PROBE_KEEP_TOTAL_MAX_BYTES`]).
//!
//! Cost: one `lstat` per path, and one read of each regular file up to the
//! hash cap; a call that names no path costs nothing.
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("a.txt");
//! let probe = orbit_checkpoint::Probe::before(&[path.clone()]);
//! std::fs::write(&path, "new").unwrap();
//! assert_eq!(probe.changed(), [path]);
//! ```

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use orbit_tool::workspace::lexical;
use orbit_untrusted::{ReadOpts, read_untrusted};
use sha2::{Digest, Sha256};

/// Files larger than this are compared by size and mtime only.
pub const PROBE_HASH_MAX_BYTES: u64 = 8 * 1024 * 1024;
/// Largest file whose bytes [`Probe::keeping`] keeps for a diff.
pub const PROBE_KEEP_FILE_MAX_BYTES: usize = 1024 * 1024;
/// Most bytes [`Probe::keeping`] keeps over all its paths (before and,
/// separately, after).
pub const PROBE_KEEP_TOTAL_MAX_BYTES: usize = 4 * 1024 * 1024;

/// What a path was, by its own `lstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StampKind {
    /// Nothing there.
    Missing,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed).
    Link,
    /// A FIFO, socket or device (never opened).
    Special,
}

/// What a path was before a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStamp {
    /// Its kind.
    pub kind: StampKind,
    /// Size in bytes (None: the path did not exist).
    pub size: Option<u64>,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// SHA-256 of the content (regular files up to the hash cap).
    pub hash: Option<[u8; 32]>,
}

/// Why a path's bytes were not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotKept {
    /// Not a regular file (of this kind).
    NotRegular(StampKind),
    /// A regular file over the cap (its size in bytes).
    TooLarge(u64),
    /// Reached through a link out of the project: not read.
    LinkOut,
    /// It could not be read (refused, or an I/O error).
    Unreadable,
    /// The probe's total cap was spent, or the probe keeps no bytes.
    NotAsked,
}

/// A path's content as a probe saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// The path did not exist.
    Absent,
    /// A regular file's bytes.
    Bytes(Vec<u8>),
    /// It existed, its bytes were not kept.
    NotKept(NotKept),
}

/// One path a call changed: its content before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path (as given to the probe).
    pub path: PathBuf,
    /// Before the call.
    pub before: Content,
    /// After the call.
    pub after: Content,
}

/// The stamps of a call's paths, taken before it ran.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    entries: Vec<Entry>,
    /// `Some`: bytes are kept, and reads stay inside this project.
    root: Option<PathBuf>,
}

#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    stamp: PathStamp,
    kept: Content,
}

impl PathStamp {
    /// The path's stamp now.
    pub fn of(path: &Path) -> Self {
        look(path, None, &mut 0).0
    }

    fn missing() -> Self {
        Self {
            kind: StampKind::Missing,
            size: None,
            mtime_ns: 0,
            hash: None,
        }
    }

    /// Whether `now` differs from this stamp: by content when both were
    /// hashed, else by kind, size or mtime.
    fn differs(&self, now: &Self) -> bool {
        match (&self.hash, &now.hash) {
            (Some(a), Some(b)) => a != b,
            _ => now != self,
        }
    }
}

impl Probe {
    /// Stamps `paths` now (no bytes kept; links in directories followed).
    pub fn before(paths: &[PathBuf]) -> Self {
        Self {
            entries: paths
                .iter()
                .map(|p| Entry {
                    path: p.clone(),
                    stamp: PathStamp::of(p),
                    kept: Content::NotKept(NotKept::NotAsked),
                })
                .collect(),
            root: None,
        }
    }

    /// Stamps `paths` now and keeps the bytes of each small regular file,
    /// reading nothing through a link out of `root` (see the module docs).
    pub fn keeping(paths: &[PathBuf], root: &Path) -> Self {
        let mut budget = PROBE_KEEP_TOTAL_MAX_BYTES;
        let entries = paths
            .iter()
            .map(|p| {
                let (stamp, kept) = look(p, Some(root), &mut budget);
                Entry {
                    path: p.clone(),
                    stamp,
                    kept,
                }
            })
            .collect();
        Self {
            entries,
            root: Some(root.to_path_buf()),
        }
    }

    /// The paths whose stamp differs now (in the order given).
    pub fn changed(&self) -> Vec<PathBuf> {
        self.entries
            .iter()
            .filter(|e| {
                e.stamp
                    .differs(&look(&e.path, self.root.as_deref(), &mut 0).0)
            })
            .map(|e| e.path.clone())
            .collect()
    }

    /// The paths that differ now, each with its content before and after
    /// (kept bytes only from [`Probe::keeping`]).
    pub fn changes(&self) -> Vec<Change> {
        let mut budget = if self.root.is_some() {
            PROBE_KEEP_TOTAL_MAX_BYTES
        } else {
            0
        };
        let mut out = Vec::new();
        for e in &self.entries {
            let (now, after) = look(&e.path, self.root.as_deref(), &mut budget);
            if e.stamp.differs(&now) {
                out.push(Change {
                    path: e.path.clone(),
                    before: e.kept.clone(),
                    after,
                });
            }
        }
        out
    }

    /// The paths probed, each with its stamp before the call.
    pub fn stamps(&self) -> impl Iterator<Item = (&Path, &PathStamp)> {
        self.entries.iter().map(|e| (e.path.as_path(), &e.stamp))
    }

    /// The paths probed.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.entries.iter().map(|e| e.path.as_path())
    }
}

/// The stamp of `path` and its bytes when kept: with `root`, within the
/// rules of the module docs and while `budget` lasts (spent by what is
/// kept); without, hashed through links as the checkpoint hook always did.
fn look(path: &Path, root: Option<&Path>, budget: &mut usize) -> (PathStamp, Content) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return (PathStamp::missing(), Content::Absent);
    };
    let file_type = meta.file_type();
    let kind = if file_type.is_file() {
        StampKind::File
    } else if file_type.is_dir() {
        StampKind::Dir
    } else if file_type.is_symlink() {
        StampKind::Link
    } else {
        StampKind::Special
    };
    let mut stamp = PathStamp {
        kind,
        size: Some(meta.len()),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        hash: None,
    };
    if kind != StampKind::File {
        return (stamp, Content::NotKept(NotKept::NotRegular(kind)));
    }
    if meta.len() > PROBE_HASH_MAX_BYTES {
        return (stamp, Content::NotKept(NotKept::TooLarge(meta.len())));
    }
    let cap = usize::try_from(PROBE_HASH_MAX_BYTES).unwrap_or(usize::MAX);
    let read = match root {
        None => read_untrusted(path, &ReadOpts::user_file(cap)),
        Some(root) => {
            let Some(within) = confining_dir(path, root) else {
                return (stamp, Content::NotKept(NotKept::LinkOut));
            };
            // The containment is checked on the canonical target.
            match read_untrusted(path, &ReadOpts::in_project(&within, cap)) {
                Err(orbit_untrusted::UntrustedError::LinkOut { .. }) => {
                    return (stamp, Content::NotKept(NotKept::LinkOut));
                }
                other => other,
            }
        }
    };
    let Ok(file) = read else {
        return (stamp, Content::NotKept(NotKept::Unreadable));
    };
    if file.truncated {
        return (stamp, Content::NotKept(NotKept::TooLarge(file.size)));
    }
    stamp.hash = Some(Sha256::digest(&file.bytes).into());
    let kept = if root.is_some() && file.bytes.len() <= PROBE_KEEP_FILE_MAX_BYTES.min(*budget) {
        *budget -= file.bytes.len();
        Content::Bytes(file.bytes)
    } else if file.bytes.len() > PROBE_KEEP_FILE_MAX_BYTES {
        Content::NotKept(NotKept::TooLarge(file.size))
    } else {
        Content::NotKept(NotKept::NotAsked)
    };
    (stamp, kept)
}

/// The directory a read of `path` must stay in: the project `root` when
/// `path` is inside it; else `path`'s own directory when no link is on
/// the way to it (its canonical form is itself); else none.
fn confining_dir(path: &Path, root: &Path) -> Option<PathBuf> {
    let root = lexical(root);
    if lexical(path).starts_with(&root) {
        return Some(root);
    }
    let parent = path.parent()?;
    (parent.canonicalize().ok()? == parent).then(|| parent.to_path_buf())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
