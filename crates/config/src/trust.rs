//! Folder trust: whether the settings that come with a project directory
//! (its `.orbit/` and `.claude/` settings files, the project and local
//! scopes) may run code or loosen rules.
//!
//! A folder is trusted when `--trust-project` is given, when a user,
//! managed or `--settings` file lists it (or a parent) in
//! `trustedFolders`, or when the trust store
//! (`<data dir>/trusted-folders.json`, written by `orbit trust [DIR]`)
//! lists it or a parent. In an untrusted folder `untrusted_view` takes
//! out of the project-scope files everything that runs code, redirects
//! requests or loosens rules — hooks, `env`, `apiKeyHelper`, MCP servers,
//! allow rules, a loosening `defaultMode`, `additionalDirectories` — and
//! names what it took in [`Skipped`], for one line on stderr. Deny and
//! ask rules always apply.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::error::ConfigError;
use crate::settings::{Settings, SettingsFile};
use crate::vars;

/// The trust store's file name inside the data directory.
pub const TRUST_FILE: &str = "trusted-folders.json";

/// Settings key (user, managed or `--settings` scope): folders trusted.
pub const TRUSTED_FOLDERS_KEY: &str = "trustedFolders";

/// Keys of project-scope files that start processes or servers; skipped
/// when the folder is untrusted (MCP servers are started by whoever reads
/// them, gated on `Config::project_trusted`).
pub const UNTRUSTED_KEYS: [&str; 5] = [
    "apiKeyHelper",
    "mcpServers",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "statusLine",
];

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustStore {
    #[serde(default)]
    folders: Vec<PathBuf>,
}

/// Whether `dir` or a parent of it is in `folders`.
fn listed(folders: &[PathBuf], dir: &Path) -> bool {
    folders.iter().any(|f| dir.starts_with(f))
}

fn store_path(data_dir: &Path) -> PathBuf {
    data_dir.join(TRUST_FILE)
}

fn read_store(data_dir: &Path) -> Result<TrustStore, ConfigError> {
    let path = store_path(data_dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|err| ConfigError::parse(&path.display().to_string(), &err)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(TrustStore::default()),
        Err(source) => Err(ConfigError::Read {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Records `dir` (made canonical) as trusted in the store; false when it
/// (or a parent) already was.
pub fn trust_folder(data_dir: &Path, dir: &Path) -> Result<bool, ConfigError> {
    let dir = dir.canonicalize().map_err(|source| ConfigError::Read {
        path: dir.display().to_string(),
        source,
    })?;
    let mut store = read_store(data_dir)?;
    if listed(&store.folders, &dir) {
        return Ok(false);
    }
    store.folders.push(dir);
    let path = store_path(data_dir);
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(data_dir)?;
        let text = serde_json::to_string_pretty(&store).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text + "\n")?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|source| ConfigError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(true)
}

/// Why a folder is trusted, or None.
pub(crate) fn trust_reason(
    flag: bool,
    env: &Env,
    settings: &Settings,
    data_dir: &Path,
    dir: &Path,
) -> Result<Option<String>, ConfigError> {
    if flag {
        return Ok(Some("--trust-project".into()));
    }
    let home = env.path(vars::HOME);
    for file in settings
        .files()
        .iter()
        .filter(|f| !f.source.is_in_project())
    {
        let folders: Vec<PathBuf> = file
            .raw
            .get(TRUSTED_FOLDERS_KEY)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .filter_map(|s| expand(s, home.as_deref()))
            .collect();
        if listed(&folders, dir) {
            return Ok(Some(format!("{TRUSTED_FOLDERS_KEY} in {}", file.origin)));
        }
    }
    if listed(&read_store(data_dir)?.folders, dir) {
        return Ok(Some(store_path(data_dir).display().to_string()));
    }
    Ok(None)
}

fn expand(entry: &str, home: Option<&Path>) -> Option<PathBuf> {
    let entry = entry.trim();
    let path = match entry.strip_prefix("~/") {
        Some(rest) => home?.join(rest),
        None if entry == "~" => home?.to_path_buf(),
        None => PathBuf::from(entry),
    };
    Some(path.canonicalize().unwrap_or(path))
}

/// What an untrusted folder's settings were not allowed to do, per file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    /// `(file, what)` pairs, e.g. `(".claude/settings.json", "env.ANTHROPIC_BASE_URL")`.
    pub items: Vec<(String, String)>,
}

impl Skipped {
    /// Whether nothing was skipped.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The one line telling the user what was skipped in `dir` and how to
    /// trust it.
    pub fn line(&self, dir: &Path) -> String {
        let mut by_file: Vec<(String, Vec<String>)> = Vec::new();
        for (file, what) in &self.items {
            match by_file.iter_mut().find(|(f, _)| f == file) {
                Some((_, list)) => list.push(what.clone()),
                None => by_file.push((file.clone(), vec![what.clone()])),
            }
        }
        let parts: Vec<String> = by_file
            .into_iter()
            .map(|(file, list)| format!("{} ({file})", list.join(", ")))
            .collect();
        format!(
            "orbit: {} is not a trusted folder: ignored {}; trust it with `orbit trust` or --trust-project",
            dir.display(),
            parts.join("; ")
        )
    }
}

/// `settings` with the project-scope files stripped of what an untrusted
/// folder may not do (see the module docs), and what was stripped.
pub(crate) fn untrusted_view(settings: &Settings) -> (Settings, Skipped) {
    let mut skipped = Skipped::default();
    let files = settings
        .files()
        .iter()
        .map(|file| {
            if !file.source.is_in_project() {
                return file.clone();
            }
            strip(file, &mut skipped)
        })
        .collect();
    (Settings::from_files(files), skipped)
}

fn strip(file: &SettingsFile, skipped: &mut Skipped) -> SettingsFile {
    let mut out = file.clone();
    let mut note = |what: String| skipped.items.push((file.origin.clone(), what));
    if let Some(hooks) = file.raw.get("hooks").and_then(|h| h.as_object())
        && !hooks.is_empty()
    {
        note("hooks".into());
    }
    if let Some(raw) = out.raw.as_object_mut() {
        raw.remove("hooks");
        for key in UNTRUSTED_KEYS {
            if raw.remove(key).is_some() {
                note(key.to_string());
            }
        }
    }
    for name in std::mem::take(&mut out.values.env).into_keys() {
        note(format!("env.{name}"));
    }
    let permissions = &mut out.values.permissions;
    let allow = std::mem::take(&mut permissions.allow);
    if !allow.is_empty() {
        note(format!("permissions.allow ({} rules)", allow.len()));
    }
    let dirs = std::mem::take(&mut permissions.additional_directories);
    if !dirs.is_empty() {
        note("permissions.additionalDirectories".into());
    }
    // Only the modes that check at least as much as `default` stay.
    if let Some(mode) = permissions.default_mode.take() {
        if matches!(mode.trim(), "default" | "plan") {
            permissions.default_mode = Some(mode);
        } else {
            note(format!("permissions.defaultMode {mode}"));
        }
    }
    out
}
