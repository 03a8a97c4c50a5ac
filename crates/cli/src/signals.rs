//! Ctrl-C in headless mode (L5): the first SIGINT asks the engine to stop
//! (its abort handle cancels running tools; the run still ends with a
//! `result`, exit code 130); a second SIGINT exits with 130 at once.
//!
//! The handler is registered synchronously before the run starts, so an
//! early Ctrl-C never falls through to the default "terminate" action.
//! OS signals are forwarded into a channel that [`handle_interrupts`]
//! consumes, so the policy is testable without signalling the test process.
//! `std::process::exit` skips destructors, so the second SIGINT first runs
//! the caller's `before_exit` ([`kill_background_shells`] in the CLI):
//! `run_in_background` shells otherwise die only when the session drops.

use std::sync::Arc;

use orbit_engine::AbortHandle;
use orbit_tools::ToolUseContext;
use orbit_tools::builtin::bash::background::BackgroundShells;
use tokio::sync::mpsc;

/// Exit code after an interrupt (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the SIGINT handler on the current runtime.
pub fn install(
    abort: AbortHandle,
    before_exit: impl FnOnce() + Send + 'static,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::unbounded_channel();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut sigint = signal(SignalKind::interrupt())?;
        tokio::spawn(async move { while sigint.recv().await.is_some() && tx.send(()).is_ok() {} });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() && tx.send(()).is_ok() {}
        });
    }
    tokio::spawn(handle_interrupts(rx, abort, before_exit, |code| {
        std::process::exit(code)
    }));
    Ok(())
}

/// First interrupt: abort the turn. Second: `before_exit`, then `exit(130)`.
async fn handle_interrupts(
    mut interrupts: mpsc::UnboundedReceiver<()>,
    abort: AbortHandle,
    before_exit: impl FnOnce(),
    exit: impl FnOnce(i32),
) {
    if interrupts.recv().await.is_none() {
        return;
    }
    abort.abort();
    if interrupts.recv().await.is_some() {
        before_exit();
        exit(EXIT_INTERRUPTED);
    }
}

/// A `before_exit` that SIGKILLs the session's background shells. Holds the
/// registry weakly, so it still drops (and kills them) with the engine on
/// every other path.
pub fn kill_background_shells(ctx: &ToolUseContext) -> impl FnOnce() + Send + 'static {
    let shells = Arc::downgrade(&BackgroundShells::of(ctx));
    move || {
        if let Some(shells) = shells.upgrade() {
            shells.kill_all();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use super::*;

    /// Whether `pid` exists and is not a zombie.
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                let rest = &stat[stat.rfind(')')? + 2..];
                rest.split_whitespace().next().map(|state| state != "Z")
            })
            .unwrap_or(false)
    }

    #[tokio::test]
    async fn first_interrupt_aborts_second_kills_background_shells_then_exits_130() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolUseContext::new("s", dir.path().to_path_buf(), dir.path().join("data"));
        let pid_file = dir.path().join("bg.pid");
        BackgroundShells::of(&ctx)
            .spawn("echo $$ > bg.pid; sleep 30", dir.path(), &[], &[], None)
            .unwrap();
        let started = Instant::now();
        let bg = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            {
                break pid;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "no bg.pid");
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        assert!(alive(bg));

        let abort = AbortHandle::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let exited = Arc::new(Mutex::new(None));
        let handler = tokio::spawn(handle_interrupts(
            rx,
            abort.clone(),
            kill_background_shells(&ctx),
            {
                let exited = exited.clone();
                move |code| *exited.lock().unwrap() = Some(code)
            },
        ));

        tx.send(()).unwrap();
        while !abort.is_aborted() {
            tokio::task::yield_now().await;
        }
        assert_eq!(*exited.lock().unwrap(), None, "one Ctrl-C only aborts");
        assert!(alive(bg), "background shells survive the first Ctrl-C");

        tx.send(()).unwrap();
        handler.await.unwrap();
        assert_eq!(*exited.lock().unwrap(), Some(EXIT_INTERRUPTED));
        // SIGKILL was sent before exit; the kernel ends the process promptly.
        let started = Instant::now();
        while alive(bg) {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "background shell survived the second Ctrl-C"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // The session (whose drop would also kill it) is still alive here.
        drop(ctx);
    }

    #[tokio::test]
    async fn the_handler_stops_quietly_when_signals_end() {
        let abort = AbortHandle::default();
        let (tx, rx) = mpsc::unbounded_channel::<()>();
        drop(tx);
        handle_interrupts(rx, abort.clone(), || {}, |_| panic!("must not exit")).await;
        assert!(!abort.is_aborted());
    }
}
