//! The denied-call guard (issue 38, a documented improvement): when no
//! one can approve a call (a headless run: no approver), a model that
//! makes the same call the permission gate refused a second time will not
//! get it through by trying again. The run ends (`error_during_execution`)
//! with an error that names the call, the reason the gate gave, and the
//! rule, flag or mode that would allow it — instead of a loop the runaway
//! guard ends without saying why.
//!
//! Flow: after each model call with tool_uses, the loop hands
//! [`DeniedGuard::observe`] the calls of that message the gate refused
//! (from the run's denial record) with the reason each was answered with
//! (its tool_result) and an [`AllowHint`] made from the call's facts (the
//! rule an approval would save, `orbit_permissions::suggested_rule`, and
//! whether it only writes files) → the guard counts each `(tool, input)` →
//! the second refusal of one yields the error text ([`denied_twice_error`]).
//! Nothing here matches tool names.

use serde_json::Value;

/// What would let a refused call through, from its facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AllowHint {
    /// The allow rule an approval of the call would save.
    pub(super) rule: String,
    /// The call only writes files (no command, no network): the
    /// acceptEdits mode would allow it in the workspace.
    pub(super) edits_files: bool,
}

/// A refused call as the guard sees it: tool, input, the gate's reason.
pub(super) type RefusedCall = (String, Value, String, AllowHint);

/// Refusals of one `(tool, input)` that end a headless run.
pub(super) const DENIALS_TO_STOP: u32 = 2;

/// Counts the refused calls of one run.
#[derive(Debug, Default)]
pub(super) struct DeniedGuard {
    /// Off when a person can approve calls.
    on: bool,
    seen: Vec<(String, Value, u32)>,
}

impl DeniedGuard {
    /// `headless`: no approver, so a refusal is final.
    pub(super) fn new(headless: bool) -> Self {
        Self {
            on: headless,
            seen: Vec::new(),
        }
    }

    /// Whether refusals are counted (headless): the caller skips making
    /// the refused calls' hints otherwise.
    pub(super) fn is_on(&self) -> bool {
        self.on
    }

    /// Counts one message's refused calls `(tool, input, reason)`; the
    /// error that ends the run when one was refused [`DENIALS_TO_STOP`]
    /// times.
    pub(super) fn observe(
        &mut self,
        denied: impl IntoIterator<Item = RefusedCall>,
    ) -> Option<String> {
        if !self.on {
            return None;
        }
        for (tool, input, reason, hint) in denied {
            let count = match self
                .seen
                .iter_mut()
                .find(|(t, i, _)| *t == tool && *i == input)
            {
                Some((_, _, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    self.seen.push((tool.clone(), input.clone(), 1));
                    1
                }
            };
            if count >= DENIALS_TO_STOP {
                return Some(denied_twice_error(&tool, &hint, &reason));
            }
        }
        None
    }
}

/// The run's error: the call, the gate's reason, what would allow it.
pub(super) fn denied_twice_error(tool: &str, hint: &AllowHint, reason: &str) -> String {
    let reason = reason
        .trim()
        .trim_start_matches("<tool_use_error>")
        .trim_end_matches("</tool_use_error>")
        .trim();
    format!(
        "Stopped: the permission check refused the same {tool} call {DENIALS_TO_STOP} times \
({reason}). To allow it: {}.",
        how_to_allow(hint, reason)
    )
}

/// The rule, flag or mode that would let the call through, read from the
/// gate's reason (`orbit_tool::texts::permissions`).
fn how_to_allow(hint: &AllowHint, reason: &str) -> String {
    if let Some(rule) = quoted_after(reason, "denied by the rule `") {
        return format!(
            "remove the deny rule `{rule}` (--disallowedTools or permissions.deny in the settings)"
        );
    }
    if let Some(rule) = quoted_after(reason, "the ask rule `") {
        return format!(
            "approve it in an interactive session, or replace the ask rule `{rule}` with an allow rule"
        );
    }
    if reason.contains("not allowed in plan mode") {
        return "leave plan mode (--permission-mode default or acceptEdits)".into();
    }
    let rule = &hint.rule;
    if reason.contains("dangerouslyDisableSandbox") {
        return format!("--allowedTools \"{rule}\" (an allow rule for the command)");
    }
    if reason.contains("haven't granted it") {
        if hint.edits_files {
            return format!("--permission-mode acceptEdits, or --allowedTools \"{rule}\"");
        }
        return format!("--allowedTools \"{rule}\" (or permissions.allow in the settings)");
    }
    format!(
        "a PreToolUse hook or the settings refused it; --allowedTools \"{rule}\" allows the tool"
    )
}

/// The text between `prefix` and the next backtick in `text`.
fn quoted_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let start = text.find(prefix)? + prefix.len();
    let len = text[start..].find('`')?;
    Some(&text[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_second_refusal_of_one_call_ends_a_headless_run() {
        let edit = json!({"file_path": "a", "old_string": "x", "new_string": "y"});
        let not_granted =
            "orbit requested permissions to use Edit, but you haven't granted it yet.".to_string();
        let hint = AllowHint {
            rule: "Edit(/a)".to_string(),
            edits_files: true,
        };
        let refused = |input: &Value| {
            vec![(
                "Edit".to_string(),
                input.clone(),
                not_granted.clone(),
                hint.clone(),
            )]
        };
        let mut guard = DeniedGuard::new(true);
        assert_eq!(guard.observe(refused(&edit)), None);
        assert_eq!(guard.observe(refused(&json!({"file_path": "b"}))), None);
        assert_eq!(
            guard.observe(refused(&edit)).as_deref(),
            Some(
                "Stopped: the permission check refused the same Edit call 2 times (orbit requested \
permissions to use Edit, but you haven't granted it yet.). To allow it: --permission-mode acceptEdits, \
or --allowedTools \"Edit(/a)\"."
            )
        );
        let mut interactive = DeniedGuard::new(false);
        for _ in 0..3 {
            assert_eq!(interactive.observe(refused(&edit)), None);
        }
    }

    #[test]
    fn the_way_to_allow_follows_the_reason() {
        let rm = AllowHint {
            rule: "Bash(rm -rf build)".to_string(),
            edits_files: false,
        };
        let cases = [
            (
                "<tool_use_error>Permission to use Bash has been denied by the rule `Bash(rm:*)`.</tool_use_error>",
                "remove the deny rule `Bash(rm:*)` (--disallowedTools or permissions.deny in the settings)",
            ),
            (
                "orbit requested permissions to use Bash, but you haven't granted it yet.",
                "--allowedTools \"Bash(rm -rf build)\" (or permissions.allow in the settings)",
            ),
            (
                "Bash is not allowed in plan mode: only read-only tools may run while planning.",
                "leave plan mode (--permission-mode default or acceptEdits)",
            ),
        ];
        for (reason, how) in cases {
            let error = denied_twice_error("Bash", &rm, reason);
            assert!(error.ends_with(&format!("To allow it: {how}.")), "{error}");
            assert!(!error.contains("tool_use_error"), "{error}");
        }
    }
}
