//! The mount-namespace layer, planned in the parent: a private mount
//! namespace in which
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
//! namespace that maps only their own uid/gid. [`MountSteps::plan`] turns
//! the paths into C strings, the id maps' text, the order of the mounts and
//! every mount point's parents, all before the fork; `crate::child` only
//! makes the system calls.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::unistd::{getegid, geteuid};

/// The shared temp dir every command sees as its own.
pub(crate) const TMP_DIR: &str = "/tmp";

/// What [`MountSteps::plan`] builds (every path canonical).
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

/// Where a tree mounted at its own path comes from.
#[derive(Debug)]
pub(crate) enum TreeSource {
    /// A fresh tmpfs (mode 1777).
    Tmpfs,
    /// A copy of this tree taken while it is still writable.
    CopyBeforeReadOnly(CString),
    /// A copy taken after `/` went read-only (so read-only).
    CopyAfterReadOnly(CString),
}

/// One tree to mount at its own path after `/` went read-only.
#[derive(Debug)]
pub(crate) struct Tree {
    /// The mount point.
    pub target: CString,
    /// Its parents from the outermost, made when the private `/tmp` lacks
    /// the mount point.
    pub parents: Vec<CString>,
    /// The mount point is a directory (else an empty file is made).
    pub is_dir: bool,
    pub source: TreeSource,
    /// The `open_tree` fd, set by the child.
    pub fd: libc::c_int,
}

/// A path to cover.
#[derive(Debug)]
pub(crate) struct Cover {
    pub path: CString,
    pub is_dir: bool,
}

/// Every mount-namespace call of one command, ready for the child.
#[derive(Debug)]
pub(crate) struct MountSteps {
    /// `unshare` flags.
    pub unshare_flags: libc::c_int,
    /// Files written right after `unshare` (`/proc/self/{setgroups,uid_map,gid_map}`), non-root only.
    pub id_maps: Vec<(CString, Vec<u8>)>,
    /// Trees in mount order (outer first; `/tmp` before a root at `/tmp` itself).
    pub trees: Vec<Tree>,
    pub hide: Vec<Cover>,
    pub protect: Vec<CString>,
    /// The command's cwd, entered again once the mounts are made (the old
    /// one is on the read-only mount under the new ones).
    pub cwd: CString,
}

/// `path` as a C string (a path with a NUL byte cannot exist).
pub(crate) fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{} holds a NUL byte", path.display()))
}

/// The ids the user namespace maps: only our own.
fn id_maps() -> Result<Vec<(CString, Vec<u8>)>, String> {
    let (uid, gid) = (geteuid(), getegid());
    if uid.is_root() {
        return Ok(Vec::new());
    }
    Ok(vec![
        (c"/proc/self/setgroups".to_owned(), b"deny".to_vec()),
        (
            c"/proc/self/uid_map".to_owned(),
            format!("{uid} {uid} 1").into_bytes(),
        ),
        (
            c"/proc/self/gid_map".to_owned(),
            format!("{gid} {gid} 1").into_bytes(),
        ),
    ])
}

/// `unshare` flags: a mount namespace, in a new user namespace unless root.
fn unshare_flags() -> libc::c_int {
    if geteuid().is_root() {
        libc::CLONE_NEWNS
    } else {
        libc::CLONE_NEWUSER | libc::CLONE_NEWNS
    }
}

impl MountSteps {
    /// The steps of `plan` for a command started in `cwd`.
    pub(crate) fn plan(plan: &MountPlan<'_>, cwd: &Path) -> Result<Self, String> {
        let tmp = Path::new(TMP_DIR);
        let tree = |target: &Path, is_dir: bool, source: TreeSource| -> Result<Tree, String> {
            let parents = target
                .ancestors()
                .skip(1)
                .filter(|p| p.parent().is_some())
                .map(c_path)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Tree {
                target: c_path(target)?,
                parents: parents.into_iter().rev().collect(),
                is_dir,
                source,
                fd: -1,
            })
        };
        let mut trees: Vec<(usize, Tree)> = Vec::new();
        let mut push = |target: &Path, is_dir: bool, source: TreeSource| -> Result<(), String> {
            trees.push((target.components().count(), tree(target, is_dir, source)?));
            Ok(())
        };
        let tmp_is_dir = tmp.symlink_metadata().is_ok_and(|m| m.is_dir());
        if tmp_is_dir {
            let source = match plan.private_tmp {
                Some(dir) => TreeSource::CopyBeforeReadOnly(c_path(dir)?),
                None => TreeSource::Tmpfs,
            };
            push(tmp, true, source)?;
        }
        for root in plan.writable {
            push(
                root,
                root.is_dir(),
                TreeSource::CopyBeforeReadOnly(c_path(root)?),
            )?;
        }
        if tmp_is_dir {
            for path in plan.visible {
                let hidden_by_tmp = path.starts_with(tmp) && path != tmp;
                let covered = plan.writable.iter().any(|w| path.starts_with(w));
                if hidden_by_tmp && !covered {
                    push(
                        path,
                        path.is_dir(),
                        TreeSource::CopyAfterReadOnly(c_path(path)?),
                    )?;
                }
            }
        }
        // Stable: `/tmp` (pushed first) before a root at `/tmp` itself.
        trees.sort_by_key(|(depth, _)| *depth);
        let hide = plan
            .hide
            .iter()
            .filter(|p| p.exists())
            .map(|p| {
                Ok(Cover {
                    path: c_path(p)?,
                    is_dir: p.is_dir(),
                })
            })
            .collect::<Result<_, String>>()?;
        let protect = plan
            .protect
            .iter()
            .filter(|p| p.exists())
            .map(|p| c_path(p))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            unshare_flags: unshare_flags(),
            id_maps: id_maps()?,
            trees: trees.into_iter().map(|(_, t)| t).collect(),
            hide,
            protect,
            cwd: c_path(cwd)?,
        })
    }

    /// The steps of the probe: enter, copy `/`, make `/` read-only.
    pub(crate) fn probe() -> Result<Self, String> {
        Ok(Self {
            unshare_flags: unshare_flags(),
            id_maps: id_maps()?,
            trees: Vec::new(),
            hide: Vec::new(),
            protect: Vec::new(),
            cwd: c"/".to_owned(),
        })
    }
}
