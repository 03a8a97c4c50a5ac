//! The mount-namespace layer: a private mount namespace in which
//!
//! - everything outside the writable roots is read-only (one recursive
//!   `mount_setattr`): Landlock has no right for `chmod`, `chown`, `utime`
//!   or xattrs, a read-only mount refuses them all (EROFS);
//! - the writable roots are copies of their trees taken before that, so
//!   they stay writable;
//! - `/tmp` is private: the session's own temp dir (or, without one, an
//!   empty tmpfs) is mounted over it, and what must stay reachable below
//!   `/tmp` — the writable roots, the workspace in read-only mode, `$HOME`
//!   — is mounted through at its own path;
//! - the protected paths of the writable roots (`.git/hooks`, `.git/config`,
//!   `.orbit`, `.claude`) are bind-mounted read-only and each denied path is
//!   covered (an empty read-only tmpfs over a directory, `/dev/null` over a
//!   file). Landlock can only grant, so this is what keeps a protected path
//!   read-only inside a writable root, and a denied path unreadable when it
//!   lies inside one.
//!
//! Root gets a new mount namespace directly; anyone else first gets a user
//! namespace that maps only their own uid/gid. Must run while the process
//! is single-threaded (before the helper execs, nothing else runs).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{getegid, geteuid};

use crate::mount_api::{attach, clone_tree, set_read_only_recursive};

/// The shared temp dir every command sees as its own.
pub(crate) const TMP_DIR: &str = "/tmp";

/// What [`isolate`] builds (every path canonical).
#[derive(Debug, Default)]
pub(crate) struct MountPlan<'a> {
    /// Trees that stay writable.
    pub writable: &'a [PathBuf],
    /// Trees that stay visible (read-only) when they lie under `/tmp`.
    pub visible: &'a [PathBuf],
    /// The session's temp dir, mounted over `/tmp` (None: an empty tmpfs).
    pub private_tmp: Option<&'a Path>,
    /// Read-only inside the writable roots.
    pub protect: &'a [PathBuf],
    /// Covered.
    pub hide: &'a [PathBuf],
}

/// Why [`isolate`] failed.
#[derive(Debug)]
pub(crate) enum IsolateError {
    /// No mount namespace could be made; nothing changed.
    Unavailable(String),
    /// The namespace was changed only in part: the command must not run.
    Broken(String),
}

/// Enters a private mount namespace and builds `plan` in it.
pub(crate) fn isolate(plan: &MountPlan<'_>) -> Result<(), IsolateError> {
    enter().map_err(IsolateError::Unavailable)?;
    build(plan).map_err(IsolateError::Broken)
}

/// Whether this process can make the namespace [`isolate`] makes: enters
/// one (this process only) and tries the calls on `/`.
pub(crate) fn probe() -> Result<(), String> {
    enter()?;
    let root = Path::new("/");
    let _copy = clone_tree(root).map_err(|e| format!("open_tree: {e}"))?;
    set_read_only_recursive(root).map_err(|e| format!("mount_setattr: {e}"))
}

/// A new mount namespace (in a new user namespace unless root) whose
/// mounts no longer propagate to or from the parent's.
fn enter() -> Result<(), String> {
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
    .map_err(|e| format!("making / private: {e}"))
}

/// One tree to mount at its own path after `/` went read-only.
struct Through {
    target: PathBuf,
    /// None: a fresh tmpfs.
    tree: Option<OwnedFd>,
    is_dir: bool,
}

fn build(plan: &MountPlan<'_>) -> Result<(), String> {
    let tmp = Path::new(TMP_DIR);
    let copy = |path: &Path| {
        clone_tree(path).map_err(|e| format!("copying the tree at {}: {e}", path.display()))
    };
    // The writable trees, copied while they are still writable.
    let mut through = Vec::new();
    let tmp_is_dir = tmp.symlink_metadata().is_ok_and(|m| m.is_dir());
    if tmp_is_dir {
        through.push(Through {
            target: tmp.to_path_buf(),
            tree: plan.private_tmp.map(copy).transpose()?,
            is_dir: true,
        });
    }
    for root in plan.writable {
        through.push(Through {
            target: root.clone(),
            tree: Some(copy(root)?),
            is_dir: root.is_dir(),
        });
    }
    set_read_only_recursive(Path::new("/"))
        .map_err(|e| format!("making the file system read-only: {e}"))?;
    // Read-only trees that the private /tmp would hide, copied read-only.
    if tmp_is_dir {
        for path in plan.visible {
            let hidden_by_tmp = path.starts_with(tmp) && path != tmp;
            let covered = plan.writable.iter().any(|w| path.starts_with(w));
            if hidden_by_tmp && !covered {
                through.push(Through {
                    target: path.clone(),
                    tree: Some(copy(path)?),
                    is_dir: path.is_dir(),
                });
            }
        }
    }
    // Outer trees first; `/tmp` before a root at `/tmp` itself.
    through.sort_by_key(|t| t.target.components().count());
    for t in &through {
        mount_through(t).map_err(|e| format!("mounting {}: {e}", t.target.display()))?;
    }
    for path in plan.hide.iter().filter(|p| p.exists()) {
        cover(path).map_err(|e| format!("hiding {}: {e}", path.display()))?;
    }
    for path in plan.protect.iter().filter(|p| p.exists()) {
        bind_read_only(path, path).map_err(|e| format!("protecting {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Attaches one tree at its path, making the mount point first when the
/// private `/tmp` lacks it.
fn mount_through(t: &Through) -> Result<(), String> {
    if t.target.symlink_metadata().is_err() {
        let made = if t.is_dir {
            std::fs::create_dir_all(&t.target)
        } else {
            t.target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::File::create(&t.target).map(drop))
        };
        made.map_err(|e| format!("making the mount point: {e}"))?;
    }
    match &t.tree {
        Some(tree) => attach(tree, &t.target).map_err(|e| format!("move_mount: {e}")),
        None => mount(
            Some("tmpfs"),
            &t.target,
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some("mode=1777"),
        )
        .map_err(|e| format!("tmpfs: {e}")),
    }
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
