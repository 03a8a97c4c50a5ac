//! A policy made ready to apply, and its hand-off to a spawn: the Bash
//! tool's commands get the sandbox from a `pre_exec` hook (no second exec
//! of orbit per call), `orbit sandbox … -- CMD` from the same code before
//! its own exec.
//!
//! Flow: [`Sandbox::new`] compiles the seccomp programs once per session;
//! per command [`Sandbox::prepare`] computes the paths for its cwd
//! (`crate::layout`), plans the mount namespace
//! (`crate::mounts::MountSteps`: C strings, order, mount points), builds
//! the Landlock ruleset (an fd; the parent stays unrestricted) and the
//! command's environment (`TMPDIR`, the proxy variables). [`Sandbox::confine`]
//! puts that environment on a `std::process::Command` and moves the
//! [`Prepared`] into its `pre_exec` hook, where `crate::child` makes only
//! system calls on it (see there for the audit of what runs after the
//! fork). Every layer is applied post-fork; none needs the helper.
#![allow(unsafe_code)]

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::seccomp::BpfProgram;

use crate::child::{self, Failure, SANDBOX_HELPER_FAILED_EXIT};
use crate::layout::layout;
use crate::mounts::{MountPlan, MountSteps, TMP_DIR};
use crate::policy::{NetworkPolicy, SandboxMode, SandboxPolicy};
use crate::{SandboxError, landlock_rules, seccomp};

/// A session's sandbox: the policy, whether commands get the mount
/// namespace (the start-up probe made one), the compiled seccomp filters.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policy: SandboxPolicy,
    namespace: bool,
    filters: Arc<Vec<BpfProgram>>,
    home: Option<PathBuf>,
}

/// Everything one command's sandbox needs after the fork (see the module
/// docs), and the environment the command gets.
#[derive(Debug)]
pub struct Prepared {
    confined: bool,
    mounts: Option<MountSteps>,
    landlock: Option<OwnedFd>,
    filters: Arc<Vec<BpfProgram>>,
    /// Access bits of a rule for the tmpfs made over `/tmp` in the child.
    tmp_rule: Option<u64>,
    env: Vec<(&'static str, OsString)>,
    remove_env: &'static [&'static str],
}

/// Variables that point HTTP clients (curl, cargo, npm, pip, git) at the
/// allow-list proxy.
const PROXY_ENV_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// Variables a proxied command must not have (they would bypass the proxy).
const NO_PROXY_VARS: &[&str] = &["NO_PROXY", "no_proxy"];

impl Sandbox {
    /// The sandbox of `policy`; `mount_namespace`: every command gets the
    /// private mount namespace (a failure to make it fails the command),
    /// else none (the temp dir is the session's by its own path). `home`:
    /// the user's home (its deny list, kept visible).
    pub fn new(
        policy: SandboxPolicy,
        mount_namespace: bool,
        home: Option<PathBuf>,
    ) -> Result<Self, SandboxError> {
        let filters = if policy.mode == SandboxMode::DangerFullAccess {
            Vec::new()
        } else {
            seccomp::programs(policy.network)?
        };
        Ok(Self {
            policy,
            namespace: mount_namespace,
            filters: Arc::new(filters),
            home,
        })
    }

    /// The policy.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// Whether commands get the private mount namespace.
    pub fn mount_namespace(&self) -> bool {
        self.namespace
    }

