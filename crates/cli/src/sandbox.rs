//! The OS sandbox of Bash commands, wired for one run: the mode (flag >
//! `ORBIT_SANDBOX` > user settings > the permission mode's default, then
//! tightened — never loosened — by the project's settings), the policy
//! (writable roots: cwd, `--add-dir`s, `sandbox.writableRoots`; the
//! session's private temp dir; denied reads: orbit-sandbox's home list,
//! `sandbox.denyRead`, `Read(path)` deny rules, Claude Code's credentials
//! file), the allow-list proxy when `sandbox.network.allowedDomains` names
//! hosts, one probe of the kernel and of the mount namespace (what is
//! missing is said once on stderr), and the launcher the Bash tool runs
//! every command through: the prepared [`Sandbox`], applied between fork
//! and exec of `bash` (the `orbit sandbox <policy> --` helper stays for
//! running a command by hand and for the probe).
//!
//! orbit's own files are no writable root: the session's dir (transcript,
//! `tool-results/`) is written by orbit alone, so a command cannot swap a
//! directory of it for a link.

use std::ffi::OsString;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use orbit_config::Config;
use orbit_permissions::PermissionMode;
use orbit_sandbox::{DomainProxy, NetworkPolicy, Sandbox, SandboxMode, SandboxPolicy, Support};
use orbit_tool::{CommandLauncher, ConfineCommand, Confinement};

/// Credential files of other agents under `$HOME` (orbit keeps its keys in
/// the environment, which Bash never sees: `tool_env_hidden`).
const CREDENTIAL_FILES_IN_HOME: &[&str] = &[".claude/.credentials.json"];

/// Name prefix of the sessions' private temp dirs in the system temp dir:
/// `orbit-tmp-<pid>-<session or random id>`.
const PRIVATE_TMP_PREFIX: &str = "orbit-tmp-";

/// Mode of a private temp dir: its owner only.
const PRIVATE_TMP_MODE: u32 = 0o700;

/// The sandbox mode of this run: the one asked for (flag, env, a settings
/// file outside the project), else the permission mode's default; then a
/// local/project file's `sandbox.mode` only when it is stricter (a looser
/// or unknown one is ignored with a warning). `explicit` says whether the
/// mode was asked for (then a kernel that cannot enforce it is an error).
pub fn mode(config: &Config) -> anyhow::Result<(SandboxMode, bool)> {
    let (mut mode, mut explicit) = match &config.sandbox.mode {
        Some(asked) => {
            let Some(mode) = SandboxMode::parse(&asked.value) else {
                bail!(
                    "unknown sandbox mode `{}` ({}): expected read-only, workspace-write or danger-full-access",
                    asked.value,
                    asked.origin
                );
            };
            (mode, true)
        }
        None => (
            match config.permission_mode.value {
                PermissionMode::Plan => SandboxMode::ReadOnly,
                PermissionMode::BypassPermissions => SandboxMode::DangerFullAccess,
                _ => SandboxMode::WorkspaceWrite,
            },
            false,
        ),
    };
    for asked in &config.sandbox.project_modes {
        match SandboxMode::parse(&asked.value) {
            Some(stricter) if stricter < mode => {
                mode = stricter;
                explicit = true;
            }
            Some(same) if same == mode => {}
            parsed => {
                let why = if parsed.is_some() {
                    "project settings can only tighten the sandbox"
                } else {
                    "not read-only, workspace-write or danger-full-access"
                };
                tracing::warn!(
                    "ignoring sandbox.mode `{}` in {}: {why}; the sandbox stays {}",
                    asked.value,
                    asked.origin,
                    mode.as_str()
                );
            }
        }
    }
    Ok((mode, explicit))
}

/// Everything [`launcher`] needs to know about the session.
pub struct SessionPaths<'a> {
    pub cwd: &'a Path,
    pub added_dirs: &'a [PathBuf],
    /// The session's own dir (None: the session is not persisted); not
    /// writable by commands, its name names the private temp dir.
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
    let private_tmp = private_tmp_dir(paths.session_dir.as_deref());
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
        private_tmp,
        deny_read,
        network,
    };
    let program = std::env::current_exe()?;
    let (support, refused) = Support::probe_tried();
    let missing = support.missing(&policy);
    let line = support.start_line(&policy, &refused);
    if missing.fatal && explicit {
        bail!(
            "the {} sandbox cannot be enforced here ({}); pass --sandbox danger-full-access to run without one",
            mode.as_str(),
            line.unwrap_or_default()
        );
    }
    if let Some(line) = line {
        // One line, however many layers are missing.
        let fallback = if missing.fatal {
            "; Bash commands run WITHOUT an OS sandbox"
        } else {
            ""
        };
        eprintln!("orbit: sandbox: {line}{fallback}");
        tracing::info!("sandbox: {line}{fallback}");
    }
    if missing.fatal {
        return Ok(None);
    }
    let mut args: Vec<OsString> = vec![orbit_sandbox::HELPER_SUBCOMMAND.into()];
    args.extend(policy.to_args());
    args.push("--".into());
    let sandbox =
        Sandbox::new(policy, support.mount_namespace, home).context("preparing the sandbox")?;
    tracing::debug!(mode = mode.as_str(), "Bash runs in the OS sandbox");
    Ok(Some(CommandLauncher {
        program,
        args,
        confine: Some(Confinement(Arc::new(PreExecSandbox(sandbox)))),
    }))
}

/// The session's sandbox applied to each Bash command between fork and
/// exec (no second exec of orbit per call).
#[derive(Debug)]
struct PreExecSandbox(Sandbox);

impl ConfineCommand for PreExecSandbox {
    fn confine(&self, cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<()> {
        self.0
            .confine(cmd, cwd)
            .map_err(|e| std::io::Error::other(format!("orbit sandbox: {e}")))
    }
}

/// A new private temp dir for this session's commands (mode 0700, made
/// with `mkdir`, so never an existing dir or link), in the system temp
/// dir; the dirs of earlier orbit processes that are gone are removed
/// first. None (said in the log) when it cannot be made: each command
/// then gets an empty temp dir of its own (or none, without a mount
/// namespace).
fn private_tmp_dir(session_dir: Option<&Path>) -> Option<PathBuf> {
    let base = std::env::temp_dir();
    let pid = std::process::id();
    let id = session_dir
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let dir = base.join(format!("{PRIVATE_TMP_PREFIX}{pid}-{id}"));
    match std::fs::DirBuilder::new()
        .mode(PRIVATE_TMP_MODE)
        .create(&dir)
    {
        Ok(()) => {
            if let Ok(meta) = std::fs::metadata(&dir) {
                remove_stale_private_tmps(&base, meta.uid());
            }
            Some(dir)
        }
        Err(e) => {
            tracing::warn!(
                "sandbox: cannot make the private temp dir {}: {e}",
                dir.display()
            );
            None
        }
    }
}

/// Removes the private temp dirs in `base` owned by `uid` whose orbit
/// process has ended (its pid is no longer in `/proc`).
fn remove_stale_private_tmps(base: &Path, uid: u32) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PRIVATE_TMP_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if ours && !Path::new("/proc").join(pid.to_string()).exists() {
            // remove_dir_all does not follow links a command left inside.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
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
