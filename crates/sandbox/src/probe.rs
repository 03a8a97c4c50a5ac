//! What the running kernel offers the sandbox (asked once by the parent,
//! so a missing protection is reported once, not per command), and the
//! texts that say what is missing and what orbit does instead.
#![allow(unsafe_code)]

use crate::landlock_rules::landlock_abi;
use crate::mounts::MountSteps;
use crate::policy::{NetworkPolicy, SandboxMode, SandboxPolicy};
use crate::trial::Layer;
use crate::{child, mount_api};

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
    /// Asks the kernel, then tries every layer for real in a forked child
    /// (`crate::trial`: root in a container without `CAP_SYS_ADMIN` cannot
    /// make the namespace, a kernel may list Landlock and refuse it). The
    /// refused layers are returned with the kernel's reason.
    pub fn probe_tried() -> (Self, Vec<(Layer, String)>) {
        let mut support = Self::probe();
        let refused =
            crate::trial::try_layers(&[Layer::MountNamespace, Layer::Landlock, Layer::Seccomp]);
        let failed = |layer| refused.iter().any(|(l, _)| *l == layer);
        support.mount_namespace = !failed(Layer::MountNamespace);
        support.seccomp = support.seccomp && !failed(Layer::Seccomp);
        if failed(Layer::Landlock) {
            support.landlock_abi = None;
        }
        (support, refused)
    }

    /// The one start-up line naming each layer `policy` needs that cannot
    /// be applied here (`refused`: from [`Self::probe_tried`], with the
    /// kernel's reason) and what that leaves open; None when all apply.
    pub fn start_line(
        &self,
        policy: &SandboxPolicy,
        refused: &[(Layer, String)],
    ) -> Option<String> {
        let missing = self.missing(policy);
        if missing.lines.is_empty() {
            return None;
        }
        let named: Vec<String> = refused
            .iter()
            .map(|(layer, why)| format!("{} ({why})", layer.name()))
            .collect();
        let head = if named.is_empty() {
            String::new()
        } else {
            format!("cannot apply {}: ", named.join(", "))
        };
        Some(format!("{head}{}", missing.lines.join("; ")))
    }

    /// Asks the kernel (the mount namespace: whether it is allowed at all).
    pub fn probe() -> Self {
        // SAFETY: PR_GET_SECCOMP takes no pointer; it returns the mode or -1.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
        Self {
            landlock_abi: landlock_abi(),
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

/// Whether a private mount namespace can be made here: tries it in a
/// child process (`unshare` there, never in this one) and returns why not.
pub fn probe_namespace() -> Result<(), String> {
    crate::trial::try_layers(&[crate::trial::Layer::MountNamespace])
        .into_iter()
        .next()
        .map_or(Ok(()), |(_, why)| Err(why))
}

/// Whether this process can make the namespace the sandbox makes: enters
/// one (this process only: the helper's `--probe-namespace`) and tries the
/// calls on `/`.
pub(crate) fn try_namespace() -> Result<(), String> {
    let steps = MountSteps::probe()?;
    child::enter(&steps).map_err(|f| f.to_string())?;
    let os = |what: &str, e: i32| format!("{what}: {}", std::io::Error::from_raw_os_error(e));
    let fd = mount_api::clone_tree(c"/").map_err(|e| os("open_tree", e))?;
    // SAFETY: the kernel just returned this fd; closing it once.
    unsafe { libc::close(fd) };
    mount_api::set_read_only_recursive(c"/").map_err(|e| os("mount_setattr", e))
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
