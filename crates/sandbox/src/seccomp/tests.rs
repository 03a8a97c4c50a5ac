//! The hand-built filter against seccompiler's for the same rules (what
//! orbit installed before: a linear chain plus a separate clone3 filter),
//! both run by a small classic-BPF interpreter; then the filter installed
//! for real in a forked child.
#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

use super::bpf::{self, ARCH_OFFSET, NR_OFFSET, RET_ERRNO, RET_KILL_PROCESS, X32_SYSCALL_BIT};
use super::*;

/// `struct seccomp_data` as the kernel fills it.
#[derive(Debug, Clone, Copy)]
struct Data {
    nr: u32,
    arch: u32,
    args: [u64; 6],
}

impl Data {
    fn word(&self, offset: u32) -> u32 {
        match offset {
            NR_OFFSET => self.nr,
            ARCH_OFFSET => self.arch,
            o if (16..64).contains(&o) && o % 4 == 0 => {
                let arg = self.args[((o - 16) / 8) as usize];
                if (o - 16) % 8 == 0 {
                    arg as u32
                } else {
                    (arg >> 32) as u32
                }
            }
            o => panic!("load of offset {o}"),
        }
    }
}

/// Runs `program` on `data`; panics on an instruction the filters here
/// should not contain, or on a jump out of the program.
fn run(program: &[(u16, u8, u8, u32)], data: &Data) -> u32 {
    let (mut pc, mut a) = (0usize, 0u32);
    loop {
        let (code, jt, jf, k) = program[pc];
        let jump = |cond: bool| pc + 1 + usize::from(if cond { jt } else { jf });
        pc = match code {
            0x20 => {
                a = data.word(k);
                pc + 1
            }
            0x54 => {
                a &= k;
                pc + 1
            }
            0x05 => pc + 1 + k as usize,
            0x15 => jump(a == k),
            0x25 => jump(a > k),
            0x35 => jump(a >= k),
            0x45 => jump(a & k != 0),
            0x06 => return k,
            other => panic!("opcode {other:#x}"),
        };
    }
}

fn ours(program: &BpfProgram) -> Vec<(u16, u8, u8, u32)> {
    program.iter().map(|i| (i.code, i.jt, i.jf, i.k)).collect()
}

fn theirs(program: &seccompiler::BpfProgram) -> Vec<(u16, u8, u8, u32)> {
    program.iter().map(|i| (i.code, i.jt, i.jf, i.k)).collect()
}

/// What the kernel returns when several filters are installed: the
/// strictest action; among equal ones, the newest filter's.
fn run_all(programs: &[Vec<(u16, u8, u8, u32)>], data: &Data) -> u32 {
    let mut ret = bpf::RET_ALLOW;
    for program in programs.iter().rev() {
        let r = run(program, data);
        if (r & 0xffff_0000) < (ret & 0xffff_0000) || r == RET_KILL_PROCESS {
            ret = r;
        }
    }
    ret
}

/// The seccompiler programs orbit installed before this filter (the same
/// rules, written with seccompiler's API), in install order.
fn seccompiler_programs(network: NetworkPolicy) -> Vec<Vec<(u16, u8, u8, u32)>> {
    let cond =
        |arg, op, value| SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).unwrap();
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BLOCKED_SYSCALLS
        .iter()
        .map(|&nr| (nr, Vec::new()))
        .collect();
    let ioctl = BLOCKED_IOCTLS
        .iter()
        .map(|&req| SeccompRule::new(vec![cond(1, SeccompCmpOp::Eq, u64::from(req))]).unwrap())
        .collect();
    rules.insert(libc::SYS_ioctl, ioctl);
    let clone = (0..32)
        .map(|bit| 1u32 << bit)
        .filter(|flag| NAMESPACE_CLONE_FLAGS & flag != 0)
        .map(|flag| {
            let flag = u64::from(flag);
            SeccompRule::new(vec![cond(0, SeccompCmpOp::MaskedEq(flag), flag)]).unwrap()
        })
        .collect();
    rules.insert(libc::SYS_clone, clone);
    match network {
        NetworkPolicy::On => {}
        NetworkPolicy::Off => {
            rules.insert(libc::SYS_socket, Vec::new());
        }
        NetworkPolicy::Proxy(_) => {
            let (inet, inet6) = (libc::AF_INET as u64, libc::AF_INET6 as u64);
            let mut socket = vec![
                SeccompRule::new(vec![
                    cond(0, SeccompCmpOp::Ne, inet),
                    cond(0, SeccompCmpOp::Ne, inet6),
                ])
                .unwrap(),
            ];
            for domain in [inet, inet6] {
                for kind in (0..16).filter(|&t| t != libc::SOCK_STREAM as u64) {
                    socket.push(
                        SeccompRule::new(vec![
                            cond(0, SeccompCmpOp::Eq, domain),
                            cond(1, SeccompCmpOp::MaskedEq(0xf), kind),
                        ])
                        .unwrap(),
                    );
                }
            }
            rules.insert(libc::SYS_socket, socket);
        }
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).unwrap();
    let compile = |rules, action| -> seccompiler::BpfProgram {
        SeccompFilter::new(rules, SeccompAction::Allow, action, arch)
            .unwrap()
            .try_into()
            .unwrap()
    };
    let eperm = compile(rules, SeccompAction::Errno(libc::EPERM as u32));
    let mut enosys = BTreeMap::new();
    enosys.insert(libc::SYS_clone3, Vec::new());
    let enosys = compile(enosys, SeccompAction::Errno(libc::ENOSYS as u32));
    vec![theirs(&enosys), theirs(&eperm)]
}

