//! The seccomp layer: system calls a sandboxed process may not make at all
//! (they fail with EPERM), whatever paths Landlock allows.
//!
//! Blocked always: ptrace and cross-process memory access, every mount
//! API, `unshare`/`setns`, `clone` with a namespace flag (`clone3` answers
//! ENOSYS so libc falls back to `clone`, whose flags a filter can see),
//! module/kexec/bpf/perf/userfaultfd, io_uring (its ops would bypass this
//! filter), `ioctl(TIOCSTI)`/`TIOCLINUX` (typing into the terminal), and on
//! x86-64 every call of the x32 ABI (its numbers would pass a filter
//! written for the 64-bit ones). With the network off every `socket()`
//! fails (Unix ones too: a pathname socket outside the workspace is a way
//! out Landlock ABI < 9 does not see; `socketpair` stays allowed). With the
//! proxy only TCP sockets of inet/inet6 may be created (Landlock then
//! limits where they connect).
//!
//! Flow: [`rules`] says what each listed system call gets (a [`Check`]);
//! `bpf::assemble` turns that into ONE classic-BPF program that finds the
//! call's number by binary search. The kernel runs the program on every
//! system call of the command, and when the filter is installed it runs it
//! once per system call number to cache the ones always allowed: a
//! seccompiler-style linear chain of 212 instructions made that install
//! cost ≈ 130 µs per command; the search visits about seven.

mod bpf;
#[cfg(test)]
mod tests;

use crate::SandboxError;
use crate::policy::NetworkPolicy;

pub(crate) use bpf::{BpfProgram, SockFilter};

/// `ioctl` requests that push input into a terminal.
const BLOCKED_IOCTLS: &[u32] = &[libc::TIOCSTI as u32, 0x541C /* TIOCLINUX */];

/// `clone` flags that create a namespace.
const NAMESPACE_CLONE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | 0x80/* CLONE_NEWTIME */) as u32;

/// Denied outright (EPERM).
const BLOCKED_SYSCALLS: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
];

/// What one listed system call gets; a call not listed is allowed.
/// Arguments are compared on their low 32 bits (every argument checked
/// here is an `int`, an `unsigned int` or flags that fit in them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Always fails with this errno.
    Fail(i32),
    /// EPERM when argument `arg` equals one of `values`.
    ArgIn { arg: u8, values: &'static [u32] },
    /// EPERM when argument `arg` has any bit of `mask`.
    ArgAnyBit { arg: u8, mask: u32 },
    /// `socket(domain, type, …)` with the proxy: EPERM unless the domain
    /// is inet/inet6 and the type is `SOCK_STREAM` (the low four bits;
    /// `SOCK_NONBLOCK`/`SOCK_CLOEXEC` sit above them).
    TcpOnly,
}

/// The bits of `socket()`'s type argument that name the type.
const SOCKET_TYPE_MASK: u32 = 0xf;

/// Every listed system call and its check for `network`, by number.
pub(crate) fn rules(network: NetworkPolicy) -> Vec<(u32, Check)> {
    let mut rules: Vec<(libc::c_long, Check)> = BLOCKED_SYSCALLS
        .iter()
        .map(|&nr| (nr, Check::Fail(libc::EPERM)))
        .collect();
    rules.push((libc::SYS_clone3, Check::Fail(libc::ENOSYS)));
    rules.push((
        libc::SYS_ioctl,
        Check::ArgIn {
            arg: 1,
            values: BLOCKED_IOCTLS,
        },
    ));
    rules.push((
        libc::SYS_clone,
        Check::ArgAnyBit {
            arg: 0,
            mask: NAMESPACE_CLONE_FLAGS,
        },
    ));
    match network {
        NetworkPolicy::On => {}
        NetworkPolicy::Off => rules.push((libc::SYS_socket, Check::Fail(libc::EPERM))),
        NetworkPolicy::Proxy(_) => rules.push((libc::SYS_socket, Check::TcpOnly)),
    }
    let mut rules: Vec<(u32, Check)> = rules
        .into_iter()
        .filter_map(|(nr, check)| u32::try_from(nr).ok().map(|nr| (nr, check)))
        .collect();
    rules.sort_by_key(|&(nr, _)| nr);
    rules.dedup_by_key(|&mut (nr, _)| nr);
    rules
}

/// The filters for `network`, in the order `crate::child::restrict`
/// installs them (inherited by every child; needs `no_new_privs`): one.
pub(crate) fn programs(network: NetworkPolicy) -> Result<Vec<BpfProgram>, SandboxError> {
    let arch = bpf::native_arch().ok_or_else(|| {
        SandboxError::Seccomp(format!(
            "no seccomp filter for this architecture ({})",
            std::env::consts::ARCH
        ))
    })?;
    let program = bpf::assemble(&rules(network), arch).map_err(SandboxError::Seccomp)?;
    Ok(vec![program])
}
