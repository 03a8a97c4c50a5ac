//! orbit's configuration layer: flags > environment > settings files,
//! resolved once at startup into one typed [`Config`].
//!
//! Data flow (the CLI, once per run):
//!
//! ```text
//! Env::from_process()                  the environment, read once (vars: every name)
//!   │   └─ data_dir(&env)              $ORBIT_HOME, else $HOME/.orbit: the one rule
//!   ▼
//! SettingsLocations::standard(&env, project_dir)   candidate files, no I/O
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

mod env;
mod resolve;
mod sandbox;
mod settings;
pub mod trust;
pub mod vars;

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

pub use env::{Env, NOT_FROM_PROJECT, PROCESS_ONLY};
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

/// orbit's data directory: `$ORBIT_HOME` when set (non-empty), else
/// `$HOME/.orbit`, else an error. The only place this rule lives; the
/// directory is created lazily by whoever writes there.
pub fn data_dir(env: &Env) -> Result<PathBuf, ConfigError> {
    if let Some(dir) = env.path(vars::ORBIT_HOME) {
        return Ok(dir);
    }
    env.path(vars::HOME)
        .map(|home| home.join(".orbit"))
        .ok_or(ConfigError::NoDataDir)
}

/// Where a configured value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag (its spelling, e.g. `--model`).
    Flag(&'static str),
    /// An environment variable (after the settings' `env` maps were applied).
    Env(&'static str),
    /// A settings file.
    Settings {
        /// Its source.
        source: SettingsSource,
        /// Its path, or `--settings` for inline JSON.
        file: String,
    },
    /// orbit's default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(name) | Origin::Env(name) => f.write_str(name),
            Origin::Settings { file, .. } => f.write_str(file),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// A value with its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub origin: Origin,
}

impl<T> Sourced<T> {
    /// `value` from `origin`.
    pub fn new(value: T, origin: Origin) -> Self {
        Self { value, origin }
    }
}

/// What can stop configuration. Every message names the file, flag or
/// variable at fault.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// Neither `ORBIT_HOME` nor `HOME` is set.
    #[error("cannot find a data directory: set ORBIT_HOME or HOME")]
    NoDataDir,
    /// A settings file exists but cannot be read.
    #[error("cannot read settings file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A settings document is not valid JSON or a known key has the wrong type.
    #[error("invalid settings in {origin}:{line}:{column}: {message}")]
    Parse {
        /// The file's path, or `--settings`.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (0 when the error is about the whole document).
        column: usize,
        /// serde_json's message, without its position suffix.
        message: String,
    },
    /// A permission rule in a settings file does not parse. The position
    /// is the rule's fault in the file (1-based line and column).
    #[error("{origin}:{line}:{column}: {message} in permissions.{list} rule `{rule}`")]
    InvalidRule {
        /// The file's path, or `--settings`.
        origin: String,
        /// `allow`, `deny` or `ask`.
        list: &'static str,
        /// The rule as written.
        rule: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A provider name orbit does not know.
    #[error("{origin}: unknown provider `{value}` (expected anthropic, openai or local)")]
    UnknownProvider {
        /// The flag, variable or settings file that named it.
        origin: String,
        /// The name as given (trimmed, lower-cased).
        value: String,
    },
    /// A `hooks` entry of a settings file cannot be used.
    #[error(transparent)]
    Hooks(#[from] orbit_hooks::HookConfigError),
    /// `--setting-sources` named something other than user, project, local.
    #[error("--setting-sources: unknown source `{0}` (expected user, project or local)")]
    UnknownSettingSource(String),
}

impl ConfigError {
    /// A JSON error of the document named `origin`, as `origin:line:col`.
    pub(crate) fn parse(origin: &str, err: &serde_json::Error) -> Self {
        let (line, column) = (err.line(), err.column());
        let full = err.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        ConfigError::Parse {
            origin: origin.to_string(),
            line,
            column,
            message,
        }
    }
}
