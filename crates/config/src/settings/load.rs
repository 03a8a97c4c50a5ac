//! Finding, reading and parsing settings files.
//!
//! [`SettingsLocations::standard`] names the candidate files (no I/O);
//! [`Settings::load`] tries each one once: a file that does not exist is
//! skipped, one that exists is read and parsed, and one that cannot be read
//! or parsed is an error naming it (with line and column for JSON errors).
//! No directory is walked: at most one `open` per candidate (9 with the
//! standard locations) plus the `--settings` file.
//!
//! Every read goes through `orbit_untrusted`, capped at
//! [`CONFIG_FILE_MAX_BYTES`] (a larger file is refused, not cut). A
//! project or local file (it comes with the repository) must be a regular
//! file whose target stays inside the project — settings load before the
//! folder's trust is known, so a link out is never followed there — and is
//! otherwise skipped with one warning line (a directory there, or a file
//! that cannot be read, stays an error). A user or managed file that is
//! no regular file is an error; `--settings FILE` may also be a pipe
//! (`<(…)`).

use std::path::{Path, PathBuf};

use orbit_permissions::PermissionRule;
use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, UntrustedError, read_untrusted};

use super::{FileSettings, Settings, SettingsFile, SettingsSource};
use crate::env::{Env, data_dir};
use crate::error::ConfigError;

/// Managed (policy) settings, orbit's first.
pub(crate) const MANAGED_PATHS: [&str; 2] = [
    "/etc/orbit/managed-settings.json",
    "/etc/claude-code/managed-settings.json",
];
/// Local settings, relative to the project directory, orbit's first.
pub(crate) const LOCAL_FILES: [&str; 2] =
    [".orbit/settings.local.json", ".claude/settings.local.json"];
/// Project settings, relative to the project directory, orbit's first.
pub(crate) const PROJECT_FILES: [&str; 2] = [".orbit/settings.json", ".claude/settings.json"];
/// User settings file name inside the data directory.
pub(crate) const USER_FILE: &str = "settings.json";
/// Claude Code's user settings, inside its configuration directory
/// (`~/.claude`, or `$CLAUDE_CONFIG_DIR`).
pub(crate) const CLAUDE_USER_SETTINGS: &str = "settings.json";

/// The candidate files of each source, orbit's own before Claude Code's
/// (the first of a source wins over the second).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsLocations {
    /// [`SettingsSource::Managed`] files.
    pub managed: Vec<PathBuf>,
    /// [`SettingsSource::Local`] files.
    pub local: Vec<PathBuf>,
    /// [`SettingsSource::Project`] files.
    pub project: Vec<PathBuf>,
    /// [`SettingsSource::User`] files.
    pub user: Vec<PathBuf>,
}

impl SettingsLocations {
    /// The standard places for a session in `project_dir`: see
    /// `MANAGED_PATHS`, `LOCAL_FILES`, `PROJECT_FILES`, and the user's
    /// `<data dir>/settings.json`, the rules saved for this project from
    /// orbit's dialog ([`crate::saved_rules::saved_rules_file`]: the only
    /// I/O here is making `project_dir` canonical) and Claude Code's
    /// `settings.json` (`$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`).
    /// Errors only when there is no data directory ([`data_dir`]).
    pub fn standard(env: &Env, project_dir: &Path) -> Result<Self, ConfigError> {
        let data = data_dir(env)?;
        let mut user = vec![
            data.join(USER_FILE),
            crate::saved_rules::saved_rules_file(&data, project_dir),
        ];
        // Claude Code's: `~/.claude/settings.json`, or in $CLAUDE_CONFIG_DIR.
        if let Some(dir) = crate::claude_code::claude_config_dir(env) {
            user.push(dir.join(CLAUDE_USER_SETTINGS));
        }
        Ok(Self {
            managed: MANAGED_PATHS.iter().map(PathBuf::from).collect(),
            local: LOCAL_FILES.iter().map(|f| project_dir.join(f)).collect(),
            project: PROJECT_FILES.iter().map(|f| project_dir.join(f)).collect(),
            user,
        })
    }

