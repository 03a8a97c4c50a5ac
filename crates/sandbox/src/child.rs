//! The system calls that apply a prepared policy, made by the command's
//! process itself between `fork` and `exec` (a `pre_exec` hook of the Bash
//! tool's spawn, or the `orbit sandbox` helper before its own exec).
//!
//! orbit has other threads (tokio workers, the proxy): after a fork only
//! the forking thread exists in the child, and a lock another thread held
//! (the allocator's, stdio's, the environment's) stays held forever. So
//! everything here was made before the fork — every C string, the id maps'
//! text, the mount order, the Landlock ruleset fd (`crate::landlock_rules`),
//! the BPF programs (`crate::seccomp`) — and the child only makes system
//! calls on it. Audit of each call the child makes, all async-signal-safe
//! libc wrappers of one system call or `syscall(2)` itself: `unshare`,
//! `open`/`write`/`close` (the id maps), `mount`, `open_tree`/`move_mount`/
//! `mount_setattr` (`crate::mount_api`), `lstat`/`mkdir` (mount points under
//! the private `/tmp`), `statfs` (flags the kernel locks on a remount),
//! `chdir`, `prctl(PR_SET_NO_NEW_PRIVS)`, `landlock_restrict_self`,
//! `seccomp(SECCOMP_SET_MODE_FILTER)`, and on failure `write(2)` of static
//! text plus digits formatted on the stack, then `_exit`. `errno` is read
//! through `std::io::Error::last_os_error`, which does not allocate. No
//! `String`, `Vec` growth, `format!`, `eprintln!` or `std::env` here.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd};

use crate::seccomp::{BpfProgram, SockFilter};

use crate::mount_api::{attach, clone_tree, errno, set_read_only_recursive};
use crate::mounts::{MountSteps, TreeSource};

/// A step that failed in the child, and its `errno`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    /// What was being done (static text: the child cannot format).
    pub step: &'static str,
    pub errno: i32,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let err = std::io::Error::from_raw_os_error(self.errno);
        write!(f, "{}: {err}", self.step)
    }
}

fn ok_or(ret: libc::c_int, step: &'static str) -> Result<libc::c_int, Failure> {
    if ret < 0 {
        Err(Failure {
            step,
            errno: errno(),
        })
    } else {
        Ok(ret)
    }
}

fn with(step: &'static str) -> impl Fn(i32) -> Failure {
    move |errno| Failure { step, errno }
}

/// Enters the new (user and) mount namespace and makes `/` private.
/// Nothing has changed for the parent's namespace when this fails.
pub(crate) fn enter(m: &MountSteps) -> Result<(), Failure> {
    // SAFETY: unshare takes no pointer.
    ok_or(unsafe { libc::unshare(m.unshare_flags) }, "unshare")?;
    for (path, text) in &m.id_maps {
        write_file(path, text)?;
    }
    // SAFETY: the target is a NUL-terminated literal; the other pointers
    // are NULL, which mount(2) accepts for a propagation change.
    ok_or(
        unsafe {
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        },
        "making / private",
    )?;
    Ok(())
}

fn write_file(path: &CStr, text: &[u8]) -> Result<(), Failure> {
    const STEP: &str = "writing the user namespace's id maps";
    // SAFETY: `path` is NUL-terminated and outlives the call.
    let fd = ok_or(
        unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) },
        STEP,
    )?;
    // SAFETY: `text` is a live buffer of `text.len()` bytes; fd is ours.
    let written = unsafe { libc::write(fd, text.as_ptr().cast(), text.len()) };
    let failure = (written < 0).then(|| Failure {
        step: STEP,
        errno: errno(),
    });
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    failure.map_or(Ok(()), Err)
}

