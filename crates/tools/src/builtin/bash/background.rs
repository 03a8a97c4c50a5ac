//! Background shells (`run_in_background: true`): the session-level registry
//! BashOutput and KillShell read, and the task that watches each process.
//!
//! [`BackgroundShells`] lives in the session's [`ToolUseContext`] under
//! `BACKGROUND_EXTENSION_KEY`. `BackgroundShells::spawn` starts `bash -c`
//! in its own process group and returns at once with an id (`bash_1`, …); a
//! tokio task reads both pipes into the shell's `CappedBuffer`s and records
//! the exit status. BashOutput takes what arrived since its last read
//! (`BackgroundShell::take_new_output`); KillShell SIGKILLs the group.
//! Dropping the registry (the session ends) SIGKILLs every group that may
//! still be alive, so no background process outlives orbit's session.

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use orbit_tool::texts::tools::bash as texts;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

use super::output::CappedBuffer;
/// Why a shell could not be started ([`BackgroundShells::spawn`]).
pub use super::process::SpawnError;
use super::process::{
    BASH_DRAIN_GRACE_MS, ProcessGroup, RunEnd, exit_status_end, pump, shell_command,
};
use crate::context::ToolUseContext;

/// Key of the registry in [`ToolUseContext::extension`].
pub(crate) const BACKGROUND_EXTENSION_KEY: &str = "bash.background";

/// Where a background shell is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStatus {
    Running,
    /// The leader exited; code 128+N when a signal other than ours ended it.
    Exited(i32),
    /// Ended by KillShell or the session ending.
    Killed,
}

impl ShellStatus {
    /// The word BashOutput reports (Claude Code's: running, completed,
    /// failed, killed).
    pub fn label(self) -> &'static str {
        match self {
            ShellStatus::Running => texts::SHELL_STATUS_RUNNING,
            ShellStatus::Exited(0) => texts::SHELL_STATUS_COMPLETED,
            ShellStatus::Exited(_) => texts::SHELL_STATUS_FAILED,
            ShellStatus::Killed => texts::SHELL_STATUS_KILLED,
        }
    }
}

#[derive(Debug)]
struct ReadState {
    status: ShellStatus,
    stdout_pos: u64,
    stderr_pos: u64,
}

/// One background command.
#[derive(Debug)]
pub struct BackgroundShell {
    pub id: String,
    pub command: String,
    group: ProcessGroup,
    stdout: Mutex<CappedBuffer>,
    stderr: Mutex<CappedBuffer>,
    state: Mutex<ReadState>,
    /// Both pipes reached EOF: nothing of the group holds them any more.
    pipes_closed: AtomicBool,
    kill: CancellationToken,
}

/// New output of a shell since the previous read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NewOutput {
    pub status: ShellStatus,
    pub stdout: String,
    pub stderr: String,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

impl BackgroundShell {
    pub fn status(&self) -> ShellStatus {
        lock(&self.state).status
    }

    /// Output produced since the last call (lossy UTF-8), and the status.
    pub(crate) fn take_new_output(&self) -> NewOutput {
        let mut state = lock(&self.state);
        let (out, out_pos) = lock(&self.stdout).read_from(state.stdout_pos);
        let (err, err_pos) = lock(&self.stderr).read_from(state.stderr_pos);
        state.stdout_pos = out_pos;
        state.stderr_pos = err_pos;
        NewOutput {
            status: state.status,
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&err).into_owned(),
        }
    }

    /// Bytes received so far on (stdout, stderr), read or not (for UIs and
    /// tests waiting for output without consuming it).
    pub fn received_bytes(&self) -> (u64, u64) {
        (lock(&self.stdout).total(), lock(&self.stderr).total())
    }

    /// SIGKILLs the group; `false` when the shell had already ended.
    pub(crate) fn kill(&self) -> bool {
        let mut state = lock(&self.state);
        if state.status != ShellStatus::Running {
            // The leader is gone, but a child may still hold the pipes.
            if !self.pipes_closed.load(Ordering::SeqCst) {
                self.group.kill();
            }
            return false;
        }
        state.status = ShellStatus::Killed;
        drop(state);
        self.group.kill();
        self.kill.cancel();
        true
    }

    fn may_be_alive(&self) -> bool {
        self.status() == ShellStatus::Running || !self.pipes_closed.load(Ordering::SeqCst)
    }
}

