//! Runs one hook command: `sh -c COMMAND` in the project directory, in its
//! own process group, the input JSON on stdin, `CLAUDE_PROJECT_DIR` and
//! `ORBIT_PROJECT_DIR` set. stdout and stderr are read as they come (a
//! hook never blocks on a full pipe) and kept up to
//! [`HOOK_OUTPUT_CAP_BYTES`] each, the rest read and dropped. When the
//! timeout passes, the whole group is killed. When the command has exited
//! but something it started still holds its pipes, the group is killed
//! after [`HOOK_PIPE_GRACE_MS`]. Nothing here can hang the caller for
//! longer than the timeout plus that grace.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::task::JoinHandle;

use crate::config::HookCommand;

/// At most this many bytes of a hook's stdout, and of its stderr, are kept.
pub const HOOK_OUTPUT_CAP_BYTES: usize = 64 * 1024;
/// After the command exits, how long its pipes may stay open, in ms.
pub const HOOK_PIPE_GRACE_MS: u64 = 500;

/// Why a run did not end with an exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunFailure {
    /// Killed after this many ms.
    TimedOut(u64),
    /// Ended by this signal.
    Signal(i32),
    /// `sh` could not be started.
    Spawn(String),
}

/// What one command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
    /// stdout (lossy UTF-8, capped).
    pub stdout: String,
    /// stderr (lossy UTF-8, capped).
    pub stderr: String,
    /// Whether either stream passed the cap.
    pub truncated: bool,
    /// Set when there is no exit code.
    pub failure: Option<RunFailure>,
}

impl HookRun {
    /// A run that ended without an exit code, for `failure`.
    pub(crate) fn failed(failure: RunFailure) -> Self {
        Self {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            truncated: false,
            failure: Some(failure),
        }
    }
}

/// Runs `hook` with `input` on stdin in `project_dir`, `env` added to
/// orbit's environment.
pub async fn run_command(
    hook: &HookCommand,
    input: &[u8],
    project_dir: &Path,
    env: &[(String, std::ffi::OsString)],
) -> HookRun {
    let mut cmd = Command::new("sh");
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    cmd.arg("-c")
        .arg(&hook.command)
        .current_dir(project_dir)
        .env("CLAUDE_PROJECT_DIR", project_dir)
        .env("ORBIT_PROJECT_DIR", project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(err) => return HookRun::failed(RunFailure::Spawn(err.to_string())),
    };
    let pgid = child.id();
    let stdout = spawn_reader(child.stdout.take());
    let stderr = spawn_reader(child.stderr.take());
    let stdin = child.stdin.take();
    let input = input.to_vec();
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input closes the pipe: fine.
            let _ = stdin.write_all(&input).await;
        }
    };
    let timeout = Duration::from_millis(hook.timeout_ms);
    let waited = tokio::time::timeout(timeout, async {
        let ((), status) = tokio::join!(write, child.wait());
        status
    })
    .await;
    let status = match waited {
        Ok(status) => status.ok(),
        Err(_) => {
            kill_group(pgid);
            let _ = child.wait().await;
            None
        }
    };
    let grace = Duration::from_millis(HOOK_PIPE_GRACE_MS);
    let (stdout, out_cut) = collect(stdout, grace, pgid).await;
    let (stderr, err_cut) = collect(stderr, grace, pgid).await;
    let failure = match status {
        None => Some(RunFailure::TimedOut(hook.timeout_ms)),
        Some(status) if status.code().is_none() => {
            use std::os::unix::process::ExitStatusExt;
            Some(RunFailure::Signal(status.signal().unwrap_or(0)))
        }
        Some(_) => None,
    };
    HookRun {
        exit_code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        truncated: out_cut || err_cut,
        failure,
    }
}

type Reader = Option<JoinHandle<(Vec<u8>, bool)>>;

fn spawn_reader(pipe: Option<impl AsyncRead + Unpin + Send + 'static>) -> Reader {
    let mut pipe = pipe?;
    Some(tokio::spawn(async move {
        let mut kept = Vec::new();
        let mut cut = false;
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = HOOK_OUTPUT_CAP_BYTES.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    cut |= n > room;
                }
            }
        }
        (kept, cut)
    }))
}

/// The reader's text; when the pipe stays open past `grace` (a process the
/// hook left behind holds it), the group is killed and the read ends.
async fn collect(reader: Reader, grace: Duration, pgid: Option<u32>) -> (String, bool) {
    let Some(mut handle) = reader else {
        return (String::new(), false);
    };
    let joined = match tokio::time::timeout(grace, &mut handle).await {
        Ok(joined) => joined,
        Err(_) => {
            kill_group(pgid);
            handle.await
        }
    };
    let (bytes, cut) = joined.unwrap_or_default();
    (String::from_utf8_lossy(&bytes).into_owned(), cut)
}

fn kill_group(pgid: Option<u32>) {
    let Some(pgid) = pgid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    // The group may be gone already; nothing else to do then.
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}
