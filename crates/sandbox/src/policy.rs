//! The sandbox policy: what a sandboxed command may write, may not read and
//! whether it may use the network, plus its encoding as the arguments of
//! the helper (`orbit sandbox --mode … --writable DIR … -- CMD`).
//!
//! Flow: the parent (the CLI) builds a [`SandboxPolicy`] from the settings,
//! turns it into helper arguments with [`SandboxPolicy::to_args`]; the
//! helper parses them back with [`parse_helper_args`] and applies the
//! result to itself (`crate::apply`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::SandboxError;

/// How much of the file system a sandboxed command may change. Ordered
/// from the strictest (`ReadOnly < WorkspaceWrite < DangerFullAccess`), so
/// `a < b` reads "a allows less than b".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SandboxMode {
    /// Reads everywhere except the deny list; writes only in the private
    /// temp dir.
    ReadOnly,
    /// Reads as read-only; writes under the writable roots (the workspace,
    /// `--add-dir`s, `sandbox.writableRoots`) and the private temp dir;
    /// protected paths inside them stay read-only.
    WorkspaceWrite,
    /// No sandbox at all.
    DangerFullAccess,
}

impl SandboxMode {
    /// The flag/settings spelling (`read-only`, `workspace-write`,
    /// `danger-full-access`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::DangerFullAccess => "danger-full-access",
        }
    }

    /// Parses the flag/settings spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::ReadOnly, Self::WorkspaceWrite, Self::DangerFullAccess]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// Whether a sandboxed command may open network sockets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkPolicy {
    /// No inet/inet6/netlink/packet/unix socket may be created, no TCP
    /// connect or bind (the default).
    Off,
    /// TCP connects only to this port on the loopback proxy that passes the
    /// allowed hosts; no other socket family, no UDP.
    Proxy(u16),
    /// Unrestricted.
    On,
}

/// Files and directories inside a writable root that stay read-only
/// (settings and git's program hooks: writing them runs code later).
pub const PROTECTED_SUBPATHS: &[&str] = &[".git/hooks", ".git/config", ".orbit", ".claude"];

/// Paths under `$HOME` no sandboxed command may read.
pub const DEFAULT_DENY_READ_IN_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".netrc",
    ".docker/config.json",
    ".kube/config",
];

/// One sandbox policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// File-system mode.
    pub mode: SandboxMode,
    /// Directories writable in [`SandboxMode::WorkspaceWrite`] (the
    /// command's cwd when this is empty); in read-only mode they stay
    /// visible when they lie under `/tmp`.
    pub writable_roots: Vec<PathBuf>,
    /// The session's private temp dir: mounted over `/tmp` in the
    /// command's mount namespace (`TMPDIR=/tmp`), or, where no namespace
    /// can be made, the command's `TMPDIR` and only writable temp dir.
    /// None: an empty tmpfs over `/tmp` per command (no temp dir is
    /// writable without a namespace).
    pub private_tmp: Option<PathBuf>,
    /// Paths no command may read (nor write), on top of
    /// [`DEFAULT_DENY_READ_IN_HOME`].
    pub deny_read: Vec<PathBuf>,
    /// Network access.
    pub network: NetworkPolicy,
}

impl SandboxPolicy {
    /// A policy of `mode` with no extra roots or deny paths, network off.
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            writable_roots: Vec::new(),
            private_tmp: None,
            deny_read: Vec::new(),
            network: NetworkPolicy::Off,
        }
    }

    /// The helper's arguments for this policy (everything between
    /// `orbit sandbox` and `--`).
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["--mode".into(), self.mode.as_str().into()];
        for dir in &self.writable_roots {
            args.push("--writable".into());
            args.push(dir.clone().into_os_string());
        }
        if let Some(dir) = &self.private_tmp {
            args.push("--tmp".into());
            args.push(dir.clone().into_os_string());
        }
        for path in &self.deny_read {
            args.push("--deny-read".into());
            args.push(path.clone().into_os_string());
        }
        args.push("--network".into());
        args.push(match self.network {
            NetworkPolicy::Off => "off".into(),
            NetworkPolicy::On => "on".into(),
            NetworkPolicy::Proxy(port) => format!("proxy:{port}").into(),
        });
        args
    }

    /// Every path the policy keeps unreadable: the default list under
    /// `home` plus [`Self::deny_read`].
    pub fn deny_read_paths(&self, home: Option<&Path>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = home
            .map(|h| {
                DEFAULT_DENY_READ_IN_HOME
                    .iter()
                    .map(|p| h.join(p))
                    .collect()
            })
            .unwrap_or_default();
        out.extend(self.deny_read.iter().cloned());
        out
    }
}

