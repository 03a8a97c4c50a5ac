//! Spawning, draining and killing one shell command (the foreground Bash
//! call; background runs reuse [`shell_command`] and [`ProcessGroup`]).
//!
//! Flow of [`run_foreground`]: `bash -c SCRIPT` starts in its own process
//! group with stdin on /dev/null (or the cwd report's pipe) and both output
//! pipes read concurrently into [`CappedBuffer`]s (progress chunks go to
//! the caller as they arrive). The run ends in one of three ways:
//! - the leader exits: the pipes get [`BASH_DRAIN_GRACE_MS`] to reach EOF.
//!   If they do, the group is left alone (a child that redirected its output
//!   away, e.g. `server >log 2>&1 &`, keeps running as asked). If something
//!   still holds a pipe (`sleep 1000 &`), the whole group is SIGKILLed and
//!   reading stops, so the tool never hangs on an orphan;
//! - the timeout fires: SIGTERM to the group, then SIGKILL to the group after
//!   [`BASH_KILL_GRACE_MS`] (always, so children that ignore SIGTERM die too);
//! - `cancel` fires: SIGKILL to the group at once; the call returns within
//!   ~[`BASH_CANCEL_DRAIN_MS`] × 2.
//!
//! A [`ProcessGroup`] guard SIGKILLs the group if the call future is dropped
//! midway, so no exit path leaves the group running.

use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use orbit_tool::CommandLauncher;
use orbit_tool::texts::tools::bash as texts;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::time::{Instant, sleep_until, timeout};
use tokio_util::sync::CancellationToken;

use super::output::CappedBuffer;

/// After the leader exits, how long its pipes may stay open before the
/// group is killed.
pub(crate) const BASH_DRAIN_GRACE_MS: u64 = 150;
/// On timeout, the gap between SIGTERM and SIGKILL to the group.
pub(crate) const BASH_KILL_GRACE_MS: u64 = 200;
/// After SIGKILL, how long to wait for the leader to be reaped and for the
/// pipes to reach EOF (each).
pub(crate) const BASH_CANCEL_DRAIN_MS: u64 = 40;
/// Size of one read from a pipe.
const READ_CHUNK_BYTES: usize = 64 * 1024;
/// Progress is sent at most this often per stream.
const PROGRESS_INTERVAL_MS: u64 = 100;
/// Unsent progress kept per stream (the newest bytes win).
const PROGRESS_PENDING_MAX_BYTES: usize = 64 * 1024;

/// Environment every command gets on top of orbit's own: no pagers, no
/// interactive prompts (stdin is /dev/null, nobody would answer them).
pub(crate) const BASH_EXTRA_ENV: &[(&str, &str)] = &[
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_EDITOR", "true"),
];

/// `bash -c SCRIPT` in `cwd` (through `launcher` when set: confined by its
/// `confine` between fork and exec, else started through its program, the
/// OS sandbox helper), own process group, `stdin` (/dev/null, or the cwd report's pipe
/// that the script moves away first: [`super::cwd_report`]), output piped,
/// `hidden` variables removed (see [`super::environment`]).
pub(crate) fn shell_command(
    script: &str,
    cwd: &Path,
    stdin: Stdio,
    hidden: &[String],
    set_env: &[(String, std::ffi::OsString)],
    launcher: Option<&CommandLauncher>,
) -> std::io::Result<Command> {
    let confine = launcher.and_then(|l| l.confine.as_ref());
    let mut cmd = match launcher {
        Some(l) if confine.is_none() => {
            let mut cmd = Command::new(&l.program);
            cmd.args(&l.args).arg("bash");
            cmd
        }
        _ => Command::new("bash"),
    };
    cmd.arg("-c")
        .arg(script)
        .current_dir(cwd)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for (k, v) in BASH_EXTRA_ENV {
        cmd.env(k, v);
    }
    super::environment::apply_tool_env(&mut cmd, hidden, set_env);
    if let Some(c) = confine {
        c.0.confine(cmd.as_std_mut(), cwd)?;
    }
    Ok(cmd)
}

/// Quotes `s` for bash as one word.
pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A process group that is SIGKILLed when dropped unless released.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    pgid: i32,
    armed: AtomicBool,
}

impl ProcessGroup {
    pub(crate) fn new(pgid: i32) -> Self {
        Self {
            pgid,
            armed: AtomicBool::new(true),
        }
    }

    /// Sends `sig` to every process of the group (errors such as "no such
    /// process" mean the group is already gone).
    pub(crate) fn signal(&self, sig: Signal) {
        if self.pgid > 1 {
            let _ = killpg(Pid::from_raw(self.pgid), sig);
        }
    }

    pub(crate) fn kill(&self) {
        self.signal(Signal::SIGKILL);
    }

    /// The group is known to be finished (or meant to outlive the call):
    /// don't signal it on drop.
    pub(crate) fn release(&self) {
        self.armed.store(false, Ordering::SeqCst);
    }

    pub(crate) fn is_armed(&self) -> bool {
        self.armed.load(Ordering::SeqCst)
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.is_armed() {
            self.kill();
        }
    }
}

/// How a foreground run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunEnd {
    Exited(i32),
    Signaled(i32),
    TimedOut,
    Cancelled,
    /// Waiting on the child failed (rare OS error).
    WaitFailed(String),
}

/// Output and end of a foreground run.
#[derive(Debug)]
pub(crate) struct RunResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub end: RunEnd,
}

/// Why a command could not start.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("{}", texts::spawn_failed(.0))]
    Io(#[from] std::io::Error),
    #[error("{}", texts::SPAWN_NO_PID)]
    NoPid,
}