/// Builds the namespace of `m` (after [`enter`]): copies, read-only `/`,
/// the trees at their paths, covers, protected binds, the cwd again.
pub(crate) fn build(m: &mut MountSteps) -> Result<(), Failure> {
    for tree in &mut m.trees {
        if let TreeSource::CopyBeforeReadOnly(src) = &tree.source {
            tree.fd = clone_tree(src).map_err(with("copying a writable tree (open_tree)"))?;
        }
    }
    set_read_only_recursive(c"/")
        .map_err(with("making the file system read-only (mount_setattr)"))?;
    for tree in &mut m.trees {
        if let TreeSource::CopyAfterReadOnly(src) = &tree.source {
            tree.fd = clone_tree(src).map_err(with("copying a visible tree (open_tree)"))?;
        }
    }
    for tree in &m.trees {
        make_mount_point(&tree.target, &tree.parents, tree.is_dir)?;
        match tree.source {
            TreeSource::Tmpfs => {
                mount_tmpfs(&tree.target, libc::MS_NOSUID | libc::MS_NODEV, c"mode=1777")
                    .map_err(with("mounting a tmpfs over /tmp"))?
            }
            _ => attach(tree.fd, &tree.target).map_err(with("attaching a tree (move_mount)"))?,
        }
    }
    for cover in &m.hide {
        if cover.is_dir {
            let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            mount_tmpfs(&cover.path, flags, c"size=4k,mode=0500")
        } else {
            bind_read_only(c"/dev/null", &cover.path)
        }
        .map_err(with("hiding a denied path"))?;
    }
    for path in &m.protect {
        bind_read_only(path, path).map_err(with("protecting a path read-only"))?;
    }
    // SAFETY: `cwd` is NUL-terminated. A failure leaves the old cwd, as
    // the helper always did.
    unsafe { libc::chdir(m.cwd.as_ptr()) };
    Ok(())
}

/// Makes `target` (and its parents) when the private `/tmp` lacks it.
fn make_mount_point(
    target: &CStr,
    parents: &[std::ffi::CString],
    is_dir: bool,
) -> Result<(), Failure> {
    const STEP: &str = "making a mount point";
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `target` is NUL-terminated, `st` a live out-parameter.
    if unsafe { libc::lstat(target.as_ptr(), &mut st) } == 0 {
        return Ok(());
    }
    for dir in parents
        .iter()
        .map(|p| p.as_c_str())
        .chain(is_dir.then_some(target))
    {
        // SAFETY: `dir` is NUL-terminated.
        if unsafe { libc::mkdir(dir.as_ptr(), 0o755) } < 0 && errno() != libc::EEXIST {
            return Err(Failure {
                step: STEP,
                errno: errno(),
            });
        }
    }
    if !is_dir {
        // SAFETY: `target` is NUL-terminated; the new fd is closed at once.
        let fd = ok_or(
            unsafe {
                libc::open(
                    target.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                    0o644 as libc::c_uint,
                )
            },
            STEP,
        )?;
        // SAFETY: fd was opened above.
        unsafe { libc::close(fd) };
    }
    Ok(())
}

fn mount_tmpfs(target: &CStr, flags: libc::c_ulong, data: &CStr) -> Result<(), i32> {
    // SAFETY: every string is NUL-terminated and outlives the call.
    let ret = unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    };
    if ret < 0 { Err(errno()) } else { Ok(()) }
}

/// Bind-mounts `source` on `target`, then remounts it read-only keeping
/// the flags the kernel locks (nosuid, nodev, noexec, atime) as they are.
fn bind_read_only(source: &CStr, target: &CStr) -> Result<(), i32> {
    let mount = |src: *const libc::c_char, flags: libc::c_ulong| {
        // SAFETY: `src` is NULL or NUL-terminated, `target` NUL-terminated.
        let ret = unsafe {
            libc::mount(
                src,
                target.as_ptr(),
                std::ptr::null(),
                flags,
                std::ptr::null(),
            )
        };
        if ret < 0 { Err(errno()) } else { Ok(()) }
    };
    mount(source.as_ptr(), libc::MS_BIND | libc::MS_REC)?;
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
    if let Some(have) = mount_flags(target) {
        let kept = [
            (libc::ST_NOSUID, libc::MS_NOSUID),
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ];
        for (st_flag, ms_flag) in kept {
            if have & st_flag != 0 {
                flags |= ms_flag;
            }
        }
    }
    mount(std::ptr::null(), flags)
}

/// The kernel's `struct statfs` on 64-bit Linux: 16 words, `f_flags` the
/// 11th (`f_type`, `f_bsize`, `f_blocks`, `f_bfree`, `f_bavail`, `f_files`,
/// `f_ffree`, `f_fsid`, `f_namelen`, `f_frsize`, `f_flags`, spare).
const STATFS_WORDS: usize = 16;
const STATFS_FLAGS_WORD: usize = 10;
/// `f_flags` bit saying the field is filled (Linux ≥ 2.6.36).
const ST_VALID: u64 = 0x20;

