//! orbit's configuration layer: flags > environment > settings files,
//! resolved once at startup into one typed [`Config`].
//!
//! Data flow (the CLI, once per run):
//!
//! ```text
//! Env::from_process()                  the environment, read once (vars: every name)
//!   │   └─ data_dir(&env)              $ORBIT_HOME, else $HOME/.orbit: the one rule
//!   ▼
//! SettingsLocations::standard(&env, project_dir)   candidate files (no I/O but one canonicalize)
//!   ▼
//! Settings::load(&locations, --settings, --setting-sources)
//!   │   reads the files that exist (managed > flag > local > project > user)
//!   ▼
//! Config::resolve(&Overrides, &env, &settings)
//!       folder trust first (trust: --trust-project, trustedFolders, the trust
//!       store); untrusted → the project files lose hooks, env, allow rules, …
//!       Overrides = the CLI's flags (no clap here); the env overlaid with the
//!       settings' `env` maps; each value taken from the first layer that sets it
//!   ▼
//! Config { data_dir, provider, model, permission mode, directories, limits, env,
//!          project_trusted, trust_skipped, hooks }
//!       → EngineConfig fields, AnthropicConfig::from_lookup(config.env.lookup()), …
//! ```
//!
//! Bad environment values warn (`tracing::warn!`, naming the variable) and
//! the default is used. Settings files that do not parse, an unknown
//! provider name, and a missing data directory are errors ([`ConfigError`]).

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod claude_code;
mod env;
mod error;
mod model_choice;
mod origin;
mod resolve;
mod sandbox;
pub mod saved_rules;
mod settings;
pub mod trust;
pub mod vars;

pub use env::{Env, NOT_FROM_PROJECT, PROCESS_ONLY, data_dir};
pub use error::ConfigError;
pub use origin::{Origin, Sourced};
pub use resolve::{
    Config, DEFAULT_MODEL, DEFAULT_OPENAI_MODEL, MODEL_ALIASES, Overrides, ProviderKind,
    resolve_model_alias,
};
pub use sandbox::SandboxSettings;
pub use settings::{
    FileSettings, PermissionSettings, PermissionsSection, SandboxNetworkSection, SandboxSection,
    SettingSources, Settings, SettingsFile, SettingsLocations, SettingsSource,
};
pub use vars::{ENV_VARS, EnvVar};

/// The variables to remove from the environment of the processes tools
/// start (Bash, background shells, MCP servers): every name of
/// [`vars::SECRET_ENV_VARS`], and each `ORBIT_*` variable of `env` whose
/// name ends in one of [`vars::SECRET_NAME_SUFFIXES`]. Empty when `env`
/// sets [`vars::ORBIT_TOOLS_SEE_SECRETS`] (the settings' `env` of user,
/// `--settings` or managed files may set it; project files may not).
pub fn tool_env_hidden(env: &Env) -> Vec<String> {
    if env.flag(vars::ORBIT_TOOLS_SEE_SECRETS) == Some(true) {
        return Vec::new();
    }
    let mut names: Vec<String> = vars::SECRET_ENV_VARS
        .iter()
        .map(|n| n.to_string())
        .collect();
    for name in env.names() {
        let secret = name.starts_with("ORBIT_")
            && vars::SECRET_NAME_SUFFIXES
                .iter()
                .any(|suffix| name.ends_with(suffix));
        if secret && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// Host names WebFetch may reach on local addresses
/// ([`vars::ORBIT_WEBFETCH_ALLOW_HOSTS`], comma-separated, trimmed,
/// lower-case; `*` allows every host).
pub fn webfetch_allowed_hosts(env: &Env) -> Vec<String> {
    env.get(vars::ORBIT_WEBFETCH_ALLOW_HOSTS)
        .map(|list| {
            list.split(',')
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect()
        })
        .unwrap_or_default()
}
