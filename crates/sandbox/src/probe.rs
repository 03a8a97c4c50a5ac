//! What the running kernel offers the sandbox (asked once by the parent,
//! so a missing protection is reported once, not per command), and the
//! texts that say what is missing and what orbit does instead.
#![allow(unsafe_code)]

use std::path::Path;
use std::process::{Command, Stdio};

use crate::policy::{NetworkPolicy, SandboxMode, SandboxPolicy};

/// `landlock_create_ruleset` flag that asks for the ABI version.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// The sandbox features of the running kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version, None when Landlock is missing or disabled.
    pub landlock_abi: Option<i32>,
    /// seccomp filters can be installed.
    pub seccomp: bool,
    /// A private mount namespace can be made (root, or unprivileged user
    /// namespaces allowed).
    pub mount_namespace: bool,
}

impl Support {
    /// Asks the kernel, and `helper` (this program: `helper sandbox
    /// --probe-namespace`) whether the mount namespace can really be made
    /// (root in a container without `CAP_SYS_ADMIN` cannot). The reason it
    /// cannot is returned too.
    pub fn probe_with_helper(helper: &Path) -> (Self, Option<String>) {
        let mut support = Self::probe();
        if !support.mount_namespace {
            return (support, Some("user namespaces are disabled".into()));
        }
        let out = Command::new(helper)
            .args([crate::HELPER_SUBCOMMAND, crate::PROBE_NAMESPACE_ARG])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        let failed = match out {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(String::from_utf8_lossy(&o.stdout).trim().to_string()),
            Err(e) => Some(format!("running {}: {e}", helper.display())),
        };
        support.mount_namespace = failed.is_none();
        (support, failed)
    }

    /// Asks the kernel (the mount namespace: whether it is allowed at all).
    pub fn probe() -> Self {
        // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns the
        // ABI version (or -1 with errno); no memory is passed.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        // SAFETY: PR_GET_SECCOMP takes no pointer; it returns the mode or -1.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
        Self {
            landlock_abi: (abi > 0).then_some(abi as i32),
            seccomp,
            mount_namespace: nix::unistd::geteuid().is_root() || user_namespaces_allowed(),
        }
    }

    /// One line per protection `policy` needs that this kernel lacks,
    /// saying what orbit does instead. `fatal` is true when the file-system
    /// part cannot be enforced at all (then commands would run unconfined).
    pub fn missing(&self, policy: &SandboxPolicy) -> Missing {
        let mut lines = Vec::new();
        if policy.mode == SandboxMode::DangerFullAccess {
            return Missing::default();
        }
        let fatal = self.landlock_abi.is_none() || !self.seccomp;
        if self.landlock_abi.is_none() {
            lines.push(
                "Landlock is not available: file-system limits cannot be enforced".to_string(),
            );
        }
        if !self.seccomp {
            lines.push(
                "seccomp is not available: network and syscall limits cannot be enforced".into(),
            );
        }
        if let (NetworkPolicy::Proxy(_), Some(abi)) = (policy.network, self.landlock_abi)
            && abi < 4
        {
            lines.push(format!(
                "Landlock ABI {abi} < 4 has no TCP rules: a sandboxed TCP connect is not limited to the proxy port"
            ));
        }
        if !self.mount_namespace {
            let tmp = match &policy.private_tmp {
                Some(dir) => format!("commands get the private TMPDIR {}", dir.display()),
                None => "commands get no writable temp dir".into(),
            };
            lines.push(format!("no mount namespace: {tmp} and cannot write /tmp itself; .git/hooks, .git/config, .orbit and .claude inside the workspace stay writable, a denied path inside the workspace stays readable, and chmod/chown/utime outside the writable roots are not blocked"));
        }
        Missing { lines, fatal }
    }
}

/// What [`Support::missing`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Missing {
    /// One line per missing protection.
    pub lines: Vec<String>,
    /// The sandbox cannot be enforced at all.
    pub fatal: bool,
}

fn user_namespaces_allowed() -> bool {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    read("/proc/sys/user/max_user_namespaces").is_none_or(|v| v != "0")
        && read("/proc/sys/kernel/unprivileged_userns_clone").is_none_or(|v| v != "0")
        && read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").is_none_or(|v| v != "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_support_misses_nothing_and_none_is_fatal() {
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let full = Support {
            landlock_abi: Some(7),
            seccomp: true,
            mount_namespace: true,
        };
        assert_eq!(full.missing(&policy), Missing::default());
        let none = Support {
            landlock_abi: None,
            seccomp: true,
            mount_namespace: false,
        };
        let missing = none.missing(&policy);
        assert!(missing.fatal);
        assert_eq!(missing.lines.len(), 2, "{missing:?}");
    }
}
