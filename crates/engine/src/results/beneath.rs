//! Writing one file beneath a directory that something else may be able to
//! change: the session directory is a writable root of the Bash sandbox, so
//! a sandboxed command can put a symlink, a FIFO or a file where orbit
//! expects `tool-results/` or a temp file. Every step here is relative to a
//! directory descriptor and refuses links, so unsandboxed orbit never
//! writes outside that directory.
//!
//! Flow of [`write_beneath`]: open `parent` (`O_DIRECTORY|O_NOFOLLOW`) →
//! `mkdirat(child)` (an existing one is fine) → open `child` relative to
//! it, again `O_DIRECTORY|O_NOFOLLOW` (a symlink or a non-directory is
//! refused) → create the temp file with `O_CREAT|O_EXCL|O_NOFOLLOW`, mode
//! `0o600`, write it → `renameat` it over the final name inside the same
//! directory descriptor (a link placed at the final name is replaced, never
//! followed) → check that the path handed back to the model still leads to
//! the file written; if it does not (the directory was swapped meanwhile),
//! the file is removed and the write fails.

use std::ffi::OsStr;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
use nix::sys::stat::{FileStat, Mode, fstat, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Mode of a directory orbit creates for results (tool output may hold
/// secrets).
const PRIVATE_DIR_MODE: u32 = 0o700;
/// Mode of a result file.
const PRIVATE_FILE_MODE: u32 = 0o600;

/// Why a write beneath a directory failed; `path` is the path that failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum BeneathError {
    /// `parent` or `parent/child` could not be created or opened as a real
    /// directory (a symlink is refused: `ELOOP`; a file: `ENOTDIR`).
    #[error("{path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be created, written or renamed into place.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// After the write, `path` no longer leads to the file written (the
    /// directory was replaced while orbit wrote); the file was removed.
    #[error("{path} no longer leads to the file written; not used")]
    Moved {
        /// The final path.
        path: PathBuf,
    },
}

fn io(e: Errno) -> std::io::Error {
    std::io::Error::from_raw_os_error(e as i32)
}

/// Opens `name` relative to `dir` (or the path itself with `dir` None) as
/// a real directory: no symlink in the last component.
fn open_dir<Fd: AsFd>(dir: Fd, name: &Path) -> nix::Result<OwnedFd> {
    openat(
        dir,
        name,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
}

fn same_file(a: &FileStat, b: &FileStat) -> bool {
    a.st_dev == b.st_dev && a.st_ino == b.st_ino
}

/// Writes `bytes` to `parent/child/name` (see the module docs); `tmp` is
/// the temp file's name in the same directory. `parent` is created with its
/// ancestors when missing (ancestors are the user's own path and may be
/// links; `parent` itself may not). Returns `parent/child/name`.
pub(super) fn write_beneath(
    parent: &Path,
    child: &OsStr,
    name: &OsStr,
    tmp: &OsStr,
    bytes: &[u8],
) -> Result<PathBuf, BeneathError> {
    let child_path = parent.join(child);
    let final_path = child_path.join(name);
    let dir_err = |path: &Path| {
        let path = path.to_path_buf();
        move |e: Errno| BeneathError::Dir {
            path,
            source: io(e),
        }
    };
    std::fs::create_dir_all(parent).map_err(|source| BeneathError::Dir {
        path: parent.to_path_buf(),
        source,
    })?;
    let parent_fd = open_dir(nix::fcntl::AT_FDCWD, parent).map_err(dir_err(parent))?;
    match mkdirat(
        &parent_fd,
        child,
        Mode::from_bits_truncate(PRIVATE_DIR_MODE),
    ) {
        Ok(()) | Err(Errno::EEXIST) => {}
        Err(e) => return Err(dir_err(&child_path)(e)),
    }
    let dir = open_dir(&parent_fd, Path::new(child)).map_err(dir_err(&child_path))?;

    let file_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source: std::io::Error| BeneathError::File { path, source }
    };
    let created = openat(
        &dir,
        tmp,
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(PRIVATE_FILE_MODE),
    )
    .map_err(|e| file_err(&child_path.join(tmp))(io(e)))?;
    let mut file = std::fs::File::from(created);
    let written = file
        .write_all(bytes)
        .and_then(|()| file.flush())
        .and_then(|()| fstat(&file).map_err(io))
        .and_then(|stat| renameat(&dir, tmp, &dir, name).map(|()| stat).map_err(io));
    let written = match written {
        Ok(stat) => stat,
        Err(source) => {
            // Best effort: the temp file may be gone already.
            let _ = unlinkat(&dir, tmp, UnlinkatFlags::NoRemoveDir);
            return Err(file_err(&final_path)(source));
        }
    };
    // The name in the directory we hold, and the path the model will be
    // given, must both be the file just written.
    let in_dir = fstatat(&dir, name, AtFlags::AT_SYMLINK_NOFOLLOW);
    let by_path = nix::sys::stat::stat(&final_path);
    match (in_dir, by_path) {
        (Ok(a), Ok(b)) if same_file(&a, &written) && same_file(&b, &written) => Ok(final_path),
        _ => {
            let _ = unlinkat(&dir, name, UnlinkatFlags::NoRemoveDir);
            Err(BeneathError::Moved { path: final_path })
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn write(parent: &Path) -> Result<PathBuf, BeneathError> {
        write_beneath(
            parent,
            OsStr::new("tool-results"),
            OsStr::new("id.txt"),
            OsStr::new(".id.tmp"),
            b"payload",
        )
    }

    #[test]
    fn writes_a_private_file_in_a_private_dir() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("a/b/session");
        let path = write(&session).unwrap();
        assert_eq!(path, session.join("tool-results/id.txt"));
        assert_eq!(std::fs::read(&path).unwrap(), b"payload");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&session.join("tool-results")), 0o700);
        // Again: the existing dir is reused, the file replaced, no temp left.
        std::fs::write(&path, b"old").unwrap();
        write(&session).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"payload");
        let names: Vec<_> = std::fs::read_dir(session.join("tool-results"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![OsStr::new("id.txt").to_os_string()]);
    }

    /// `tool-results` replaced by a link to a directory elsewhere: refused,
    /// nothing lands in the target.
    #[test]
    fn a_linked_results_dir_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let (session, outside) = (root.path().join("session"), root.path().join("outside"));
        std::fs::create_dir_all(&session).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        symlink(&outside, session.join("tool-results")).unwrap();
        let err = write(&session).unwrap_err();
        assert!(matches!(err, BeneathError::Dir { .. }), "{err}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    /// A file, or a link to one, where the directory should be: refused.
    #[test]
    fn a_results_file_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("session");
        std::fs::create_dir_all(&session).unwrap();
        std::fs::write(session.join("tool-results"), b"x").unwrap();
        assert!(matches!(write(&session), Err(BeneathError::Dir { .. })));
        assert_eq!(std::fs::read(session.join("tool-results")).unwrap(), b"x");
    }

    /// Links at the temp name and at the final name: the temp link makes
    /// the write fail without touching its target; a final-name link is
    /// replaced, its target untouched.
    #[test]
    fn links_inside_the_dir_are_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("session");
        let results = session.join("tool-results");
        std::fs::create_dir_all(&results).unwrap();
        let victim = root.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();

        symlink(&victim, results.join("id.txt")).unwrap();
        let path = write(&session).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!std::fs::symlink_metadata(&path).unwrap().is_symlink());

        symlink(&victim, results.join(".id.tmp")).unwrap();
        assert!(matches!(write(&session), Err(BeneathError::File { .. })));
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    }

    /// The session dir itself a link: refused.
    #[test]
    fn a_linked_parent_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("real");
        std::fs::create_dir_all(&real).unwrap();
        let session = root.path().join("session");
        symlink(&real, &session).unwrap();
        assert!(matches!(write(&session), Err(BeneathError::Dir { .. })));
        assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
    }
}