    /// Everything a command started in `cwd` needs, made now (in the
    /// parent, before any fork).
    pub fn prepare(&self, cwd: &Path) -> Result<Prepared, SandboxError> {
        let mut prepared = Prepared {
            confined: false,
            mounts: None,
            landlock: None,
            filters: Arc::clone(&self.filters),
            tmp_rule: None,
            env: Vec::new(),
            remove_env: &[],
        };
        if self.policy.mode == SandboxMode::DangerFullAccess {
            return Ok(prepared);
        }
        prepared.confined = true;
        let layout = layout(&self.policy, cwd, self.home.as_deref());
        let mut writes = layout.writes.clone();
        let tmpdir = if self.namespace {
            let plan = MountPlan {
                writable: &layout.writes,
                visible: &layout.visible,
                private_tmp: layout.private_tmp.as_deref(),
                protect: &layout.protected,
                hide: &layout.hidden,
            };
            prepared.mounts = Some(MountSteps::plan(&plan, cwd).map_err(SandboxError::Mounts)?);
            // The rule goes on the dir that becomes `/tmp` (Landlock skips
            // the covered `/tmp`); a fresh tmpfs gets its rule in the child.
            match &layout.private_tmp {
                Some(dir) => writes.push(dir.clone()),
                None => prepared.tmp_rule = Some(landlock_rules::all_fs_access_bits()),
            }
            Some(PathBuf::from(TMP_DIR))
        } else {
            writes.extend(layout.private_tmp.clone());
            layout.private_tmp.clone()
        };
        let reads = landlock_rules::read_grants(&layout.hidden);
        prepared.landlock = landlock_rules::ruleset(&reads, &writes, self.policy.network)?;
        if let Some(dir) = tmpdir {
            prepared.env.push(("TMPDIR", dir.into_os_string()));
        }
        if let NetworkPolicy::Proxy(port) = self.policy.network {
            let url = OsString::from(format!("http://127.0.0.1:{port}"));
            for name in PROXY_ENV_VARS {
                prepared.env.push((name, url.clone()));
            }
            prepared.remove_env = NO_PROXY_VARS;
        }
        Ok(prepared)
    }

    /// Prepares the sandbox of a command started in `cwd` and hands it to
    /// `cmd`: its environment now, the policy in a `pre_exec` hook that
    /// applies it between fork and exec. Call last, after `cmd`'s own
    /// environment is set. A step that fails in the child ends it with
    /// exit status 126 and `orbit sandbox: STEP: errno N` on its stderr.
    pub fn confine(&self, cmd: &mut std::process::Command, cwd: &Path) -> Result<(), SandboxError> {
        let mut prepared = self.prepare(cwd)?;
        prepared.set_env(cmd);
        if !prepared.confined {
            return Ok(());
        }
        let hook = move || {
            if let Err(failure) = prepared.apply() {
                child::fail_and_exit(&failure, SANDBOX_HELPER_FAILED_EXIT);
            }
            Ok(())
        };
        // SAFETY: the hook runs in the forked child before exec. It makes
        // only the system calls `crate::child` audits, on data prepared
        // above (no allocation, no lock: see `crate::child`), and on
        // failure writes static text to fd 2 and calls `_exit`.
        unsafe { cmd.pre_exec(hook) };
        Ok(())
    }
}

impl Prepared {
    /// Puts the command's environment on `cmd`.
    pub fn set_env(&self, cmd: &mut std::process::Command) {
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        for name in self.remove_env {
            cmd.env_remove(name);
        }
    }

    /// Applies everything to the calling process (the child after the
    /// fork, or the helper before its exec): system calls only.
    pub(crate) fn apply(&mut self) -> Result<(), Failure> {
        if !self.confined {
            return Ok(());
        }
        if let Some(mounts) = &self.mounts {
            child::enter(mounts)?;
        }
        self.apply_after_enter()
    }

    /// Only enters the namespace (the helper: whether it can); the rest
    /// is done by [`Self::apply_after_enter`].
    pub(crate) fn enter(&self) -> Result<(), Failure> {
        match &self.mounts {
            Some(m) => child::enter(m),
            None => Ok(()),
        }
    }

    /// [`Self::apply`] once [`Self::enter`] succeeded.
    pub(crate) fn apply_after_enter(&mut self) -> Result<(), Failure> {
        if let Some(mounts) = &mut self.mounts {
            child::build(mounts)?;
        }
        if let (Some(access), Some(ruleset)) = (self.tmp_rule, &self.landlock) {
            child::add_rule(ruleset, c"/tmp", access)?;
        }
        child::restrict(self.landlock.as_ref(), &self.filters)
    }
}
