//! A warm model by default for people (issue 38): after an interactive run
//! the local server stays up for an idle period, as Ollama keeps a model,
//! so the next run answers in seconds instead of loading the model again.
//!
//! Flow: [`keep_alive_from`] decides the period — `ORBIT_LOCAL_KEEP_ALIVE`
//! (seconds, `0` off) when set, else [`DEFAULT_KEEP_ALIVE_SECS`] for an
//! interactive run (a terminal on stdin or stdout) and 0 otherwise or when
//! `CI` is set (the test suite runs orbit with pipes) →
//! `LocalServer::acquire` with a period and no warm server calls
//! `start_shared`: it spawns `orbit local serve --idle-timeout N` in its
//! own process group (a Ctrl-C of the run does not reach it) and waits
//! until that server is recorded and healthy → the run leases it like any
//! warm server. The serve process stops the server once no run has held a
//! lease for the period (memory returned); concurrent orbits share it
//! through `serve`'s lock. [`idle_stop_in`] tells `orbit local status` when
//! it will stop.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::LocalPaths;
use crate::warm::{ServerRecord, last_used, leased, now_secs, warm_server};

/// Idle period of the shared server after an interactive run, in seconds.
pub const DEFAULT_KEEP_ALIVE_SECS: u64 = 300;
/// The variable that sets the period (seconds; `0` turns it off).
pub const KEEP_ALIVE_VAR: &str = "ORBIT_LOCAL_KEEP_ALIVE";
/// Interval between checks while the shared server starts, in milliseconds.
const SHARED_POLL_MS: u64 = 200;

/// The keep-alive period: `ORBIT_LOCAL_KEEP_ALIVE` when set (an invalid
/// value is off), else the default for an `interactive` run outside CI.
pub fn keep_alive_from(lookup: impl Fn(&str) -> Option<String>, interactive: bool) -> Duration {
    if let Some(value) = lookup(KEEP_ALIVE_VAR) {
        return Duration::from_secs(value.trim().parse().unwrap_or(0));
    }
    let ci = lookup("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    if interactive && !ci {
        Duration::from_secs(DEFAULT_KEEP_ALIVE_SECS)
    } else {
        Duration::ZERO
    }
}

/// The period for this process: its environment, and a terminal on stdin
/// or stdout (the TUI, or `-p` typed by a person).
pub fn keep_alive() -> Duration {
    let interactive = std::io::stdin().is_terminal() || std::io::stdout().is_terminal();
    keep_alive_from(|k| std::env::var(k).ok(), interactive)
}

/// Set by [`this_binary_serves`]: this process is the orbit CLI, whatever
/// its file is called.
static THIS_BINARY_SERVES: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Declares that this process's own binary runs `local serve` (the orbit
/// CLI calls it at start), so a renamed copy (`orbit-1.2`, a benchmark's
/// `orbit-head`) shares the warm server as `orbit` does. A program that
/// embeds the library does not call it and gets a private server.
pub fn this_binary_serves() {
    THIS_BINARY_SERVES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The `orbit` binary to run `orbit local serve` with: this process when it
/// is orbit (declared, or named so); None for a program embedding the
/// library (it gets a private server).
fn serve_program() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let declared = THIS_BINARY_SERVES.load(std::sync::atomic::Ordering::Relaxed);
    (declared || exe.file_name()? == "orbit").then_some(exe)
}

/// Starts (or joins) the shared server kept `keep_alive` after its last
/// use and waits up to `within` until it is recorded and healthy; None when
/// it cannot be started so (the caller starts a private server).
pub(crate) fn start_shared(
    paths: &LocalPaths,
    keep_alive: Duration,
    within: Duration,
) -> Option<ServerRecord> {
    let program = serve_program()?;
    let mut child = serve_command(&program, keep_alive).spawn().ok()?;
    let deadline = Instant::now() + within;
    loop {
        if let Some(record) = warm_server(paths) {
            // The serve process outlives this run: never waited for here.
            drop(child);
            return Some(record);
        }
        if let Ok(Some(_)) = child.try_wait() {
            // It found another's server (then recorded above) or failed.
            return warm_server(paths);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(SHARED_POLL_MS));
    }
}

/// `PROGRAM local serve --idle-timeout N`, detached from the run's
/// terminal and process group, with this process's environment.
fn serve_command(program: &Path, keep_alive: Duration) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(program);
    cmd.args(["local", "serve", "--idle-timeout"])
        .arg(keep_alive.as_secs().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    cmd
}

/// When the warm server stops without further use: `Some(seconds)` from
/// now (0 = any moment), None while a run uses it or when none runs.
pub fn idle_stop_in(paths: &LocalPaths) -> Option<u64> {
    let record = warm_server(paths)?;
    if leased(paths) {
        return None;
    }
    let last = last_used(paths);
    let stop_at = last.saturating_add(record.idle_timeout_secs);
    Some(stop_at.saturating_sub(now_secs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_follows_the_variable_the_terminal_and_ci() {
        let default = Duration::from_secs(DEFAULT_KEEP_ALIVE_SECS);
        // (variables, interactive, keep-alive)
        type Case = (&'static [(&'static str, &'static str)], bool, Duration);
        let cases: &[Case] = &[
            (&[], true, default),
            (&[], false, Duration::ZERO),
            (&[("CI", "true")], true, Duration::ZERO),
            (&[(KEEP_ALIVE_VAR, "0")], true, Duration::ZERO),
            (
                &[(KEEP_ALIVE_VAR, "7"), ("CI", "1")],
                false,
                Duration::from_secs(7),
            ),
            (&[(KEEP_ALIVE_VAR, "soon")], true, Duration::ZERO),
        ];
        for (vars, interactive, want) in cases {
            let got = keep_alive_from(orbit_test_support::vars::lookup(vars), *interactive);
            assert_eq!(got, *want, "{vars:?}, interactive {interactive}");
        }
    }
}
