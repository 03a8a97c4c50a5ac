//! orbit's OS sandbox for shell commands (Linux): what permission rules
//! cannot see — what `python3 x.py` or `npm test` really touch — the
//! kernel stops.
//!
//! Flow: the CLI turns settings and flags into a [`SandboxPolicy`]
//! (`policy.rs`), tries each layer once in a forked child
//! ([`Support::probe_tried`], `trial.rs`: what cannot be applied is named
//! in one start-up line), and hands the Bash tool a [`Sandbox`] that confines each command between fork and exec
//! ([`Sandbox::confine`]: a `pre_exec` hook making only system calls on
//! what was prepared before the fork — private mount namespace with
//! read-only binds over protected paths, `no_new_privs`, Landlock,
//! seccomp); everything the command spawns inherits the policy. The same
//! steps serve `orbit sandbox <policy args> -- CMD` ([`helper_main`],
//! [`SandboxPolicy::to_args`]), which applies them to itself and execs.

#![deny(missing_docs)]

mod apply;
mod child;
mod landlock_rules;
mod layout;
mod mount_api;
mod mounts;
mod policy;
mod prepare;
mod probe;
mod proxy;
mod seccomp;
mod trial;

pub use apply::{Applied, PROBE_NAMESPACE_ARG, apply_to_self, helper_main};
pub use child::SANDBOX_HELPER_FAILED_EXIT;
pub use layout::{Layout, layout};
pub use policy::{
    DEFAULT_DENY_READ_IN_HOME, HelperArgs, NetworkPolicy, PROTECTED_SUBPATHS, SandboxMode,
    SandboxPolicy, parse_helper_args,
};
pub use prepare::{Prepared, Sandbox};
pub use probe::{Missing, Support, probe_namespace};
pub use proxy::DomainProxy;
pub use trial::{FORCE_FAIL_ENV, Layer};

/// The name of the helper subcommand (`orbit sandbox`).
pub const HELPER_SUBCOMMAND: &str = "sandbox";

/// Why a policy could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The helper's command line is malformed.
    #[error(
        "usage: orbit sandbox [--mode read-only|workspace-write|danger-full-access] [--writable DIR]... [--tmp DIR] [--deny-read PATH]... [--network off|on|proxy:PORT] -- COMMAND [ARGS]... ({0})"
    )]
    Usage(String),
    /// The mount namespace was made but could not be finished.
    #[error("mount namespace: {0}")]
    Mounts(String),
    /// `PR_SET_NO_NEW_PRIVS` failed.
    #[error("cannot set no_new_privs: {0}")]
    NoNewPrivs(String),
    /// Building or applying the Landlock ruleset failed.
    #[error("Landlock: {0}")]
    Landlock(String),
    /// Building or installing the seccomp filter failed.
    #[error("seccomp: {0}")]
    Seccomp(String),
    /// A step of applying the prepared policy failed.
    #[error("{0}")]
    Applying(String),
}
