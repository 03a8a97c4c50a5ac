//! The seccomp layer: system calls a sandboxed process may not make at all
//! (they fail with EPERM), whatever paths Landlock allows.
//!
//! Blocked always: ptrace and cross-process memory access, every mount
//! API, `unshare`/`setns`, `clone` with a namespace flag (`clone3` answers
//! ENOSYS so libc falls back to `clone`, whose flags a filter can see),
//! module/kexec/bpf/perf/userfaultfd, io_uring (its ops would bypass this
//! filter), `ioctl(TIOCSTI)`/`TIOCLINUX` (typing into the terminal).
//! With the network off every `socket()` fails (Unix ones too: a pathname
//! socket outside the workspace is a way out Landlock ABI < 9 does not
//! see; `socketpair` stays allowed). With the proxy only TCP sockets of
//! inet/inet6 may be created (Landlock then limits where they connect).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::SandboxError;
use crate::policy::NetworkPolicy;

/// `ioctl` requests that push input into a terminal.
const BLOCKED_IOCTLS: &[u64] = &[libc::TIOCSTI, 0x541C /* TIOCLINUX */];

/// `clone` flags that create a namespace.
const NAMESPACE_CLONE_FLAGS: &[i32] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    0x80, // CLONE_NEWTIME
];

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

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(seccomp_error)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(seccomp_error)
}

/// The EPERM filter's rules for `network`.
fn eperm_rules(network: NetworkPolicy) -> Result<BTreeMap<i64, Vec<SeccompRule>>, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BLOCKED_SYSCALLS
        .iter()
        .map(|&nr| (nr, Vec::new()))
        .collect();
    let ioctl = BLOCKED_IOCTLS
        .iter()
        .map(|&req| rule(vec![cond(1, SeccompCmpOp::Eq, req)?]))
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctl);
    let clone = NAMESPACE_CLONE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = u64::from(flag as u32);
            rule(vec![cond(0, SeccompCmpOp::MaskedEq(flag), flag)?])
        })
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_clone, clone);
    match network {
        NetworkPolicy::On => {}
        // Empty rule list: every call matches.
        NetworkPolicy::Off => {
            rules.insert(libc::SYS_socket, Vec::new());
        }
        NetworkPolicy::Proxy(_) => {
            let inet = libc::AF_INET as u64;
            let inet6 = libc::AF_INET6 as u64;
            // Any family but inet/inet6…
            let mut socket = vec![rule(vec![
                cond(0, SeccompCmpOp::Ne, inet)?,
                cond(0, SeccompCmpOp::Ne, inet6)?,
            ])?];
            // …and inet/inet6 of any type but SOCK_STREAM (the low four
            // bits; SOCK_NONBLOCK/SOCK_CLOEXEC sit above them).
            for domain in [inet, inet6] {
                for kind in (0..SOCKET_TYPE_MASK + 1).filter(|&t| t != libc::SOCK_STREAM as u64) {
                    socket.push(rule(vec![
                        cond(0, SeccompCmpOp::Eq, domain)?,
                        cond(1, SeccompCmpOp::MaskedEq(SOCKET_TYPE_MASK), kind)?,
                    ])?);
                }
            }
            rules.insert(libc::SYS_socket, socket);
        }
    }
    Ok(rules)
}

/// The bits of `socket()`'s type argument that name the type.
const SOCKET_TYPE_MASK: u64 = 0xf;

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    action: SeccompAction,
) -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(seccomp_error)?;
    let filter =
        SeccompFilter::new(rules, SeccompAction::Allow, action, arch).map_err(seccomp_error)?;
    filter.try_into().map_err(seccomp_error)
}

/// The filters for `network`, in the order `crate::child::restrict`
/// installs them (inherited by every child; needs `no_new_privs`).
pub(crate) fn programs(network: NetworkPolicy) -> Result<Vec<BpfProgram>, SandboxError> {
    let eperm = compile(
        eperm_rules(network)?,
        SeccompAction::Errno(libc::EPERM as u32),
    )?;
    let mut enosys = BTreeMap::new();
    enosys.insert(libc::SYS_clone3, Vec::new());
    let enosys = compile(enosys, SeccompAction::Errno(libc::ENOSYS as u32))?;
    Ok(vec![enosys, eperm])
}

fn seccomp_error(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Seccomp(e.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn every_network_policy_compiles() {
        for network in [
            NetworkPolicy::Off,
            NetworkPolicy::On,
            NetworkPolicy::Proxy(8080),
        ] {
            let rules = eperm_rules(network).expect("rules");
            let blocks_socket = rules.contains_key(&libc::SYS_socket);
            assert_eq!(blocks_socket, network != NetworkPolicy::On, "{network:?}");
            compile(rules, SeccompAction::Errno(1)).expect("compiles");
        }
    }
}
