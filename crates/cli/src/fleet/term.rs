//! SIGTERM while a task runs: a scheduler stops a task with SIGTERM
//! (Kubernetes on a node drain or a deleted Job, a CI run cancelled), and
//! as a container's PID 1 `orbit task run` would not even die of it — the
//! kernel drops signals PID 1 has no handler for, so the pod waited out its
//! grace period and was killed. Here a thread waits for SIGTERM and passes
//! it to the running child `orbit -p` (whose transcript is durable, so the
//! retry resumes it); the task then ends as a failed prompt (exit 143) and
//! its result file says so. With no child running the process exits 143 at
//! once.
//!
//! Data flow: [`forward_sigterm`] → a thread with its own small runtime
//! (tokio's signal handling, no unsafe code here) → `kill(child, SIGTERM)`
//! for the pid [`RunningChild::set`] last stored.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Exit code when SIGTERM arrives between prompts: 128 + 15.
const EXIT_TERMINATED: i32 = 143;

/// The pid of the child `orbit` running now (0: none).
#[derive(Clone, Default)]
pub(super) struct RunningChild(Arc<AtomicI32>);

impl RunningChild {
    /// Records the child now running (`None`: it has ended).
    pub(super) fn set(&self, pid: Option<u32>) {
        let raw = pid.and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
        self.0.store(raw, Ordering::SeqCst);
    }
}

/// Starts the forwarding thread; the returned handle is where the runner
/// records its child.
pub(super) fn forward_sigterm() -> RunningChild {
    let child = RunningChild::default();
    let seen = child.clone();
    let spawned = std::thread::Builder::new()
        .name("orbit-sigterm".to_string())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                use tokio::signal::unix::{SignalKind, signal};
                let Ok(mut term) = signal(SignalKind::terminate()) else {
                    return;
                };
                while term.recv().await.is_some() {
                    match seen.0.load(Ordering::SeqCst) {
                        0 => std::process::exit(EXIT_TERMINATED),
                        pid => {
                            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
                        }
                    }
                }
            });
        });
    if let Err(err) = spawned {
        tracing::warn!("orbit task run: SIGTERM will not reach the child ({err})");
    }
    child
}
