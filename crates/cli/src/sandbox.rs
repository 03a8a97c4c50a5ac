//! The OS sandbox of Bash commands, wired for one run: the mode (flag >
//! `ORBIT_SANDBOX` > settings > the permission mode's default), the policy
//! (writable roots: cwd, `--add-dir`s, `sandbox.writableRoots`, the
//! session's tool-results dir; denied reads: orbit-sandbox's home list,
//! `sandbox.denyRead`, `Read(path)` deny rules, Claude Code's credentials
//! file), the allow-list proxy when `sandbox.network.allowedDomains` names
//! hosts, one probe of the kernel (what is missing is said once on
//! stderr), and the launcher the Bash tool runs every command through:
//! this binary's own `orbit sandbox <policy> --` helper.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use orbit_config::Config;
use orbit_permissions::PermissionMode;
use orbit_sandbox::{DomainProxy, NetworkPolicy, SandboxMode, SandboxPolicy, Support};
use orbit_tool::CommandLauncher;

/// Credential files of other agents under `$HOME` (orbit keeps its keys in
/// the environment, which Bash never sees: `tool_env_hidden`).
const CREDENTIAL_FILES_IN_HOME: &[&str] = &[".claude/.credentials.json"];

/// The sandbox mode of this run: the one asked for, else the permission
/// mode's default. `explicit` says whether the user asked.
pub fn mode(config: &Config) -> anyhow::Result<(SandboxMode, bool)> {
    if let Some(asked) = &config.sandbox.mode {
        let Some(mode) = SandboxMode::parse(&asked.value) else {
            bail!(
                "unknown sandbox mode `{}` ({}): expected read-only, workspace-write or danger-full-access",
                asked.value,
                asked.origin
            );
        };
        return Ok((mode, true));
    }
    let mode = match config.permission_mode.value {
        PermissionMode::Plan => SandboxMode::ReadOnly,
        PermissionMode::BypassPermissions => SandboxMode::DangerFullAccess,
        _ => SandboxMode::WorkspaceWrite,
    };
    Ok((mode, false))
}

/// Everything [`launcher`] needs to know about the session.
pub struct SessionPaths<'a> {
    pub cwd: &'a Path,
    pub added_dirs: &'a [PathBuf],
    /// The session's own dir (None: the session is not persisted).
    pub session_dir: Option<PathBuf>,
    pub deny_rules: &'a [String],
}

/// The launcher for this run's Bash commands, None when unsandboxed. A
/// kernel that cannot enforce the sandbox is an error when the user asked
/// for one, else a stated fallback to no sandbox.
pub fn launcher(
    config: &Config,
    paths: &SessionPaths<'_>,
) -> anyhow::Result<Option<CommandLauncher>> {
    let (mode, explicit) = mode(config)?;
    if mode == SandboxMode::DangerFullAccess {
        return Ok(None);
    }
    let home = config.env.path(orbit_config::vars::HOME);
    let mut writable_roots = vec![paths.cwd.to_path_buf()];
    writable_roots.extend(paths.added_dirs.iter().cloned());
    writable_roots.extend(config.sandbox.writable_roots.iter().cloned());
    // Created now so the helper can grant it (Landlock rules need a path).
    if let Some(dir) = &paths.session_dir
        && std::fs::create_dir_all(dir).is_ok()
    {
        writable_roots.push(dir.clone());
    }
    let mut deny_read = config.sandbox.deny_read.clone();
    deny_read.extend(read_deny_paths(
        paths.deny_rules,
        paths.cwd,
        home.as_deref(),
    ));
    if let Some(h) = &home {
        deny_read.extend(CREDENTIAL_FILES_IN_HOME.iter().map(|f| h.join(f)));
    }
    // The allow list: a proxy in this process for the listed hosts.
    let network = if config.sandbox.allowed_domains.is_empty() {
        NetworkPolicy::Off
    } else {
        let proxy = DomainProxy::start(config.sandbox.allowed_domains.clone())
            .context("starting the sandbox's network proxy")?;
        NetworkPolicy::Proxy(proxy.port())
    };
    let policy = SandboxPolicy {
        mode,
        writable_roots,
        deny_read,
        network,
    };
    let missing = Support::probe().missing(&policy);
    for line in &missing.lines {
        eprintln!("orbit: sandbox: {line}");
        tracing::warn!("sandbox: {line}");
    }
    if missing.fatal {
        if explicit {
            bail!(
                "the {} sandbox cannot be enforced on this kernel ({}); pass --sandbox danger-full-access to run without one",
                mode.as_str(),
                missing.lines.join("; ")
            );
        }
        eprintln!("orbit: sandbox: Bash commands run WITHOUT an OS sandbox");
        return Ok(None);
    }
    let program = std::env::current_exe()?;
    let mut args: Vec<OsString> = vec![orbit_sandbox::HELPER_SUBCOMMAND.into()];
    args.extend(policy.to_args());
    args.push("--".into());
    tracing::debug!(mode = mode.as_str(), "Bash runs in the OS sandbox");
    Ok(Some(CommandLauncher { program, args }))
}

/// The paths of `Read(path)` deny rules that name a path (no glob):
/// `//abs` and `/abs` absolute, `~/x` in the home directory, others in the
/// session cwd; a trailing `/**` covers the directory itself.
fn read_deny_paths(rules: &[String], cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    rules
        .iter()
        .filter_map(|rule| rule.trim().strip_prefix("Read(")?.strip_suffix(')'))
        .map(|spec| spec.strip_suffix("/**").unwrap_or(spec))
        .filter(|spec| !spec.is_empty() && !spec.contains(['*', '?', '[']))
        .filter_map(|spec| {
            if let Some(abs) = spec.strip_prefix("//") {
                Some(Path::new("/").join(abs))
            } else if let Some(rest) = spec.strip_prefix("~/") {
                home.map(|h| h.join(rest))
            } else {
                Some(cwd.join(spec))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_deny_rules_become_paths() {
        let rules: Vec<String> = [
            "Read(//etc/secret)",
            "Read(~/.kube/**)",
            "Read(.env)",
            "Read(**/*.pem)",
            "Bash(rm:*)",
        ]
        .map(String::from)
        .to_vec();
        let paths = read_deny_paths(&rules, Path::new("/w"), Some(Path::new("/h")));
        assert_eq!(
            paths,
            vec![
                PathBuf::from("/etc/secret"),
                PathBuf::from("/h/.kube"),
                PathBuf::from("/w/.env")
            ]
        );
    }
}
