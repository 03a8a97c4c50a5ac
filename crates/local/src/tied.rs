//! Starting llama-server so that it dies with the orbit process that
//! started it, even when orbit is killed with SIGKILL (no `Drop` runs then).
//!
//! The child asks the kernel for SIGKILL when its parent dies
//! (`PR_SET_PDEATHSIG`, set between fork and exec). The kernel sends it
//! when the *thread* that forked the child exits, not the process: so every
//! server is forked by one thread that lives as long as the process
//! ([`spawn_tied`] hands it the command over a channel and waits for the
//! child). The child also checks that its parent is still the process that
//! forked it, since orbit may have died before the signal was armed.

#![allow(unsafe_code)]

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

use nix::errno::Errno;
use nix::sys::prctl::set_pdeathsig;
use nix::sys::signal::Signal;
use nix::unistd::getppid;

/// A command to start and where to send the started child.
type Job = (Command, Sender<io::Result<Child>>);

/// The long-lived thread's queue; None when that thread could not start.
static SPAWNER: OnceLock<Option<Sender<Job>>> = OnceLock::new();

/// Starts `cmd` so the child is killed when this process dies; the
/// started child. When no long-lived thread can be had, starts it from
/// this thread (tied to this thread's life instead: still stopped by
/// `Drop` at the end of a run).
pub(crate) fn spawn_tied(mut cmd: Command) -> io::Result<Child> {
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child before exec. It calls
    // only `prctl` and `getppid` (async-signal-safe system calls), takes no
    // lock and allocates nothing (an `io::Error` from an errno code holds
    // no heap data), so it is sound in the child of a multi-threaded parent.
    unsafe {
        cmd.pre_exec(move || {
            set_pdeathsig(Signal::SIGKILL).map_err(io::Error::from)?;
            if getppid() != parent {
                return Err(io::Error::from(Errno::ESRCH));
            }
            Ok(())
        });
    }
    let Some(spawner) = SPAWNER.get_or_init(start_spawner) else {
        return cmd.spawn();
    };
    let (reply, started) = channel();
    spawner
        .send((cmd, reply))
        .map_err(|_| io::Error::other("the llama-server spawner thread is gone"))?;
    started
        .recv()
        .map_err(|_| io::Error::other("the llama-server spawner thread is gone"))?
}

/// The thread that forks every server; it waits for jobs for the rest of
/// the process's life (the static sender is never dropped).
fn start_spawner() -> Option<Sender<Job>> {
    let (jobs, queue) = channel::<Job>();
    std::thread::Builder::new()
        .name("llama-spawner".into())
        .spawn(move || {
            for (mut cmd, reply) in queue {
                let _ = reply.send(cmd.spawn());
            }
        })
        .ok()?;
    Some(jobs)
}
