//! Permission decisions (DESIGN P1–P3): may this tool call run?
//!
//! The engine's orchestrator builds a [`PermissionRequest`] for each
//! validated tool call — the tool's name, the facts it declared for this
//! input, the session's cwd and workspace roots — and asks the session's
//! [`Policy`] (compiled once from a [`PermissionConfig`]). The answer is
//! [`PermissionDecision::Allow`], `Ask` or `Deny` with a reason; the order
//! of evaluation is in `policy`. In headless mode there is no one to ask,
//! so an `ask` becomes a deny ([`Policy::can_use_tool`]); the engine
//! records every deny in the result's `permission_denials`.
//!
//! Rules use Claude Code's syntax (`Tool` or `Tool(specifier)`, parsed
//! strictly by [`PermissionRule::parse`]; see `rule` and `matcher` for what
//! each specifier matches). Policy never matches a tool's name except as a
//! rule names it: path rules match the paths a call reads or writes,
//! command rules the command it runs, domain rules the host it fetches.
//! Workspace boundaries (`workspace`) judge each path on its canonical
//! target. "Always allow" answers are persisted by [`persist_allow_rule`],
//! this crate's only file write.
//!
//! The reasons' wording lives in `orbit_tool::texts::permissions`.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod matcher;
mod mode;
mod persist;
mod policy;
mod rule;
mod suggest;
mod workspace;

use std::path::{Path, PathBuf};

use orbit_tool::CallFacts;

pub use mode::{ParseModeError, PermissionMode};
pub use persist::{LOCAL_RULES_FILE, PersistError, persist_allow_rule};
pub use policy::Policy;
pub use rule::{PermissionRule, RuleError, Specifier, parse_rule_list};
pub use suggest::suggested_rule;
pub use workspace::canonical_target;

/// The session's permission settings (`--permission-mode`, `--allowedTools`,
/// `--disallowedTools`, and the settings files' `permissions`). Rules are
/// text in Claude Code's syntax; path rules are anchored at the project
/// root the [`Policy`] is compiled for.
#[derive(Debug, Clone, Default)]
pub struct PermissionConfig {
    /// How much runs without asking.
    pub mode: PermissionMode,
    /// Allow rules, e.g. `Read`, `Bash(git status)`, `Edit(./src/**)`.
    pub allowed_tools: Vec<String>,
    /// Deny rules, same syntax; they win over everything, bypass mode included.
    pub disallowed_tools: Vec<String>,
    /// Ask rules: a human confirms every matching call, whatever the mode.
    pub ask_tools: Vec<String>,
    /// No one to ask: an `ask` becomes a deny.
    pub headless: bool,
    /// The home directory `~/` in path rules means (None: such rules do not compile).
    pub home: Option<PathBuf>,
}

/// One tool call as the permission gate sees it: the tool's name (what
/// rules are written against), the facts the tool declared for this input
/// (what the policy decides by; it never matches tool names), and where
/// the session is.
#[derive(Debug, Clone, Copy)]
pub struct PermissionRequest<'a> {
    /// The tool's name, as rules name it (`Bash`, `Edit`, `mcp__s__t`).
    pub tool_name: &'a str,
    /// What the call will do.
    pub facts: &'a CallFacts,
    /// The session's working directory (relative paths in facts are taken from it).
    pub cwd: &'a Path,
    /// The workspace: the project root and the added directories, canonical.
    pub roots: &'a [PathBuf],
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// The call may run.
    Allow,
    /// A human must confirm; `reason` says why it was not allowed outright.
    Ask {
        /// Why the call needs confirmation.
        reason: String,
    },
    /// The call must not run.
    Deny {
        /// Why, for the model-facing error.
        reason: String,
    },
}

impl PermissionDecision {
    /// Whether the call may run.
    pub fn is_allow(&self) -> bool {
        matches!(self, PermissionDecision::Allow)
    }
}
