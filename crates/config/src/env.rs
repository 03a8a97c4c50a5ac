//! [`Env`]: one snapshot of the environment, with typed getters that warn
//! about bad values instead of failing.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::error::ConfigError;
use crate::origin::SettingsSource;
use crate::vars;

/// Variables read before any settings file (the data directory locates the
/// user settings; logging starts first): only the process environment sets them.
pub const PROCESS_ONLY: [&str; 4] = [
    vars::ORBIT_HOME,
    vars::HOME,
    vars::ORBIT_LOG,
    vars::CLAUDE_CONFIG_DIR,
];

/// Variables the `env` of project and local settings (files that come
/// with a checked-out repository) can never set, trusted folder or not:
/// they would hand the user's keys to every tool, open local addresses
/// to WebFetch or loosen the OS sandbox. (In an untrusted folder those files set no variable at
/// all, see `crate::trust`; a trusted one may choose endpoints and
/// credentials, as in Claude Code.)
pub const NOT_FROM_PROJECT: [&str; 3] = [
    vars::ORBIT_TOOLS_SEE_SECRETS,
    vars::ORBIT_WEBFETCH_ALLOW_HOSTS,
    vars::ORBIT_SANDBOX,
];

/// The environment, read once. Lookups never touch the process again, so
/// every part of orbit sees the same values, and tests build one from
/// pairs instead of mutating the process environment.
///
/// `Debug` prints the variable names only (values may be secrets).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Env {
    vars: BTreeMap<String, OsString>,
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.vars.keys()).finish()
    }
}

impl Env {
    /// A snapshot of the process environment (variables whose names are
    /// not UTF-8 are skipped; orbit reads none of them).
    pub fn from_process() -> Self {
        let vars = std::env::vars_os()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value)))
            .collect();
        Self { vars }
    }

    /// An environment with exactly these variables (tests, embedders).
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<OsString>,
    {
        let vars = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Self { vars }
    }

    /// The value of `name` as set, empty or not; None when unset or not UTF-8.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.vars.get(name).and_then(|v| v.to_str())
    }

    /// The value of `name`; None when unset, empty, whitespace-only or not
    /// UTF-8. This is what "set" means everywhere in orbit.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.raw(name).filter(|v| !v.trim().is_empty())
    }

    /// The names of every variable, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }

    /// Whether `name` has a value (see [`Self::get`]).
    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// `name` as a path; None when unset or empty. Not trimmed, and not
    /// required to be UTF-8.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.vars
            .get(name)
            .filter(|v| !v.is_empty())
            .map(|v| PathBuf::from(v.as_os_str()))
    }

    /// A lookup function for the `from_lookup` constructors of orbit-model
    /// (`AnthropicConfig::from_lookup(env.lookup())`).
    pub fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |name| self.raw(name).map(str::to_string)
    }

    /// `name` parsed as a `T` (surrounding whitespace ignored). Unset →
    /// None; a value that does not parse → a warning naming the variable,
    /// and None (the caller's default).
    pub fn parsed<T: FromStr>(&self, name: &str, expected: &str) -> Option<T> {
        let raw = self.get(name)?;
        match raw.trim().parse::<T>() {
            Ok(value) => Some(value),
            Err(_) => {
                warn_invalid(name, raw, expected);
                None
            }
        }
    }

    /// `name` as a positive integer (`_` digit separators allowed, as in
    /// `200_000`). Unset → None; zero or anything else warns and gives None.
    pub fn positive(&self, name: &str) -> Option<usize> {
        let raw = self.get(name)?;
        match raw.trim().replace('_', "").parse::<usize>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                warn_invalid(name, raw, "a positive integer");
                None
            }
        }
    }

    /// `name` as a switch: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`
    /// (any case). Unset → None; anything else warns and gives None.
    pub fn flag(&self, name: &str) -> Option<bool> {
        let raw = self.get(name)?;
        match raw.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" => Some(false),
            _ => {
                warn_invalid(name, raw, "1, true, yes, on, 0, false, no or off");
                None
            }
        }
    }

    /// This environment with settings files' `env` maps applied, highest
    /// precedence first: (source, how the file is named, its `env` map).
    /// The rules are [`Env::with_settings`]'s.
    pub(crate) fn with_env_maps<'a>(
        &self,
        maps: impl IntoIterator<Item = (SettingsSource, &'a str, &'a BTreeMap<String, String>)>,
    ) -> Env {
        let mut vars = self.vars.clone();
        let mut managed = BTreeSet::new();
        for (source, origin, env) in maps {
            for (name, value) in env {
                if PROCESS_ONLY.contains(&name.as_str()) {
                    tracing::warn!(
                        "ignoring env.{name} in {origin}: {name} is read before settings files"
                    );
                    continue;
                }
                if source.is_in_project() && NOT_FROM_PROJECT.contains(&name.as_str()) {
                    tracing::warn!(
                        "ignoring env.{name} in {origin}: project settings cannot set it (set it in the environment or user settings)"
                    );
                    continue;
                }
                let take = if source == SettingsSource::Managed {
                    managed.insert(name.clone())
                } else {
                    vars.get(name)
                        .and_then(|v| v.to_str())
                        .is_none_or(|v| v.trim().is_empty())
                };
                if take {
                    vars.insert(name.clone(), OsString::from(value));
                }
            }
        }
        Env { vars }
    }

    /// The variables this environment sets that `base` does not, or sets
    /// to another value: what the settings files' `env` added to the
    /// process environment (handed to the processes tools start).
    pub fn added_over(&self, base: &Env) -> Vec<(String, OsString)> {
        self.vars
            .iter()
            .filter(|(name, value)| base.vars.get(*name) != Some(*value))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    }

    /// The variables and their values (for spawning children with exactly
    /// this environment).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OsStr)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_os_str()))
    }
}

/// The one warning format for a bad value: names the variable, the value
/// and what was expected; the caller then uses its default.
pub(crate) fn warn_invalid(name: &str, value: &str, expected: &str) {
    tracing::warn!("ignoring invalid {name}={value:?} (expected {expected}; using the default)");
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
