//! A classic-BPF seccomp program from [`super::rules`]: check the
//! architecture, load the call's number, find it by binary search among
//! the listed numbers, and run its [`Check`] (which may load arguments).
//!
//! Code is emitted with symbolic labels, then every jump is resolved to a
//! forward offset (classic BPF only jumps forward; a conditional offset
//! must fit in a byte, so a program too long for one is an error, not a
//! silently wrong filter).

use super::{Check, SOCKET_TYPE_MASK};

/// One classic-BPF instruction (`struct sock_filter`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SockFilter {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

/// A program, ready for `seccomp(SECCOMP_SET_MODE_FILTER)`.
pub(crate) type BpfProgram = Vec<SockFilter>;

/// The classic-BPF instructions the program uses (class | operation |
/// source), as the kernel numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
enum Code {
    /// `A = data[k]` (a 32-bit word of `struct seccomp_data`).
    LdWAbs = 0x20,
    /// `A &= k`.
    AluAndK = 0x54,
    /// Jump `k` forward.
    Ja = 0x05,
    /// `A == k`?
    JeqK = 0x15,
    /// `A >= k`?
    JgeK = 0x35,
    /// `A & k != 0`?
    JsetK = 0x45,
    /// Return `k` (the verdict).
    RetK = 0x06,
}
use Code::{AluAndK, Ja, JeqK, JgeK, JsetK, LdWAbs, RetK};

pub(crate) const RET_KILL_PROCESS: u32 = 0x8000_0000;
pub(crate) const RET_ERRNO: u32 = 0x0005_0000;
pub(crate) const RET_ALLOW: u32 = 0x7fff_0000;

/// `struct seccomp_data` offsets: the number, the architecture, the
/// arguments (8 bytes each).
pub(crate) const NR_OFFSET: u32 = 0;
pub(crate) const ARCH_OFFSET: u32 = 4;
const ARGS_OFFSET: u32 = 16;

/// The x32 ABI's bit in a system call number (x86-64 only).
pub(crate) const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Up to this many numbers are compared one by one instead of split.
const LINEAR_MAX: usize = 3;

/// The architecture a filter checks for: its audit value, and whether
/// numbers with the x32 bit must be refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Arch {
    pub audit: u32,
    pub x32_bit: bool,
}

/// The architecture orbit was built for, if it has a filter.
pub(crate) fn native_arch() -> Option<Arch> {
    match std::env::consts::ARCH {
        "x86_64" => Some(Arch {
            audit: 62 | 0x8000_0000 | 0x4000_0000,
            x32_bit: true,
        }),
        "aarch64" => Some(Arch {
            audit: 183 | 0x8000_0000 | 0x4000_0000,
            x32_bit: false,
        }),
        "riscv64" => Some(Arch {
            audit: 243 | 0x8000_0000 | 0x4000_0000,
            x32_bit: false,
        }),
        _ => None,
    }
}

/// Offset of the low 32 bits of argument `arg`.
fn arg_low(arg: u8) -> u32 {
    let base = ARGS_OFFSET + 8 * u32::from(arg);
    if cfg!(target_endian = "little") {
        base
    } else {
        base + 4
    }
}

type Label = usize;

/// An instruction whose jump targets are still labels.
enum Op {
    Stmt(Code, u32),
    /// Conditional jump: true → first label, false → second.
    Jump(Code, u32, Label, Label),
    /// Unconditional jump.
    Always(Label),
    /// Marks where a label points (emits nothing).
    Here(Label),
}

#[derive(Default)]
struct Asm {
    ops: Vec<Op>,
    labels: usize,
}

impl Asm {
    fn label(&mut self) -> Label {
        self.labels += 1;
        self.labels - 1
    }

    fn stmt(&mut self, code: Code, k: u32) {
        self.ops.push(Op::Stmt(code, k));
    }

    /// A conditional jump whose false branch falls through to what is
    /// emitted next.
    fn jump_if(&mut self, code: Code, k: u32, then: Label) {
        let next = self.label();
        self.ops.push(Op::Jump(code, k, then, next));
        self.ops.push(Op::Here(next));
    }

    fn jump(&mut self, code: Code, k: u32, then: Label, otherwise: Label) {
        self.ops.push(Op::Jump(code, k, then, otherwise));
    }

    fn goto(&mut self, to: Label) {
        self.ops.push(Op::Always(to));
    }

    fn here(&mut self, label: Label) {
        self.ops.push(Op::Here(label));
    }

