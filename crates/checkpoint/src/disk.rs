//! The store's disk primitives, below both backends and the [`Store`]
//! itself: JSON files read leniently and written whole (a temporary file
//! and a rename, so a crash leaves the old file or the new one, never half
//! of one), and the bytes a directory holds (the store's cap).
//!
//! [`Store`]: crate::Store

use std::path::Path;

use serde::Serialize;

use crate::CheckpointError;

/// `path`'s JSON as `T`; None when it is missing or does not parse.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Writes `value` as JSON to `path`, whole ([`write_atomic`]).
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), CheckpointError> {
    let bytes = serde_json::to_vec(value).map_err(|e| CheckpointError::Damaged(e.to_string()))?;
    write_atomic(path, &bytes)
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(CheckpointError::io(dir))?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(CheckpointError::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(CheckpointError::io(path))
}

/// Bytes of the files under `dir` (0 when it does not exist).
pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}
