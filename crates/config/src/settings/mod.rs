//! Settings files in Claude Code's JSON shape, each kept with its source.
//!
//! ```json
//! {
//!   "model": "opus",
//!   "provider": "anthropic",
//!   "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8080"},
//!   "permissions": {
//!     "allow": ["Bash(git log:*)"], "deny": ["WebFetch"], "ask": [],
//!     "defaultMode": "acceptEdits", "additionalDirectories": ["../lib"]
//!   }
//! }
//! ```
//!
//! Other keys are kept in [`SettingsFile::raw`] and otherwise ignored.
//! [`Settings`] holds the loaded files in precedence order: managed, flag,
//! local, project, user. Its accessors give the winning value with its
//! origin, or for the permission lists every entry of every file.
//! Loading: [`load`].

pub(crate) mod load;
mod sandbox_section;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

use crate::env::Env;
use crate::origin::{Origin, Sourced};

pub use crate::origin::SettingsSource;

pub use sandbox_section::{SandboxNetworkSection, SandboxSection};

pub use load::{SettingSources, SettingsLocations};

/// The keys orbit reads from one settings file. Unknown keys are ignored
/// here (they stay in [`SettingsFile::raw`]).
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, expecting = "a JSON object of settings")]
pub struct FileSettings {
    /// `model`: model id or alias.
    pub model: Option<String>,
    /// `provider`: `anthropic`, `openai` or `local` (orbit's key).
    pub provider: Option<String>,
    /// `env`: variables for the session (numbers and booleans are taken
    /// as their JSON text).
    #[serde(deserialize_with = "env_map")]
    pub env: BTreeMap<String, String>,
    /// `permissions`.
    pub permissions: PermissionsSection,
    /// `sandbox`.
    pub sandbox: SandboxSection,
}

impl fmt::Debug for FileSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `env` values may be credentials: names only.
        f.debug_struct("FileSettings")
            .field("model", &self.model)
            .field("provider", &self.provider)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("permissions", &self.permissions)
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

/// The `permissions` object of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionsSection {
    /// Rules allowed without asking (`Read`, `Bash(git log:*)`).
    pub allow: Vec<String>,
    /// Rules always denied.
    pub deny: Vec<String>,
    /// Rules that always ask.
    pub ask: Vec<String>,
    /// The permission mode when no flag sets one.
    pub default_mode: Option<String>,
    /// More directories the session may work in.
    pub additional_directories: Vec<String>,
}

fn env_map<'de, D: Deserializer<'de>>(de: D) -> Result<BTreeMap<String, String>, D::Error> {
    let map = Option::<BTreeMap<String, serde_json::Value>>::deserialize(de)?.unwrap_or_default();
    map.into_iter()
        .map(|(name, value)| {
            let text = match value {
                serde_json::Value::String(s) => s,
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "env.{name} must be a string, got {other}"
                    )));
                }
            };
            Ok((name, text))
        })
        .collect()
}

/// One loaded settings file.
#[derive(Clone, PartialEq)]
pub struct SettingsFile {
    /// Where it comes from.
    pub source: SettingsSource,
    /// How errors and origins name it: the path, or `--settings` for inline JSON.
    pub origin: String,
    /// The file, when it is one.
    pub path: Option<PathBuf>,
    /// The keys orbit reads.
    pub values: FileSettings,
    /// The whole document, unknown keys included.
    pub raw: serde_json::Value,
}

impl fmt::Debug for SettingsFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SettingsFile")
            .field("source", &self.source)
            .field("origin", &self.origin)
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

impl SettingsFile {
    /// The origin of a value read from this file.
    pub fn value_origin(&self) -> Origin {
        Origin::Settings {
            source: self.source,
            file: self.origin.clone(),
        }
    }
}