    /// Resolves every label to its offset.
    fn finish(self) -> Result<BpfProgram, String> {
        let mut at = vec![usize::MAX; self.labels];
        let mut pc = 0;
        for op in &self.ops {
            match op {
                Op::Here(l) => at[*l] = pc,
                _ => pc += 1,
            }
        }
        let mut out = Vec::with_capacity(pc);
        for op in &self.ops {
            let pc = out.len();
            let offset = |label: Label| {
                at[label].checked_sub(pc + 1).ok_or_else(|| {
                    format!(
                        "a backward or unplaced jump at {pc} to label {label} at {}",
                        at[label]
                    )
                })
            };
            let short = |label: Label| {
                u8::try_from(offset(label)?)
                    .map_err(|_| "the filter is too long for a conditional jump".to_string())
            };
            out.push(match *op {
                Op::Here(_) => continue,
                Op::Stmt(code, k) => SockFilter {
                    code: code as u16,
                    jt: 0,
                    jf: 0,
                    k,
                },
                Op::Jump(code, k, then, otherwise) => SockFilter {
                    code: code as u16,
                    jt: short(then)?,
                    jf: short(otherwise)?,
                    k,
                },
                Op::Always(to) => SockFilter {
                    code: Ja as u16,
                    jt: 0,
                    jf: 0,
                    k: u32::try_from(offset(to)?).map_err(|e| e.to_string())?,
                },
            });
        }
        Ok(out)
    }
}

/// The program for `rules` (sorted by number, one entry per number).
pub(crate) fn assemble(rules: &[(u32, Check)], arch: Arch) -> Result<BpfProgram, String> {
    let mut asm = Asm::default();
    let allow = asm.label();
    let eperm = asm.label();
    let arch_ok = asm.label();
    let kill = asm.label();
    asm.stmt(LdWAbs, ARCH_OFFSET);
    asm.jump(JeqK, arch.audit, arch_ok, kill);
    asm.here(kill);
    asm.stmt(RetK, RET_KILL_PROCESS);
    asm.here(arch_ok);
    asm.stmt(LdWAbs, NR_OFFSET);
    if arch.x32_bit {
        asm.jump_if(JgeK, X32_SYSCALL_BIT, eperm);
    }
    // Each rule's target: a shared return, or its own block.
    let mut errno_labels: Vec<(i32, Label)> = vec![(libc::EPERM, eperm)];
    let mut blocks = Vec::new();
    let mut targets = Vec::with_capacity(rules.len());
    for &(_, check) in rules {
        let target = match check {
            Check::Fail(errno) => match errno_labels.iter().find(|(e, _)| *e == errno) {
                Some(&(_, l)) => l,
                None => {
                    let l = asm.label();
                    errno_labels.push((errno, l));
                    l
                }
            },
            _ => {
                let l = asm.label();
                blocks.push((l, check));
                l
            }
        };
        targets.push(target);
    }
    let numbers: Vec<u32> = rules.iter().map(|&(nr, _)| nr).collect();
    search(&mut asm, &numbers, &targets, allow);
    // The argument checks, then the returns they and the search jump to
    // (every jump is forward).
    for (label, check) in blocks {
        asm.here(label);
        check_block(&mut asm, check, allow, eperm);
    }
    asm.here(allow);
    asm.stmt(RetK, RET_ALLOW);
    for (errno, label) in errno_labels {
        asm.here(label);
        asm.stmt(RetK, RET_ERRNO | (errno as u32 & 0xffff));
    }
    asm.finish()
}

/// Jumps to `targets[i]` when the number (in A) is `numbers[i]`, else to
/// `allow`.
fn search(asm: &mut Asm, numbers: &[u32], targets: &[Label], allow: Label) {
    if numbers.len() <= LINEAR_MAX {
        for (&nr, &target) in numbers.iter().zip(targets) {
            asm.jump_if(JeqK, nr, target);
        }
        asm.goto(allow);
        return;
    }
    let mid = numbers.len() / 2;
    let upper = asm.label();
    asm.jump_if(JgeK, numbers[mid], upper);
    search(asm, &numbers[..mid], &targets[..mid], allow);
    asm.here(upper);
    search(asm, &numbers[mid..], &targets[mid..], allow);
}

/// The code of a check that reads arguments.
fn check_block(asm: &mut Asm, check: Check, allow: Label, eperm: Label) {
    match check {
        Check::Fail(_) => asm.goto(eperm),
        Check::ArgIn { arg, values } => {
            asm.stmt(LdWAbs, arg_low(arg));
            for &v in values {
                asm.jump_if(JeqK, v, eperm);
            }
            asm.goto(allow);
        }
        Check::ArgAnyBit { arg, mask } => {
            asm.stmt(LdWAbs, arg_low(arg));
            asm.jump(JsetK, mask, eperm, allow);
        }
        Check::TcpOnly => {
            let kind = asm.label();
            asm.stmt(LdWAbs, arg_low(0));
            asm.jump_if(JeqK, libc::AF_INET as u32, kind);
            asm.jump(JeqK, libc::AF_INET6 as u32, kind, eperm);
            asm.here(kind);
            asm.stmt(LdWAbs, arg_low(1));
            asm.stmt(AluAndK, SOCKET_TYPE_MASK);
            asm.jump(JeqK, libc::SOCK_STREAM as u32, allow, eperm);
        }
    }
}
