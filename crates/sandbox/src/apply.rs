//! Applying a policy to the calling process, then exec'ing the command:
//! what `orbit sandbox … -- CMD` does between its start and `execvp`
//! (the same prepared steps as the Bash tool's `pre_exec` hook,
//! `crate::prepare`).
//!
//! Order matters: the mount namespace first (Landlock and seccomp would
//! forbid it; it also decides where the temp dir is: `/tmp` made private,
//! else the session's temp dir by its own path, exported as `TMPDIR`), then `PR_SET_NO_NEW_PRIVS` (setuid programs can no longer
//! gain rights, and unprivileged seccomp needs it), Landlock, and seccomp
//! last (it blocks the namespace calls the earlier steps use). Everything
//! the command starts inherits all of it.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::SandboxError;
use crate::child::SANDBOX_HELPER_FAILED_EXIT;
use crate::policy::{SandboxPolicy, parse_helper_args};
use crate::prepare::{Prepared, Sandbox};

/// The helper's only argument when the parent asks whether the mount
/// namespace can be made (`orbit sandbox --probe-namespace`): exit 0 when
/// it can, else 1 with the reason on stdout.
pub const PROBE_NAMESPACE_ARG: &str = "--probe-namespace";

/// What [`apply_to_self`] set up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// The command's `TMPDIR` (None: leave it as it is).
    pub tmpdir: Option<PathBuf>,
}

/// Applies `policy` to this process (single-threaded: the helper) and
/// returns the environment the command gets. A mount namespace that
/// cannot be made is skipped (noted with `ORBIT_SANDBOX_DEBUG=1`; the
/// session's probe names it at start): the temp dir is then the session's
/// by its own path. A namespace changed only in part, Landlock and seccomp
/// errors are returned.
fn apply_here(policy: &SandboxPolicy, cwd: &Path) -> Result<Prepared, SandboxError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut prepared = Sandbox::new(policy.clone(), true, home.clone())?.prepare(cwd)?;
    if let Err(e) = prepared.enter() {
        if std::env::var_os("ORBIT_SANDBOX_DEBUG").is_some() {
            eprintln!("orbit sandbox: mount namespace skipped: {e}");
        }
        prepared = Sandbox::new(policy.clone(), false, home)?.prepare(cwd)?;
    }
    prepared
        .apply_after_enter()
        .map_err(|f| SandboxError::Applying(f.to_string()))?;
    Ok(prepared)
}

/// Applies `policy` to this process (see `apply_here`): for a process
/// that then execs by itself. Returns the `TMPDIR` to give the command.
pub fn apply_to_self(policy: &SandboxPolicy, cwd: &Path) -> Result<Applied, SandboxError> {
    let prepared = apply_here(policy, cwd)?;
    let mut command = std::process::Command::new("true");
    prepared.set_env(&mut command);
    let tmpdir = command
        .get_envs()
        .find(|(k, _)| *k == "TMPDIR")
        .and_then(|(_, v)| v.map(PathBuf::from));
    Ok(Applied { tmpdir })
}

/// The helper's whole life: parse `args` (after `orbit sandbox`), apply the
/// policy, exec the command. Returns only on failure, with the exit status
/// to use (the error is printed to stderr).
pub fn helper_main(args: &[OsString]) -> i32 {
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("orbit sandbox: {e}");
        SANDBOX_HELPER_FAILED_EXIT
    };
    if args.len() == 1 && args[0] == PROBE_NAMESPACE_ARG {
        return match crate::probe::try_namespace() {
            Ok(()) => 0,
            Err(e) => {
                println!("{e}");
                1
            }
        };
    }
    let parsed = match parse_helper_args(args) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let (program, rest) = match parsed.command.split_first() {
        Some(split) => split,
        None => return fail(&"no command"),
    };
    let prepared = match apply_here(&parsed.policy, &cwd) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let mut command = std::process::Command::new(program);
    command.args(rest);
    prepared.set_env(&mut command);
    let err = command.exec();
    fail(&format_args!("{}: {err}", program.to_string_lossy()))
}
