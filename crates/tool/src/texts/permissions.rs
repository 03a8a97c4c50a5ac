//! The reasons of the permission gate (P1), sent by `orbit-permissions`'
//! `can_use_tool` and answered by the engine as the call's `is_error`
//! result. A headless `ask` becomes a deny with the same reason.

/// A disallowed rule (`--disallowedTools`) matched: deny, whatever the mode.
pub fn denied_by_rule(tool_name: &str, rule: &str) -> String {
    format!("Permission to use {tool_name} has been denied by the rule `{rule}`.")
}

/// Plan mode refuses a call that is not a local read.
pub fn denied_in_plan_mode(tool_name: &str) -> String {
    format!("{tool_name} is not allowed in plan mode: only read-only tools may run while planning.")
}

/// A call whose point is a person's answer (`CallFacts::asks_user`); the
/// reason the model gets when no one can answer.
pub fn asks_user(tool_name: &str) -> String {
    format!(
        "{tool_name} needs an answer from the user, and no user can answer in this session: decide with sensible defaults, say what you chose, and go on."
    )
}

/// No rule allows the call: ask a human (denied when headless). Claude
/// Code's wording, with orbit's name.
pub fn not_granted(tool_name: &str) -> String {
    format!("orbit requested permissions to use {tool_name}, but you haven't granted it yet.")
}

/// The call asks to run outside the OS sandbox and no allow rule covers
/// its command: a human must approve (denied when headless).
pub fn unsandboxed(tool_name: &str) -> String {
    format!(
        "{tool_name} asked to run outside the sandbox (dangerouslyDisableSandbox): that needs your approval or an allow rule for this command, e.g. `{tool_name}(npm install:*)`."
    )
}

/// An ask rule matched: a human must confirm (denied when headless).
pub fn ask_rule(tool_name: &str, rule: &str) -> String {
    format!("Using {tool_name} here needs your approval: it matches the ask rule `{rule}`.")
}

/// A deny rule might match but the command cannot be analysed far enough
/// to tell (a substitution, a wrapper, a word computed at run time).
pub fn deny_rule_unsure(tool_name: &str, rule: &str) -> String {
    format!(
        "{tool_name} needs your approval: orbit cannot tell whether this command is covered by the deny rule `{rule}`."
    )
}

/// A path outside the working directory and the added directories.
pub fn outside_workspace(tool_name: &str, path: &std::path::Path, write: bool) -> String {
    let verb = if write { "write" } else { "read" };
    format!(
        "{tool_name} wants to {verb} {}, which is outside the working directories; this needs your approval.",
        path.display()
    )
}

/// A protected path inside the workspace (git internals, settings, rc files, `.env`).
pub fn protected_path(tool_name: &str, path: &std::path::Path, why: &str) -> String {
    format!(
        "{tool_name} wants to write {}, which needs your approval: {why}.",
        path.display()
    )
}
