//! The mount-namespace layer: a private mount namespace in which the
//! protected paths of the writable roots (`.git/hooks`, `.git/config`,
//! `.orbit`, `.claude`) are bind-mounted read-only and each denied path is
//! covered (an empty read-only tmpfs over a directory, `/dev/null` over a
//! file). Landlock can only grant, so this is what keeps a protected path
//! read-only inside a writable root, and a denied path unreadable when it
//! lies inside one.
//!
//! Root gets a new mount namespace directly; anyone else first gets a user
//! namespace that maps only their own uid/gid. Must run while the process
//! is single-threaded (before the helper execs, nothing else runs).

use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{getegid, geteuid};

/// Enters a private mount namespace and applies the read-only binds and
/// covers. Paths that do not exist are skipped.
pub(crate) fn isolate(protect: &[PathBuf], hide: &[PathBuf]) -> Result<(), String> {
    let (uid, gid) = (geteuid(), getegid());
    if uid.is_root() {
        unshare(CloneFlags::CLONE_NEWNS).map_err(|e| format!("unshare(CLONE_NEWNS): {e}"))?;
    } else {
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
            .map_err(|e| format!("unshare(CLONE_NEWUSER|CLONE_NEWNS): {e}"))?;
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| format!("writing {file}: {e}"))
        };
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    }
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| format!("making / private: {e}"))?;
    for path in hide.iter().filter(|p| p.exists()) {
        cover(path).map_err(|e| format!("hiding {}: {e}", path.display()))?;
    }
    for path in protect.iter().filter(|p| p.exists()) {
        bind_read_only(path, path).map_err(|e| format!("protecting {}: {e}", path.display()))?;
    }
    Ok(())
}

/// An empty read-only tmpfs over a directory, `/dev/null` over a file.
fn cover(path: &Path) -> nix::Result<()> {
    if path.is_dir() {
        mount(
            Some("tmpfs"),
            path,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            Some("size=4k,mode=0500"),
        )
    } else {
        bind_read_only(Path::new("/dev/null"), path)
    }
}

/// Bind-mounts `source` on `target`, then remounts it read-only keeping
/// the flags the kernel locks (nosuid, nodev, noexec, atime) as they are.
fn bind_read_only(source: &Path, target: &Path) -> nix::Result<()> {
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )?;
    let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
    if let Ok(st) = statvfs(target) {
        let kept = [
            (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
            (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
            (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
            (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
            (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
            (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
        ];
        for (st_flag, ms_flag) in kept {
            if st.flags().contains(st_flag) {
                flags |= ms_flag;
            }
        }
    }
    mount(None::<&str>, target, None::<&str>, flags, None::<&str>)
}