    /// The candidate files of `source` (none for [`SettingsSource::Flag`]).
    pub fn paths(&self, source: SettingsSource) -> &[PathBuf] {
        match source {
            SettingsSource::Managed => &self.managed,
            SettingsSource::Flag => &[],
            SettingsSource::Local => &self.local,
            SettingsSource::Project => &self.project,
            SettingsSource::User => &self.user,
        }
    }
}

/// Which of the user, project and local sources load
/// (`--setting-sources user,project,local`). Managed settings and
/// `--settings` always load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingSources {
    /// Load [`SettingsSource::User`] files.
    pub user: bool,
    /// Load [`SettingsSource::Project`] files.
    pub project: bool,
    /// Load [`SettingsSource::Local`] files.
    pub local: bool,
}

impl Default for SettingSources {
    fn default() -> Self {
        Self::all()
    }
}

impl SettingSources {
    /// User, project and local.
    pub fn all() -> Self {
        Self {
            user: true,
            project: true,
            local: true,
        }
    }

    /// Parses a comma-separated list of `user`, `project`, `local` (empty:
    /// none of them). An unknown name is an error.
    pub fn parse(list: &str) -> Result<Self, ConfigError> {
        let mut out = Self {
            user: false,
            project: false,
            local: false,
        };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "user" => out.user = true,
                "project" => out.project = true,
                "local" => out.local = true,
                other => return Err(ConfigError::UnknownSettingSource(other.to_string())),
            }
        }
        Ok(out)
    }

    /// Whether files of `source` load.
    pub fn includes(self, source: SettingsSource) -> bool {
        match source {
            SettingsSource::Managed | SettingsSource::Flag => true,
            SettingsSource::Local => self.local,
            SettingsSource::Project => self.project,
            SettingsSource::User => self.user,
        }
    }
}

impl Settings {
    /// Loads the settings files of `locations` that exist, and `flag` (the
    /// `--settings` value: inline JSON when it starts with `{`, else a file
    /// that must exist), keeping only the sources `sources` includes.
    pub fn load(
        locations: &SettingsLocations,
        flag: Option<&str>,
        sources: SettingSources,
    ) -> Result<Settings, ConfigError> {
        let mut files = Vec::new();
        for source in SettingsSource::ALL {
            if !sources.includes(source) {
                continue;
            }
            if source == SettingsSource::Flag {
                if let Some(value) = flag {
                    files.push(load_flag(value)?);
                }
                continue;
            }
            for path in locations.paths(source) {
                if let Some(text) = read_optional(path, source)? {
                    files.push(SettingsFile::parse(
                        source,
                        path.display().to_string(),
                        Some(path.clone()),
                        &text,
                    )?);
                }
            }
        }
        Ok(Settings::from_files(files))
    }
}

/// `--settings FILE|JSON`.
fn load_flag(value: &str) -> Result<SettingsFile, ConfigError> {
    if value.trim_start().starts_with('{') {
        return SettingsFile::parse(SettingsSource::Flag, "--settings", None, value);
    }
    let path = PathBuf::from(value);
    let opts = ReadOpts::user_named(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
    let text = read_untrusted(&path, &opts)
        .map_err(|err| read_error(&path, err))?
        .text();
    SettingsFile::parse(
        SettingsSource::Flag,
        path.display().to_string(),
        Some(path),
        &text,
    )
}

/// The file's text; None when it (or a parent directory) does not exist,
/// or when a file of the project is refused (one warning line).
fn read_optional(path: &Path, source: SettingsSource) -> Result<Option<String>, ConfigError> {
    // `.claude/settings.json` → the project directory two levels up.
    let project = source
        .is_in_project()
        .then(|| path.parent().and_then(Path::parent))
        .flatten();
    let opts = match project {
        Some(root) => ReadOpts::in_project(root, CONFIG_FILE_MAX_BYTES),
        None => ReadOpts::user_file(CONFIG_FILE_MAX_BYTES),
    }
    .refuse_over_cap();
    match read_untrusted(path, &opts) {
        Ok(file) => Ok(Some(file.text())),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) if project.is_some() && err.is_refusal() => {
            tracing::warn!("skipped {}: {err}", path.display());
            Ok(None)
        }
        Err(err) => Err(read_error(path, err)),
    }
}

