//! `--permission-mode`: how much runs without asking. Parsed from and
//! printed as Claude Code's CLI strings (`default`, `acceptEdits`, `plan`,
//! `bypassPermissions`, `dontAsk`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How much runs without asking (`--permission-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Read-only tools run; everything else asks unless allowed by a rule.
    #[default]
    Default,
    /// Like `Default`, and file edits (Write, Edit, …) run without asking.
    AcceptEdits,
    /// Only read-only tools run; nothing changes while the model plans.
    Plan,
    /// Everything runs except what a disallow rule denies.
    BypassPermissions,
    /// Like `Default`, but whatever would ask is denied instead: only what
    /// a rule or the mode allows runs (Claude Code's `dontAsk`).
    DontAsk,
}

impl PermissionMode {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [PermissionMode; 5] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::BypassPermissions,
        PermissionMode::DontAsk,
    ];

    /// The CLI / stream-json spelling (`permissionMode` of the init line).
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "invalid permission mode `{0}` (expected one of: default, acceptEdits, plan, bypassPermissions, dontAsk)"
)]
/// A `--permission-mode` value that names no mode; holds the value.
pub struct ParseModeError(pub String);

impl FromStr for PermissionMode {
    type Err = ParseModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PermissionMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| ParseModeError(s.to_string()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_cli_strings() {
        for m in PermissionMode::ALL {
            assert_eq!(m.as_str().parse::<PermissionMode>(), Ok(m));
            assert_eq!(
                serde_json::to_value(m).unwrap(),
                serde_json::json!(m.as_str())
            );
        }
        assert_eq!(
            "accept-edits"
                .parse::<PermissionMode>()
                .unwrap_err()
                .to_string(),
            "invalid permission mode `accept-edits` (expected one of: default, acceptEdits, plan, bypassPermissions, dontAsk)"
        );
    }
}
