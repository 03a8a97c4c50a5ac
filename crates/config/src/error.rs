//! [`ConfigError`]: what can stop configuration; every message names the
//! file, flag or variable at fault. A leaf.

use thiserror::Error;

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