/// The permission entries of every loaded file, highest precedence first,
/// each with its file. Nothing is applied yet: the permissions work
/// (issue 12) decides how `ask` and the sources combine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PermissionSettings {
    /// `permissions.allow` of every file.
    pub allow: Vec<Sourced<String>>,
    /// `permissions.deny` of every file.
    pub deny: Vec<Sourced<String>>,
    /// `permissions.ask` of every file.
    pub ask: Vec<Sourced<String>>,
    /// `permissions.additionalDirectories` of every file, as written.
    pub additional_directories: Vec<Sourced<String>>,
}

/// The loaded settings files, highest precedence first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    files: Vec<SettingsFile>,
}

impl Settings {
    /// Settings from already parsed files, put in precedence order (files
    /// of one source keep their order: the first wins).
    pub fn from_files(mut files: Vec<SettingsFile>) -> Self {
        files.sort_by_key(|f| f.source);
        Self { files }
    }

    /// The files, highest precedence first.
    pub fn files(&self) -> &[SettingsFile] {
        &self.files
    }

    /// The first value `pick` finds, in precedence order, with its file.
    pub fn first<'a, T>(
        &'a self,
        pick: impl Fn(&'a FileSettings) -> Option<T>,
    ) -> Option<(T, &'a SettingsFile)> {
        self.files
            .iter()
            .find_map(|file| pick(&file.values).map(|value| (value, file)))
    }

    /// The winning `model`.
    pub fn model(&self) -> Option<Sourced<String>> {
        self.first_string(|s| s.model.as_deref())
    }

    /// The winning `provider`.
    pub fn provider(&self) -> Option<Sourced<String>> {
        self.first_string(|s| s.provider.as_deref())
    }

    /// Every `permissions.defaultMode`, highest precedence first (the
    /// caller takes the first one it accepts).
    pub fn default_modes(&self) -> Vec<Sourced<String>> {
        self.files
            .iter()
            .filter_map(|file| {
                let mode = file.values.permissions.default_mode.as_deref()?;
                Some(Sourced::new(mode.trim().to_string(), file.value_origin()))
            })
            .filter(|m| !m.value.is_empty())
            .collect()
    }

    /// The permission lists of every file, with their sources.
    pub fn permissions(&self) -> PermissionSettings {
        let mut out = PermissionSettings::default();
        for file in &self.files {
            let section = &file.values.permissions;
            let sourced = |list: &[String]| -> Vec<Sourced<String>> {
                list.iter()
                    .map(|v| Sourced::new(v.clone(), file.value_origin()))
                    .collect()
            };
            out.allow.extend(sourced(&section.allow));
            out.deny.extend(sourced(&section.deny));
            out.ask.extend(sourced(&section.ask));
            out.additional_directories
                .extend(sourced(&section.additional_directories));
        }
        out
    }

    fn first_string(
        &self,
        pick: impl Fn(&FileSettings) -> Option<&str>,
    ) -> Option<Sourced<String>> {
        self.files.iter().find_map(|file| {
            let value = pick(&file.values)?.trim();
            (!value.is_empty()).then(|| Sourced::new(value.to_string(), file.value_origin()))
        })
    }
}

impl Env {
    /// This environment with the `env` maps of `settings` applied: managed
    /// settings override the process environment; every other source only
    /// fills variables the process environment leaves unset (flags > env >
    /// settings files). Among settings files the higher-precedence one wins.
    /// Variables needed before settings are read ([`crate::PROCESS_ONLY`]) are
    /// not taken from settings, nor [`crate::NOT_FROM_PROJECT`] from project and
    /// local settings (a warning says so).
    pub fn with_settings(&self, settings: &Settings) -> Env {
        self.with_env_maps(
            settings
                .files()
                .iter()
                .map(|f| (f.source, f.origin.as_str(), &f.values.env)),
        )
    }
}

/// A directory named in a settings file: `~` and `~/…` under the home
/// directory, relative paths under `cwd`; None for an empty entry (or `~`
/// without a home).
pub(crate) fn settings_path(value: &str, home: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if value == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = value.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    Some(cwd.join(value))
}