const NETWORKS: [NetworkPolicy; 3] = [
    NetworkPolicy::Off,
    NetworkPolicy::On,
    NetworkPolicy::Proxy(8080),
];

/// Argument values the checks look at, and neighbours.
fn interesting_arg() -> impl Strategy<Value = u64> {
    let mut special: Vec<u64> = vec![0, 1, 2, 3, 10, 0xf, 0x10, 0x80, u64::MAX];
    special.extend(BLOCKED_IOCTLS.iter().map(|&v| u64::from(v)));
    special.extend((0..32).map(|bit| 1u64 << bit));
    special.extend([
        u64::from(NAMESPACE_CLONE_FLAGS),
        (libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK) as u64,
        (libc::SOCK_DGRAM | libc::SOCK_CLOEXEC) as u64,
        libc::AF_INET as u64 | (1 << 32),
        u64::from(libc::TIOCSTI as u32) | (7 << 32),
    ]);
    prop_oneof![prop::sample::select(special), any::<u64>()]
}

fn numbers() -> impl Strategy<Value = u32> {
    let mut listed: Vec<u32> = rules(NetworkPolicy::Proxy(1))
        .iter()
        .flat_map(|&(nr, _)| [nr.saturating_sub(1), nr, nr + 1])
        .collect();
    listed.sort_unstable();
    prop_oneof![prop::sample::select(listed), 0u32..1024, any::<u32>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Same verdict as seccompiler's programs for every call of the native
    /// ABI; every x32 number (and any above) refused with EPERM; a foreign architecture
    /// killed.
    #[test]
    fn same_verdicts_as_seccompiler(
        nr in numbers(),
        args in prop::array::uniform6(interesting_arg()),
        foreign in prop::bool::weighted(0.05),
    ) {
        let arch = bpf::native_arch().unwrap();
        for network in NETWORKS {
            let program = ours(&programs(network).unwrap()[0]);
            let data = Data { nr, arch: if foreign { 0x4000_0003 } else { arch.audit }, args };
            let got = run(&program, &data);
            if foreign {
                prop_assert_eq!(got, RET_KILL_PROCESS);
            } else if arch.x32_bit && nr >= X32_SYSCALL_BIT {
                prop_assert_eq!(got, RET_ERRNO | libc::EPERM as u32);
            } else {
                let want = run_all(&seccompiler_programs(network), &data);
                prop_assert_eq!(got, want, "nr {} args {:?} {:?}", nr, args, network);
            }
        }
    }
}

#[test]
fn every_listed_number_is_decided_in_few_steps() {
    // The point of the search: the install-time cache walk stays short.
    let program = programs(NetworkPolicy::Proxy(1)).unwrap().remove(0);
    assert!(program.len() < 120, "{} instructions", program.len());
}

/// Installs the Off filter in a forked child and makes real calls.
#[test]
fn the_installed_filter_blocks_and_allows() {
    let program = programs(NetworkPolicy::Off).unwrap();
    // SAFETY: the child makes system calls only, then `_exit`s.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let code = (|| -> i32 {
            if crate::child::restrict(None, &program).is_err() {
                return 10;
            }
            let errno = || std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            // SAFETY: plain system calls with no pointers to keep alive.
            unsafe {
                if libc::unshare(libc::CLONE_NEWUSER) != -1 || errno() != libc::EPERM {
                    return 11;
                }
                if libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) != -1 || errno() != libc::EPERM
                {
                    return 12;
                }
                if libc::syscall(libc::SYS_clone3, 0, 0) != -1 || errno() != libc::ENOSYS {
                    return 13;
                }
                if libc::ioctl(0, libc::TIOCSTI, c"x".as_ptr()) != -1 || errno() != libc::EPERM {
                    return 14;
                }
                let mut fds = [0; 2];
                if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()) != 0 {
                    return 15;
                }
                if libc::getpid() <= 0 {
                    return 16;
                }
            }
            0
        })();
        // SAFETY: ends the forked child without running the parent's
        // destructors or the test harness.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status), "status {status}");
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "a check failed (see the codes)"
    );
}
