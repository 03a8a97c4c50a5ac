//! The step every file-changing tool shares (Write, Edit): putting bytes on
//! disk atomically. A tool resolves its path, [`write_target`] follows a
//! symlink to the file it names, [`atomic_write`] replaces that file through
//! a temp file (or leaves it untouched when the call was cancelled) and
//! returns the new [`FileState`] for the tool to record (T5). It also holds
//! [`MAX_EDIT_FILE_BYTES`], the cap on the old content either tool reads.
//! A leaf: it imports no tool module.

use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::file_state::FileState;

/// Largest file Edit reads, in bytes (16 MiB; Claude Code allows 1 GiB,
/// but an edit holds the old and the new content and the UI diffs them,
/// and a model-named file must not exhaust memory). Write reads an
/// overwritten file's old content for its patch up to the same cap.
pub const MAX_EDIT_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// How many temp-file names are tried before giving up.
const TEMP_NAME_ATTEMPTS: u32 = 16;

/// Why [`atomic_write`] left the target as it was.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The call's cancel token fired before the file was replaced.
    Cancelled,
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// Where bytes for `path` go: through a symlink to its target (so the link
/// survives the rename), else the path itself.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `content` to `target` so that readers see the old file or the new
/// one, never a mix: a temp file in the same directory (same filesystem, so
/// rename is atomic), fsynced, given the old file's permissions, renamed
/// over `target`. Returns the state of the written file. When `cancel` has
/// fired before the rename, the temp file is removed and the target is left
/// untouched.
pub(crate) fn atomic_write(
    target: &Path,
    content: &[u8],
    cancel: &CancellationToken,
) -> Result<FileState, WriteError> {
    static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);
    if cancel.is_cancelled() {
        return Err(WriteError::Cancelled);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let old_permissions = fs::metadata(target).ok().map(|m| m.permissions());

    let mut opened = None;
    for _ in 0..TEMP_NAME_ATTEMPTS {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.orbit-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => {
                opened = Some((f, tmp));
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    let Some((mut file, tmp)) = opened else {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temp file name").into());
    };
    let written = (|| {
        // Permissions first: a 0o600 file's new content is never readable
        // through a temp file with the default (umask) mode.
        if let Some(p) = old_permissions {
            file.set_permissions(p)?;
        }
        file.write_all(content)?;
        file.sync_all()?;
        drop(file);
        // The last moment the write can still be called off.
        if cancel.is_cancelled() {
            return Err(WriteError::Cancelled);
        }
        fs::rename(&tmp, target)?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // Persist the rename itself; best effort (not every filesystem allows
    // opening a directory for sync).
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    let meta = fs::metadata(target)?;
    Ok(FileState::from_content(&meta, content))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn atomic_write_keeps_mode_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o750)).unwrap();
        let state = atomic_write(&p, b"new content", &CancellationToken::new()).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new content");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o750
        );
        assert_eq!(state, FileState::observe(&p).unwrap());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run.sh")]);
    }

    #[test]
    fn cancelled_atomic_write_leaves_target_and_directory_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("keep.txt");
        fs::write(&p, "old").unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let out = atomic_write(&p, b"new", &cancel);
        assert!(matches!(out, Err(WriteError::Cancelled)), "{out:?}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn write_target_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(write_target(&link), fs::canonicalize(&real).unwrap());
    }
}
