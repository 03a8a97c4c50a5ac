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

/// No rule allows the call: ask a human (denied when headless). Claude
/// Code's wording, with orbit's name.
pub fn not_granted(tool_name: &str) -> String {
    format!("orbit requested permissions to use {tool_name}, but you haven't granted it yet.")
}
