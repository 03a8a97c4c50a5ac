//! The sandbox keys of the settings (`sandbox.mode`, `sandbox.writableRoots`,
//! `sandbox.denyRead`, `sandbox.network.allowedDomains`) and `--sandbox`,
//! resolved into [`SandboxSettings`] (flag > `ORBIT_SANDBOX` > settings).
//! Mode names are checked by the CLI (orbit-sandbox owns them).
//!
//! Files inside the project (local and project settings come with whatever
//! repository is checked out) may only tighten the sandbox, for every key:
//! their modes are kept apart ([`SandboxSettings::project_modes`]) and the
//! CLI applies one only when it is stricter than the mode the user, the
//! flags or the permission mode give (`read-only` < `workspace-write` <
//! `danger-full-access`); their `writableRoots` and `allowedDomains` are
//! ignored with a warning; their `denyRead` applies. `env.ORBIT_SANDBOX`
//! from a project is refused by `Env::with_settings` (`NOT_FROM_PROJECT`).

use std::path::{Path, PathBuf};

use crate::origin::{Origin, Sourced};
use crate::settings::{Settings, settings_path};

/// The resolved sandbox configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// The mode asked for (flag, env, or a settings file outside the
    /// project), as written; None = the permission mode's default.
    pub mode: Option<Sourced<String>>,
    /// `sandbox.mode` of the local and project settings files, highest
    /// precedence first, as written: each may only tighten the mode above
    /// (the CLI compares them, orbit-sandbox owns the names).
    pub project_modes: Vec<Sourced<String>>,
    /// Writable roots from the user's settings files (absolute).
    pub writable_roots: Vec<PathBuf>,
    /// Denied paths from every settings file (absolute).
    pub deny_read: Vec<PathBuf>,
    /// Allowed proxy hosts from the user's settings files.
    pub allowed_domains: Vec<String>,
}

pub(crate) fn resolve(
    flag: Option<&str>,
    env_value: Option<&str>,
    settings: &Settings,
    home: Option<&Path>,
    cwd: &Path,
) -> SandboxSettings {
    let mut out = SandboxSettings::default();
    if let Some(mode) = flag {
        out.mode = Some(Sourced::new(mode.to_string(), Origin::Flag("--sandbox")));
    } else if let Some(mode) = env_value.filter(|v| !v.trim().is_empty()) {
        out.mode = Some(Sourced::new(
            mode.trim().to_string(),
            Origin::Env(crate::vars::ORBIT_SANDBOX),
        ));
    }
    for file in settings.files() {
        let section = &file.values.sandbox;
        let in_project = file.source.is_in_project();
        if let Some(mode) = section.mode.as_deref().map(str::trim) {
            let asked = Sourced::new(mode.to_string(), file.value_origin());
            if in_project {
                out.project_modes.push(asked);
            } else if out.mode.is_none() {
                out.mode = Some(asked);
            }
        }
        let paths = |list: &[String]| -> Vec<PathBuf> {
            list.iter()
                .filter_map(|p| settings_path(p, home, cwd))
                .collect()
        };
        out.deny_read.extend(paths(&section.deny_read));
        if in_project
            && (!section.writable_roots.is_empty() || !section.network.allowed_domains.is_empty())
        {
            tracing::warn!(
                "ignoring sandbox.writableRoots and sandbox.network.allowedDomains in {}: project settings can only tighten the sandbox",
                file.origin
            );
            continue;
        }
        out.writable_roots.extend(paths(&section.writable_roots));
        out.allowed_domains
            .extend(section.network.allowed_domains.iter().cloned());
    }
    out
}
