//! A closed stdout stops the run (issue 9, item 4).
//!
//! When nobody reads the output any more (`orbit -p … | head -c0`, a
//! consumer that went away), spending tokens and running tools is waste and
//! possibly harm. Two ways to notice:
//!
//! - a write to stdout fails with `BrokenPipe` (stream-json writes early;
//!   the caller reports it with [`StdoutState::mark_closed`]);
//! - the reading end goes away while orbit has nothing to write (`text` and
//!   `json` write only at the end): on Unix, `poll` on stdout with no events
//!   requested wakes up only with `POLLERR` (a pipe without readers) or
//!   `POLLHUP` (a hung-up terminal or socket). It is checked once at start
//!   (so a run whose stdout is already closed never calls the model), then by
//!   a small thread that sleeps in `poll` for the rest of the run. Regular
//!   files and `/dev/null` never wake it.
//!
//! Either way the engine's abort handle is triggered: an abort requested
//! before the turn starts cancels that turn (see `orbit_engine::abort`), so
//! no further tool runs. The binary then prints one line
//! ([`STDOUT_CLOSED_LINE`]) and exits [`EXIT_STDOUT_CLOSED`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use orbit_engine::AbortHandle;

/// Exit code when stdout was closed (128 + SIGPIPE, as shells report it).
pub const EXIT_STDOUT_CLOSED: u8 = 141;
/// The one stderr line of a run stopped by a closed stdout.
pub const STDOUT_CLOSED_LINE: &str = "orbit: stdout closed; stopping";

/// Whether stdout has been found closed; shared with the watcher thread.
#[derive(Debug, Clone)]
pub struct StdoutState {
    closed: Arc<AtomicBool>,
    abort: AbortHandle,
}

impl StdoutState {
    /// Starts watching stdout; a closed stdout aborts through `abort`.
    pub fn watch(abort: AbortHandle) -> Self {
        let state = Self {
            closed: Arc::new(AtomicBool::new(false)),
            abort,
        };
        #[cfg(unix)]
        watch_unix(&state);
        state
    }

    /// Whether nobody reads stdout any more.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Records that stdout is closed and stops the run.
    pub fn mark_closed(&self) {
        if !self.closed.swap(true, Ordering::SeqCst) {
            tracing::debug!("stdout closed; aborting the run");
        }
        self.abort.abort();
    }
}

/// The check at start, then the watcher thread.
#[cfg(unix)]
fn watch_unix(state: &StdoutState) {
    use nix::poll::PollTimeout;

    if hung_up(PollTimeout::ZERO) {
        state.mark_closed();
        return;
    }
    let watcher = state.clone();
    let spawned = std::thread::Builder::new()
        .name("stdout-watch".into())
        .spawn(move || {
            if hung_up(PollTimeout::NONE) {
                watcher.mark_closed();
            }
        });
    if let Err(err) = spawned {
        // Not fatal: a failed write still stops the run.
        tracing::debug!(error = %err, "cannot watch stdout");
    }
}

/// Whether stdout's reader is gone, waiting up to `timeout`.
#[cfg(unix)]
fn hung_up(timeout: nix::poll::PollTimeout) -> bool {
    use std::os::fd::AsFd;

    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, poll};

    let stdout = std::io::stdout();
    // No events requested: only POLLERR / POLLHUP / POLLNVAL can be reported.
    let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
    loop {
        match poll(&mut fds, timeout) {
            Ok(0) => return false,
            Ok(_) => {
                let revents = fds[0].revents().unwrap_or(PollFlags::empty());
                return revents.intersects(PollFlags::POLLERR | PollFlags::POLLHUP);
            }
            Err(Errno::EINTR) => continue,
            Err(_) => return false,
        }
    }
}