fn read_error(path: &Path, err: UntrustedError) -> ConfigError {
    let source = match err {
        UntrustedError::Io(err) => err,
        UntrustedError::NotFound => {
            std::io::Error::new(std::io::ErrorKind::NotFound, err.to_string())
        }
        other => std::io::Error::other(other.to_string()),
    };
    ConfigError::Read {
        path: path.display().to_string(),
        source,
    }
}

impl SettingsFile {
    /// Parses one settings document. `origin` names it in errors (a path,
    /// or `--settings`). An empty (or whitespace-only) document is `{}`.
    /// Syntax errors and wrongly typed known keys are errors with line and
    /// column; unknown keys are kept in `raw`.
    pub fn parse(
        source: SettingsSource,
        origin: impl Into<String>,
        path: Option<PathBuf>,
        text: &str,
    ) -> Result<SettingsFile, ConfigError> {
        let origin = origin.into();
        let text = if text.trim().is_empty() { "{}" } else { text };
        let parse_error = |err: serde_json::Error| ConfigError::parse(&origin, &err);
        let raw: serde_json::Value = serde_json::from_str(text).map_err(parse_error)?;
        if !raw.is_object() {
            // Checked here: serde would read an array as a struct's fields.
            return Err(ConfigError::Parse {
                origin,
                line: 1,
                column: 1,
                message: format!(
                    "expected a JSON object of settings, got {}",
                    json_kind(&raw)
                ),
            });
        }
        let values: FileSettings = serde_json::from_str(text).map_err(parse_error)?;
        check_rules(&origin, text, &values)?;
        Ok(SettingsFile {
            source,
            origin,
            path,
            values,
            raw,
        })
    }
}

/// Every permission rule of the file parses; the first that does not is
/// an error at its place in `text`. A rule is never dropped silently: a
/// deny rule dropped would allow what it was written to stop.
fn check_rules(origin: &str, text: &str, values: &FileSettings) -> Result<(), ConfigError> {
    let section = &values.permissions;
    for (list, rules) in [
        ("allow", &section.allow),
        ("deny", &section.deny),
        ("ask", &section.ask),
    ] {
        for rule in rules {
            if let Err(err) = PermissionRule::parse(rule) {
                let (line, column) = locate(text, list, rule, err.position);
                return Err(ConfigError::InvalidRule {
                    origin: origin.to_string(),
                    list,
                    rule: rule.clone(),
                    line,
                    column,
                    message: err.message,
                });
            }
        }
    }
    Ok(())
}

/// The 1-based line and column of char `offset` of `rule`, written as a
/// JSON string after the key `list` (falls back to the first occurrence,
/// then to 1:1).
fn locate(text: &str, list: &str, rule: &str, offset: usize) -> (usize, usize) {
    let encoded = serde_json::to_string(rule).unwrap_or_default();
    let after_key = text.find(&format!("\"{list}\"")).unwrap_or(0);
    let Some(start) = text[after_key..]
        .find(&encoded)
        .map(|i| i + after_key)
        .or_else(|| text.find(&encoded))
    else {
        return (1, 1);
    };
    // Past the opening quote, then `offset` chars of the rule (escapes in
    // the JSON text are rare in rules and ignored).
    let leading = rule.len() - rule.trim_start().len();
    let at = start + 1 + leading;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..at].chars().count() + 1 + offset;
    (line, column)
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
