//! The environment of the processes Bash starts: orbit's own (the process
//! environment) minus the secrets the session hides
//! ([`orbit_tool::ToolUseContext::hide_env_vars`]: API keys and tokens, so
//! `printenv` or `env` cannot hand them to the model), plus the settings
//! files' `env` ([`orbit_tool::ToolUseContext::set_env_vars`]; a hidden
//! name stays hidden), plus
//! `process::BASH_EXTRA_ENV` and git configuration that takes away
//! the repository's ways to run a program during a read
//! ([`GIT_NEUTRALISED_CONFIG`]).
//!
//! The git part uses `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
//! `GIT_CONFIG_VALUE_n`: command-line scope, above every config file, and
//! inherited by the git processes git itself starts (submodules). Entries
//! already in the environment are kept and ours are appended, so they win.

use std::ffi::OsString;

use tokio::process::Command;

/// Git settings every Bash command runs with. Each names a program a
/// repository's `.git/config` could make a read-only command run, and its
/// neutral value changes no output: `core.fsmonitor` (run by `status`,
/// `diff`, `ls-files`), `core.pager` (orbit never gives git a terminal),
/// `log.showSignature` (runs `gpg.program` in `log`/`show`). What cannot be
/// neutralised without changing results (`diff.external`, textconv and
/// filter drivers, aliases of non-builtin names) is handled by the Bash
/// tool's facts instead: such a repository's git commands are not
/// auto-approved (`super::facts`).
pub const GIT_NEUTRALISED_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("log.showSignature", "false"),
];

/// Applies the environment described in the module docs to `cmd`.
pub fn apply_tool_env(cmd: &mut Command, hidden: &[String], set: &[(String, OsString)]) {
    cmd.envs(set.iter().map(|(k, v)| (k, v)));
    for name in hidden {
        cmd.env_remove(name);
    }
    let first = std::env::var("GIT_CONFIG_COUNT")
        .ok()
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    for (i, (key, value)) in GIT_NEUTRALISED_CONFIG.iter().enumerate() {
        cmd.env(format!("GIT_CONFIG_KEY_{}", first + i), key);
        cmd.env(format!("GIT_CONFIG_VALUE_{}", first + i), value);
    }
    cmd.env(
        "GIT_CONFIG_COUNT",
        (first + GIT_NEUTRALISED_CONFIG.len()).to_string(),
    );
}