/// Runs `script` to its end (exit, timeout or cancel); see the module docs.
/// `progress` receives output chunks (lossy UTF-8) as they arrive; `stdin`
/// as in [`shell_command`].
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run_foreground(
    script: &str,
    cwd: &Path,
    stdin: Stdio,
    time_limit: Duration,
    cancel: &CancellationToken,
    progress: &(dyn Fn(String) + Sync),
    hidden_env: &[String],
    set_env: &[(String, std::ffi::OsString)],
    launcher: Option<&CommandLauncher>,
) -> Result<RunResult, SpawnError> {
    let mut child = shell_command(script, cwd, stdin, hidden_env, set_env, launcher)?.spawn()?;
    let pgid = child.id().ok_or(SpawnError::NoPid)?;
    let group = ProcessGroup::new(pgid as i32);
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(SpawnError::NoPid);
    };
    let out_buf = Mutex::new(CappedBuffer::default());
    let err_buf = Mutex::new(CappedBuffer::default());
    let readers = async {
        tokio::join!(
            pump(stdout, &out_buf, Some(progress)),
            pump(stderr, &err_buf, Some(progress))
        )
    };
    tokio::pin!(readers);
    let mut readers_done = false;
    let deadline = Instant::now() + time_limit;

    let mut end = loop {
        tokio::select! {
            status = child.wait() => break match status {
                Ok(s) => exit_status_end(s),
                Err(e) => RunEnd::WaitFailed(e.to_string()),
            },
            () = sleep_until(deadline) => break RunEnd::TimedOut,
            () = cancel.cancelled() => break RunEnd::Cancelled,
            _ = &mut readers, if !readers_done => readers_done = true,
        }
    };

    let post_kill = Duration::from_millis(BASH_CANCEL_DRAIN_MS);
    match end {
        RunEnd::Cancelled => {
            group.kill();
            let _ = timeout(post_kill, child.wait()).await;
        }
        RunEnd::TimedOut => {
            group.signal(Signal::SIGTERM);
            tokio::select! {
                _ = timeout(Duration::from_millis(BASH_KILL_GRACE_MS), child.wait()) => {}
                () = cancel.cancelled() => end = RunEnd::Cancelled,
            }
            group.kill();
            let _ = timeout(post_kill, child.wait()).await;
        }
        _ => {}
    }

    if !readers_done {
        let grace = if matches!(end, RunEnd::Cancelled | RunEnd::TimedOut) {
            post_kill
        } else {
            Duration::from_millis(BASH_DRAIN_GRACE_MS)
        };
        let drained = tokio::select! {
            r = timeout(grace, &mut readers) => r.is_ok(),
            () = cancel.cancelled() => {
                end = RunEnd::Cancelled;
                false
            }
        };
        if !drained {
            // Something in the group still holds a pipe: end it, then give
            // the readers a last moment to collect what was written.
            group.kill();
            let _ = timeout(post_kill, &mut readers).await;
        }
    }
    // Every path above either saw the pipes close or killed the group;
    // whatever is left redirected its output away on purpose.
    group.release();

    let stdout = lock_contents(&out_buf);
    let stderr = lock_contents(&err_buf);
    Ok(RunResult {
        stdout,
        stderr,
        end,
    })
}

fn lock_contents(buf: &Mutex<CappedBuffer>) -> Vec<u8> {
    match buf.lock() {
        Ok(b) => b.contents(),
        Err(p) => p.into_inner().contents(),
    }
}

pub(crate) fn exit_status_end(status: std::process::ExitStatus) -> RunEnd {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => RunEnd::Exited(code),
        (None, Some(sig)) => RunEnd::Signaled(sig),
        (None, None) => RunEnd::Exited(-1),
    }
}

/// Name of a signal number, e.g. `SIGKILL`.
pub(crate) fn signal_name(sig: i32) -> String {
    Signal::try_from(sig)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| texts::unknown_signal_name(sig))
}

/// Reads `reader` to EOF into `buf`, sending progress at most every
/// `PROGRESS_INTERVAL_MS` (whole lines when possible).
pub(crate) async fn pump<R: AsyncRead + Unpin>(
    mut reader: R,
    buf: &Mutex<CappedBuffer>,
    progress: Option<&(dyn Fn(String) + Sync)>,
) {
    let mut chunk = vec![0u8; READ_CHUNK_BYTES];
    let mut pending: Vec<u8> = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(PROGRESS_INTERVAL_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            n = reader.read(&mut chunk) => {
                let n = match n {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                match buf.lock() {
                    Ok(mut b) => b.push(&chunk[..n]),
                    Err(p) => p.into_inner().push(&chunk[..n]),
                }
                if progress.is_some() {
                    pending.extend_from_slice(&chunk[..n]);
                    if pending.len() > PROGRESS_PENDING_MAX_BYTES {
                        let cut = pending.len() - PROGRESS_PENDING_MAX_BYTES;
                        pending.drain(..cut);
                    }
                }
            }
            _ = tick.tick(), if !pending.is_empty() => {
                if let Some(p) = progress {
                    flush_lines(&mut pending, p);
                }
            }
        }
    }
    if let Some(p) = progress
        && !pending.is_empty()
    {
        p(String::from_utf8_lossy(&pending).into_owned());
    }
}

/// Sends `pending` up to its last newline (all of it when it has none).
fn flush_lines(pending: &mut Vec<u8>, progress: &(dyn Fn(String) + Sync)) {
    let end = pending
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(pending.len(), |i| i + 1);
    let sent: Vec<u8> = pending.drain(..end).collect();
    progress(String::from_utf8_lossy(&sent).into_owned());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
        assert_eq!(shell_quote("/tmp/x y"), "'/tmp/x y'");
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
    }
}
