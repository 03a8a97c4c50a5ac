//! The one before/after mechanism for what a call changed: [`Probe::before`]
//! records, for each path a writing call names (its facts' `writes`, which
//! for a shell command are the shell analysis's), the path's size, mtime
//! and the SHA-256 of its content; [`Probe::changed`] compares the paths
//! again after the call and returns those that differ (created, removed or
//! modified).
//!
//! Used by the checkpoint hook to list the files each prompt changed;
//! meant as well for a "this command changed nothing" line and a shell
//! edit's diff. Cost: one `stat` per path, and one read of each regular
//! file up to [`PROBE_HASH_MAX_BYTES`] (larger files are compared by size
//! and mtime only); a call that names no path costs nothing.
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

use sha2::{Digest, Sha256};

/// Files larger than this are compared by size and mtime only.
pub const PROBE_HASH_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// What a path was before a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStamp {
    /// Size in bytes (None: the path did not exist).
    pub size: Option<u64>,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// SHA-256 of the content (regular files up to the hash cap).
    pub hash: Option<[u8; 32]>,
}

impl PathStamp {
    /// The path's stamp now.
    pub fn of(path: &Path) -> Self {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return Self {
                size: None,
                mtime_ns: 0,
                hash: None,
            };
        };
        let hash = (meta.is_file() && meta.len() <= PROBE_HASH_MAX_BYTES)
            .then(|| hash_file(path))
            .flatten();
        Self {
            size: Some(meta.len()),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            hash,
        }
    }
}

/// The stamps of a call's paths, taken before it ran.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    before: Vec<(PathBuf, PathStamp)>,
}

impl Probe {
    /// Stamps `paths` now.
    pub fn before(paths: &[PathBuf]) -> Self {
        Self {
            before: paths
                .iter()
                .map(|p| (p.clone(), PathStamp::of(p)))
                .collect(),
        }
    }

    /// The paths whose stamp differs now (in the order given).
    pub fn changed(&self) -> Vec<PathBuf> {
        self.before
            .iter()
            .filter(|(path, stamp)| {
                let now = PathStamp::of(path);
                match (&stamp.hash, &now.hash) {
                    (Some(a), Some(b)) => a != b,
                    _ => now != *stamp,
                }
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// The paths probed.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.before.iter().map(|(p, _)| p.as_path())
    }
}

/// SHA-256 of a regular file (read as a file orbit did not write).
fn hash_file(path: &Path) -> Option<[u8; 32]> {
    let cap = usize::try_from(PROBE_HASH_MAX_BYTES).unwrap_or(usize::MAX);
    let file =
        orbit_untrusted::read_untrusted(path, &orbit_untrusted::ReadOpts::user_file(cap)).ok()?;
    Some(Sha256::digest(&file.bytes).into())
}