/// A parsed helper command line: the policy and the command to exec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperArgs {
    /// The policy to apply.
    pub policy: SandboxPolicy,
    /// The program and its arguments (after `--`).
    pub command: Vec<OsString>,
}

/// Parses `[--mode M] [--writable DIR]… [--tmp DIR] [--deny-read P]…
/// [--network N] -- CMD ARGS…` (the arguments after `orbit sandbox`). The
/// default mode is workspace-write, the default network off.
pub fn parse_helper_args(args: &[OsString]) -> Result<HelperArgs, SandboxError> {
    let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    let mut it = args.iter();
    let usage = |what: String| SandboxError::Usage(what);
    while let Some(arg) = it.next() {
        let flag = arg.to_string_lossy();
        if flag == "--" {
            let command: Vec<OsString> = it.cloned().collect();
            if command.is_empty() {
                return Err(usage("no command after `--`".into()));
            }
            return Ok(HelperArgs { policy, command });
        }
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{flag} needs a value")))
        };
        match flag.as_ref() {
            "--mode" => {
                let v = value()?;
                policy.mode = SandboxMode::parse(&v.to_string_lossy())
                    .ok_or_else(|| usage(format!("unknown mode {}", v.to_string_lossy())))?;
            }
            "--writable" => policy.writable_roots.push(PathBuf::from(value()?)),
            "--tmp" => policy.private_tmp = Some(PathBuf::from(value()?)),
            "--deny-read" => policy.deny_read.push(PathBuf::from(value()?)),
            "--network" => {
                let v = value()?.to_string_lossy().into_owned();
                policy.network = match v.as_str() {
                    "off" => NetworkPolicy::Off,
                    "on" => NetworkPolicy::On,
                    _ => match v.strip_prefix("proxy:").and_then(|p| p.parse().ok()) {
                        Some(port) => NetworkPolicy::Proxy(port),
                        None => return Err(usage(format!("unknown network policy {v}"))),
                    },
                };
            }
            other => return Err(usage(format!("unknown argument {other}"))),
        }
    }
    Err(usage("missing `-- COMMAND`".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_round_trip() {
        let cases = [
            SandboxPolicy::new(SandboxMode::ReadOnly),
            SandboxPolicy {
                mode: SandboxMode::WorkspaceWrite,
                writable_roots: vec!["/w a".into(), "/b".into()],
                private_tmp: Some("/t".into()),
                deny_read: vec!["/secret".into()],
                network: NetworkPolicy::Proxy(4321),
            },
            SandboxPolicy {
                network: NetworkPolicy::On,
                ..SandboxPolicy::new(SandboxMode::DangerFullAccess)
            },
        ];
        for policy in cases {
            let mut args = policy.to_args();
            args.extend(["--".into(), "true".into()]);
            let parsed = parse_helper_args(&args).map(|h| h.policy);
            assert_eq!(parsed.ok(), Some(policy));
        }
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        let cases: &[&[&str]] = &[
            &[],
            &["--mode", "bogus", "--", "x"],
            &["--writable"],
            &["--network", "maybe", "--", "x"],
            &["--frobnicate", "--", "x"],
            &["--mode", "read-only", "--"],
        ];
        for case in cases {
            let args: Vec<OsString> = case.iter().map(OsString::from).collect();
            assert!(
                matches!(parse_helper_args(&args), Err(SandboxError::Usage(_))),
                "{case:?}"
            );
        }
    }

    #[test]
    fn default_deny_list_is_under_home() {
        let p = SandboxPolicy {
            deny_read: vec!["/x".into()],
            ..SandboxPolicy::new(SandboxMode::ReadOnly)
        };
        let paths = p.deny_read_paths(Some(Path::new("/h")));
        assert!(paths.contains(&PathBuf::from("/h/.ssh")));
        assert!(paths.contains(&PathBuf::from("/h/.netrc")));
        assert!(paths.contains(&PathBuf::from("/x")));
    }
}