/// The session's background shells.
#[derive(Debug, Default)]
pub struct BackgroundShells {
    next_id: AtomicU64,
    shells: Mutex<Vec<Arc<BackgroundShell>>>,
}

impl BackgroundShells {
    /// The session's registry (created on first use).
    pub fn of(ctx: &ToolUseContext) -> Arc<BackgroundShells> {
        ctx.extension(BACKGROUND_EXTENSION_KEY, BackgroundShells::default)
    }

    pub fn get(&self, id: &str) -> Option<Arc<BackgroundShell>> {
        lock(&self.shells).iter().find(|s| s.id == id).cloned()
    }

    /// Ids of all shells, oldest first.
    pub fn ids(&self) -> Vec<String> {
        lock(&self.shells).iter().map(|s| s.id.clone()).collect()
    }

    /// Starts `command` in `cwd` (through `launcher` when set, see
    /// [`orbit_tool::ToolUseContext::launcher`]); returns at once. Needs a
    /// tokio runtime.
    pub fn spawn(
        &self,
        command: &str,
        cwd: &Path,
        hidden_env: &[String],
        set_env: &[(String, std::ffi::OsString)],
        launcher: Option<&orbit_tool::CommandLauncher>,
    ) -> Result<Arc<BackgroundShell>, SpawnError> {
        let mut child =
            shell_command(command, cwd, Stdio::null(), hidden_env, set_env, launcher)?.spawn()?;
        let pgid = child.id().ok_or(SpawnError::NoPid)?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(SpawnError::NoPid);
        };
        let n = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let shell = Arc::new(BackgroundShell {
            id: format!("bash_{n}"),
            command: command.to_string(),
            group: ProcessGroup::new(pgid as i32),
            stdout: Mutex::new(CappedBuffer::default()),
            stderr: Mutex::new(CappedBuffer::default()),
            state: Mutex::new(ReadState {
                status: ShellStatus::Running,
                stdout_pos: 0,
                stderr_pos: 0,
            }),
            pipes_closed: AtomicBool::new(false),
            kill: CancellationToken::new(),
        });
        lock(&self.shells).push(shell.clone());

        let watched = shell.clone();
        tokio::spawn(async move {
            let shell = watched;
            let readers = async {
                tokio::join!(
                    pump(stdout, &shell.stdout, None),
                    pump(stderr, &shell.stderr, None)
                );
                shell.pipes_closed.store(true, Ordering::SeqCst);
            };
            tokio::pin!(readers);
            let mut readers_done = false;
            let end = loop {
                tokio::select! {
                    status = child.wait() => break status.ok().map(exit_status_end),
                    () = shell.kill.cancelled() => {
                        shell.group.kill();
                        break None;
                    }
                    () = &mut readers, if !readers_done => readers_done = true,
                }
            };
            if !readers_done {
                // Let the last output land before the status says "done".
                let grace = Duration::from_millis(BASH_DRAIN_GRACE_MS);
                readers_done = timeout(grace, &mut readers).await.is_ok();
            }
            {
                let mut state = lock(&shell.state);
                if state.status == ShellStatus::Running {
                    state.status = match end {
                        Some(RunEnd::Exited(code)) => ShellStatus::Exited(code),
                        Some(RunEnd::Signaled(sig)) => ShellStatus::Exited(128 + sig),
                        _ => ShellStatus::Killed,
                    };
                }
            }
            if !readers_done {
                // A child still holds a pipe: keep collecting until it ends
                // or is killed (KillShell / session end).
                tokio::select! {
                    () = &mut readers => {}
                    () = shell.kill.cancelled() => {}
                }
            }
            let _ = child.wait().await;
            // Pipes closed or the group was killed: nothing left to guard.
            shell.group.release();
        });
        Ok(shell)
    }

    /// SIGKILLs every group that may still be alive (also done on drop).
    pub fn kill_all(&self) {
        for shell in lock(&self.shells).iter() {
            if shell.may_be_alive() {
                shell.group.kill();
                let mut state = lock(&shell.state);
                if state.status == ShellStatus::Running {
                    state.status = ShellStatus::Killed;
                }
            }
            shell.kill.cancel();
            shell.group.release();
        }
    }
}

impl Drop for BackgroundShells {
    fn drop(&mut self) {
        self.kill_all();
    }
}
