//! Where a configured value came from: the settings file sources in
//! precedence order ([`SettingsSource`]), a value's [`Origin`] (flag,
//! variable, settings file, default) and a value kept with it
//! ([`Sourced`]). A leaf: every layer of the config names these.

use std::fmt;

/// Where a settings file comes from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingsSource {
    /// Administrator policy: `/etc/orbit/managed-settings.json`,
    /// `/etc/claude-code/managed-settings.json`. Always loaded.
    Managed,
    /// `--settings FILE` or `--settings '{…json…}'`. Always loaded.
    Flag,
    /// Personal, per project, not committed: `.orbit/settings.local.json`,
    /// `.claude/settings.local.json`.
    Local,
    /// Shared with the project: `.orbit/settings.json`, `.claude/settings.json`.
    Project,
    /// Personal: `$ORBIT_HOME/settings.json`, `~/.claude/settings.json`.
    User,
}

impl SettingsSource {
    /// Every source, highest precedence first.
    pub const ALL: [SettingsSource; 5] = [
        SettingsSource::Managed,
        SettingsSource::Flag,
        SettingsSource::Local,
        SettingsSource::Project,
        SettingsSource::User,
    ];

    /// orbit's name (`managed`, `flag`, `local`, `project`, `user`), as in
    /// `--setting-sources`.
    pub fn name(self) -> &'static str {
        match self {
            SettingsSource::Managed => "managed",
            SettingsSource::Flag => "flag",
            SettingsSource::Local => "local",
            SettingsSource::Project => "project",
            SettingsSource::User => "user",
        }
    }

    /// Claude Code's name (`policySettings`, `flagSettings`, …).
    pub fn claude_code_name(self) -> &'static str {
        match self {
            SettingsSource::Managed => "policySettings",
            SettingsSource::Flag => "flagSettings",
            SettingsSource::Local => "localSettings",
            SettingsSource::Project => "projectSettings",
            SettingsSource::User => "userSettings",
        }
    }

    /// Whether files of this source live in the project directory (and so
    /// come with whatever repository is checked out).
    pub fn is_in_project(self) -> bool {
        matches!(self, SettingsSource::Local | SettingsSource::Project)
    }
}

impl fmt::Display for SettingsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