/// The `ST_*` flags of the mount at `path` (raw `statfs`: the libc crate
/// hides the field, and glibc's `statvfs` may fall back to reading
/// `/proc/mounts`, which allocates).
#[cfg(target_pointer_width = "64")]
fn mount_flags(path: &CStr) -> Option<libc::c_ulong> {
    let mut buf = [0u64; STATFS_WORDS];
    // SAFETY: `path` is NUL-terminated; `buf` is larger than the kernel's
    // 120-byte struct statfs on 64-bit targets.
    let ret = unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), buf.as_mut_ptr()) };
    let flags = buf[STATFS_FLAGS_WORD];
    (ret == 0 && flags & ST_VALID != 0).then_some(flags as libc::c_ulong)
}

/// `struct landlock_path_beneath_attr` (packed).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// `LANDLOCK_RULE_PATH_BENEATH`.
const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;

/// Adds a rule granting `access` beneath `path` to the ruleset: for a tree
/// made after the fork (the tmpfs over `/tmp`), which the parent could not
/// name — a rule on the covered `/tmp` would not count (Landlock skips
/// hidden mount points).
pub(crate) fn add_rule(ruleset: &OwnedFd, path: &CStr, access: u64) -> Result<(), Failure> {
    const STEP: &str = "Landlock (a rule for the new /tmp)";
    // SAFETY: `path` is NUL-terminated; O_PATH opens no content.
    let fd = ok_or(
        unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) },
        STEP,
    )?;
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    // SAFETY: `attr` is live for the call; both fds are open.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0,
        )
    };
    let failure = (ret < 0).then(|| Failure {
        step: STEP,
        errno: errno(),
    });
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    failure.map_or(Ok(()), Err)
}

/// Elsewhere the layout differs: the remount keeps no flags (it fails
/// where the kernel locks one, and the command does not run).
#[cfg(not(target_pointer_width = "64"))]
fn mount_flags(_path: &CStr) -> Option<libc::c_ulong> {
    None
}

/// `struct sock_fprog`.
#[repr(C)]
struct SockFprog {
    len: libc::c_ushort,
    filter: *const SockFilter,
}

/// `PR_SET_NO_NEW_PRIVS`, the Landlock ruleset (None: not available,
/// the parent said so), the seccomp filters in order.
pub(crate) fn restrict(landlock: Option<&OwnedFd>, filters: &[BpfProgram]) -> Result<(), Failure> {
    // SAFETY: prctl with integer arguments only.
    ok_or(
        unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
        "cannot set no_new_privs",
    )?;
    if let Some(fd) = landlock {
        // SAFETY: the fd is a Landlock ruleset fd owned by the plan.
        let ret = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) };
        if ret < 0 {
            return Err(Failure {
                step: "Landlock (landlock_restrict_self)",
                errno: errno(),
            });
        }
    }
    for program in filters {
        let prog = SockFprog {
            len: libc::c_ushort::try_from(program.len()).unwrap_or(libc::c_ushort::MAX),
            filter: program.as_ptr(),
        };
        // SAFETY: `prog` points at the live program; the kernel copies it.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &prog as *const SockFprog,
            )
        };
        if ret < 0 {
            return Err(Failure {
                step: "seccomp (installing the filter)",
                errno: errno(),
            });
        }
    }
    Ok(())
}

/// Exit status of the helper when it cannot apply the policy or start the
/// command, and of a confined command whose step failed after the fork
/// (like `env`/`nohup`: 126 found but not runnable).
pub const SANDBOX_HELPER_FAILED_EXIT: i32 = 126;

/// Says on stderr which step failed (`orbit sandbox: STEP: errno N`) and
/// ends the child with `code`, without running any Rust or libc exit code.
pub(crate) fn fail_and_exit(failure: &Failure, code: i32) -> ! {
    let mut digits = [0u8; 12];
    let mut at = digits.len();
    let mut n = failure.errno.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    let parts: [&[u8]; 5] = [
        b"orbit sandbox: ",
        failure.step.as_bytes(),
        b": errno ",
        &digits[at..],
        b"\n",
    ];
    for part in parts {
        // SAFETY: each part is a live buffer; fd 2 is the command's stderr.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: _exit ends the process at once (no atexit, no unwinding).
    unsafe { libc::_exit(code) }
}
