//! The start-up probe tries, it does not assume: each layer of the sandbox
//! is applied for real in a forked child of orbit (the mount namespace
//! with the calls the commands' namespace makes, `no_new_privs` and a
//! Landlock ruleset, the seccomp filters), and each one the kernel refuses
//! comes back with its `errno`. Root in a container without
//! `CAP_SYS_ADMIN`, a kernel without Landlock: named, not guessed.
//!
//! Flow: [`try_layers`] prepares every step before the fork (as
//! `crate::prepare` does for commands: the child makes system calls only,
//! see `crate::child`), the child writes one record per failed layer
//! (`[layer, errno as 4 bytes]`) into a close-on-exec pipe and `_exit`s,
//! the parent reaps it and reads the records. [`FORCE_FAIL_ENV`] (tests
//! only) makes named layers fail as if the kernel had refused them.
#![allow(unsafe_code)]

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};

use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use crate::child;
use crate::mount_api::{clone_tree, set_read_only_recursive};
use crate::mounts::MountSteps;
use crate::policy::NetworkPolicy;

/// Tests only: a comma-separated list of layers ([`Layer::name`]) the
/// probe reports as refused without trying them.
pub const FORCE_FAIL_ENV: &str = "ORBIT_SANDBOX_TEST_FAIL";

/// One layer of the sandbox the probe tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The private mount namespace (read-only outside the roots, private
    /// `/tmp`, protected and hidden paths).
    MountNamespace,
    /// Landlock (file-system and TCP limits).
    Landlock,
    /// seccomp (blocked system calls, sockets).
    Seccomp,
}

const ALL_LAYERS: [Layer; 3] = [Layer::MountNamespace, Layer::Landlock, Layer::Seccomp];

/// Bytes of one record the child writes: the layer's code, its errno.
const RECORD_BYTES: usize = 5;

impl Layer {
    /// Its name in [`FORCE_FAIL_ENV`] and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::MountNamespace => "mount-namespace",
            Self::Landlock => "landlock",
            Self::Seccomp => "seccomp",
        }
    }

    fn code(self) -> u8 {
        match self {
            Self::MountNamespace => 0,
            Self::Landlock => 1,
            Self::Seccomp => 2,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        ALL_LAYERS.into_iter().find(|l| l.code() == code)
    }
}

/// What the child tries, made before the fork.
struct Trial {
    mounts: Option<MountSteps>,
    /// Ok(ruleset fd) to enforce, Err(reason) when none could be built.
    landlock: Option<Result<OwnedFd, String>>,
    filters: Option<Vec<crate::seccomp::BpfProgram>>,
}

/// Tries `layers` in a forked child; returns each refused one with why.
pub(crate) fn try_layers(layers: &[Layer]) -> Vec<(Layer, String)> {
    let forced: Vec<String> = std::env::var(FORCE_FAIL_ENV)
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let is_forced = |layer: Layer| forced.iter().any(|f| f == layer.name());
    let wanted = |layer: Layer| layers.contains(&layer) && !is_forced(layer);
    let mut refused: Vec<(Layer, String)> = layers
        .iter()
        .filter(|l| is_forced(**l))
        .map(|l| (*l, format!("refused ({FORCE_FAIL_ENV})")))
        .collect();
    let mut trial = Trial {
        mounts: None,
        landlock: None,
        filters: None,
    };
    if wanted(Layer::MountNamespace) {
        match MountSteps::probe() {
            Ok(m) => trial.mounts = Some(m),
            Err(e) => refused.push((Layer::MountNamespace, e)),
        }
    }
    if wanted(Layer::Landlock) {
        let ruleset = crate::landlock_rules::ruleset(&[], &[], NetworkPolicy::On)
            .map_err(|e| e.to_string())
            .and_then(|fd| fd.ok_or_else(|| "the kernel has no Landlock".to_string()));
        trial.landlock = Some(ruleset);
    }
    if wanted(Layer::Seccomp) {
        match crate::seccomp::programs(NetworkPolicy::Off) {
            Ok(p) => trial.filters = Some(p),
            Err(e) => refused.push((Layer::Seccomp, e.to_string())),
        }
    }
    if let Some(Err(why)) = &trial.landlock {
        refused.push((Layer::Landlock, why.clone()));
    }
    if trial.mounts.is_none() && !matches!(trial.landlock, Some(Ok(_))) && trial.filters.is_none() {
        return refused;
    }
    match run_in_child(&trial) {
        Ok(records) => refused.extend(records),
        Err(e) => {
            for layer in ALL_LAYERS.into_iter().filter(|l| layers.contains(l)) {
                if !refused.iter().any(|(l, _)| *l == layer) {
                    refused.push((layer, format!("the probe failed: {e}")));
                }
            }
        }
    }
    refused
}

/// Forks, tries `trial` in the child, reads its records.
fn run_in_child(trial: &Trial) -> std::io::Result<Vec<(Layer, String)>> {
    let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    // SAFETY: the child runs only `child_trial`, which makes system calls
    // on data prepared above (no allocation, no lock) and ends in `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        child_trial(trial, write_end.as_raw_fd());
    }
    drop(write_end);
    let _ = waitpid(Pid::from_raw(pid), None);
    let mut bytes = Vec::new();
    std::fs::File::from(read_end).read_to_end(&mut bytes)?;
    Ok(bytes
        .chunks_exact(RECORD_BYTES)
        .filter_map(|r| {
            let layer = Layer::from_code(r[0])?;
            let errno = i32::from_le_bytes([r[1], r[2], r[3], r[4]]);
            Some((layer, std::io::Error::from_raw_os_error(errno).to_string()))
        })
        .collect())
}

/// The forked child: each layer in the commands' order (namespace, then
/// `no_new_privs` + Landlock, then seccomp), one record per refusal.
fn child_trial(trial: &Trial, out: libc::c_int) -> ! {
    let report = |layer: Layer, errno: i32| {
        let e = errno.to_le_bytes();
        let record = [layer.code(), e[0], e[1], e[2], e[3]];
        // SAFETY: `record` is a live buffer; `out` is the pipe's write end.
        unsafe { libc::write(out, record.as_ptr().cast(), record.len()) };
    };
    if let Some(m) = &trial.mounts {
        let tried = child::enter(m).map_err(|f| f.errno).and_then(|()| {
            let fd = clone_tree(c"/")?;
            // SAFETY: fd was just returned by open_tree; closed once.
            unsafe { libc::close(fd) };
            set_read_only_recursive(c"/")
        });
        if let Err(e) = tried {
            report(Layer::MountNamespace, e);
        }
    }
    if let Some(Ok(ruleset)) = &trial.landlock
        && let Err(f) = child::restrict(Some(ruleset), &[])
    {
        report(Layer::Landlock, f.errno);
    }
    if let Some(filters) = &trial.filters
        && let Err(f) = child::restrict(None, filters)
    {
        report(Layer::Seccomp, f.errno);
    }
    // SAFETY: ends the child at once, without Rust or libc exit code.
    unsafe { libc::_exit(0) }
}
