//! A closed stdout stops the run (issue 9, item 4).
//!
//! When nobody reads the output any more (`orbit -p … | head -c0`, a
//! consumer that went away), spending tokens and running tools is waste and
//! possibly harm. Two ways to notice:
//!
//! - a write to stdout fails with `BrokenPipe` (stream-json writes early;
//!   the caller reports it with [`StdoutState::mark_closed`]);
//! - the reading end goes away while orbit has nothing to write (`text` and
//!   `json` write only at the end): on Unix a pipe without readers reports
//!   `POLLERR` to its writer. It is checked once at start with `poll` (so a
//!   run whose stdout is already closed never calls the model); then, when
//!   stdout is a pipe, a task waits for error readiness of a duplicate of it
//!   registered with the runtime's epoll (no extra thread, nothing written
//!   through it, its blocking mode untouched). Regular files and
//!   `/dev/null` never close; a terminal that goes away sends SIGHUP; a
//!   socket fails the next write. Those are not watched.
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
    /// Call inside the tokio runtime.
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

/// The check at start, then the watcher task (pipes only).
#[cfg(unix)]
fn watch_unix(state: &StdoutState) {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;

    use tokio::io::Interest;
    use tokio::net::unix::pipe;

    if hung_up_now() {
        state.mark_closed();
        return;
    }
    // A duplicate: the registration must not own (or close) fd 1 itself.
    let Ok(file) = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
    else {
        return;
    };
    if !file.metadata().is_ok_and(|m| m.file_type().is_fifo()) {
        return;
    }
    // "Unchecked": it neither verifies nor sets O_NONBLOCK (which would
    // change stdout itself); only readiness is used, never a write.
    let sender = match pipe::Sender::from_file_unchecked(file) {
        Ok(sender) => sender,
        Err(err) => {
            // Not fatal: a failed write still stops the run.
            tracing::debug!(error = %err, "stdout is not watched");
            return;
        }
    };
    let watcher = state.clone();
    tokio::spawn(async move {
        // Returns with the error bit set, or fails when the runtime shuts down.
        if let Ok(ready) = sender.ready(Interest::ERROR).await
            && ready.is_error()
        {
            watcher.mark_closed();
        }
    });
}

/// Whether stdout's reader is gone already (`poll` without waiting).
#[cfg(unix)]
fn hung_up_now() -> bool {
    use std::os::fd::AsFd;

    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

    let stdout = std::io::stdout();
    // No events requested: only POLLERR / POLLHUP / POLLNVAL can be reported.
    let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
    loop {
        match poll(&mut fds, PollTimeout::ZERO) {
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
