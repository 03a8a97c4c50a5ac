//! The three calls of Linux's new mount API the mount layer needs and
//! `nix` does not wrap: `open_tree(OPEN_TREE_CLONE)` (a detached copy of a
//! tree, taken before the rest of the namespace changes), `move_mount`
//! (attach such a copy at a path) and `mount_setattr(AT_RECURSIVE)` (make
//! every mount below a path read-only at once). Kernel ABI constants are
//! spelled here so they do not depend on the libc crate's version; all
//! three exist since Linux 5.12, older than any kernel with Landlock.
//!
//! Each is one raw system call on C strings made by the caller: no
//! allocation, no lock, so `crate::child` may call them between fork and
//! exec. Errors are the raw `errno`.
#![allow(unsafe_code)]

use std::ffi::CStr;

/// `open_tree` flag: return a detached clone of the tree, not the tree.
const OPEN_TREE_CLONE: libc::c_uint = 1;
/// `open_tree`/`mount_setattr` flag: the mounts below too.
const AT_RECURSIVE: libc::c_uint = 0x8000;
/// `move_mount` flag: the source is the fd itself (empty path).
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
/// `mount_attr.attr_set` bit: read-only.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// `struct mount_attr` (`MOUNT_ATTR_SIZE_VER0`).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The calling thread's `errno` (no allocation).
pub(crate) fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn check(ret: libc::c_long) -> Result<libc::c_long, i32> {
    if ret < 0 { Err(errno()) } else { Ok(ret) }
}

/// A detached, recursive copy of the mount tree at `path` (close-on-exec):
/// the raw fd, closed at exec. Later changes to the namespace (read-only,
/// covers) do not touch it.
pub(crate) fn clone_tree(path: &CStr) -> Result<libc::c_int, i32> {
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: `path` is a NUL-terminated string that outlives the call;
    // open_tree reads it and returns a new fd or -1 with errno.
    let fd =
        check(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags) })?;
    libc::c_int::try_from(fd).map_err(|_| libc::EBADF)
}

/// Attaches a tree from [`clone_tree`] at `target` (which must exist).
pub(crate) fn attach(tree: libc::c_int, target: &CStr) -> Result<(), i32> {
    // SAFETY: both strings are NUL-terminated and outlive the call; the fd
    // is an open mount fd of this process.
    check(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree,
            c"".as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })?;
    Ok(())
}

/// Makes the mount at `path` and every mount below it read-only.
pub(crate) fn set_read_only_recursive(path: &CStr) -> Result<(), i32> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: `path` and `attr` outlive the call; the size passed is the
    // struct's, which the kernel reads and does not keep.
    check(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    })?;
    Ok(())
}
