//! Permission decisions (DESIGN P1, basic): may this tool call run?
//!
//! Pure functions, no I/O. The engine's orchestrator builds a
//! [`PermissionRequest`] for each validated tool call and asks
//! [`can_use_tool`]; the answer is [`PermissionDecision::Allow`], `Ask` or
//! `Deny` with a reason. Order of evaluation: disallowed rules (deny beats
//! everything, even `bypassPermissions`) → mode → allowed rules → ask. In
//! headless mode there is no one to ask, so an `ask` becomes a deny
//! ([`PermissionConfig::headless`]); the engine records every deny in the
//! result's `permission_denials`.
//!
//! Rules use Claude Code's syntax (`Tool` or `Tool(specifier)`, see
//! `rule`). Until the permissions issue (P2/P3) lands, specifiers are coarse:
//! a deny rule with a specifier denies the whole tool (errs on the safe side);
//! an allow rule with a specifier allows the whole tool, except for Bash,
//! where it allows only a command equal to the specifier (or starting with
//! its prefix for `prefix:*`) that contains no shell metacharacters — so
//! `Bash(git status)` never allows `git status; rm -rf ~`.
//!
//! The reasons' wording lives in `orbit_tool::texts::permissions`.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod mode;
mod rule;

use orbit_tool::CallFacts;
use orbit_tool::texts::permissions as texts;

pub use mode::{ParseModeError, PermissionMode};
pub use rule::{PermissionRule, parse_rule_list};

/// The session's permission settings (`--permission-mode`, `--allowedTools`,
/// `--disallowedTools`).
#[derive(Debug, Clone, Default)]
pub struct PermissionConfig {
    /// How much runs without asking.
    pub mode: PermissionMode,
    /// Rules in Claude Code syntax, e.g. `Read`, `Bash(git status)`.
    pub allowed_tools: Vec<String>,
    /// Deny rules, same syntax; they win over everything, bypass mode included.
    pub disallowed_tools: Vec<String>,
    /// No one to ask: an `ask` becomes a deny.
    pub headless: bool,
}

/// One tool call as the permission gate sees it: the tool's name (what
/// rules are written against) and the facts the tool declared for this
/// input (what the policy decides by; it never matches tool names).
#[derive(Debug, Clone, Copy)]
pub struct PermissionRequest<'a> {
    /// The tool's name, as rules name it (`Bash`, `Edit`, `mcp__s__t`).
    pub tool_name: &'a str,
    /// What the call will do.
    pub facts: &'a CallFacts,
}

impl PermissionRequest<'_> {
    /// Reads only, and only local things: allowed without a rule outside
    /// plan mode's limits. A network read can carry data out (a secret in a
    /// URL), so — as in Claude Code — it needs a rule.
    fn is_local_read_only(&self) -> bool {
        self.facts.read_only && self.facts.network.is_none()
    }

    /// Edits files and does nothing else (no command, no network): what
    /// `acceptEdits` allows without asking.
    fn is_file_edit(&self) -> bool {
        !self.facts.writes.is_empty()
            && self.facts.command.is_none()
            && self.facts.network.is_none()
    }
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

/// Decides whether a tool call may run (P1). See the module docs for the order.
pub fn can_use_tool(
    config: &PermissionConfig,
    request: &PermissionRequest<'_>,
) -> PermissionDecision {
    let decision = decide(config, request);
    match decision {
        PermissionDecision::Ask { reason } if config.headless => {
            PermissionDecision::Deny { reason }
        }
        other => other,
    }
}

fn decide(config: &PermissionConfig, request: &PermissionRequest<'_>) -> PermissionDecision {
    let name = request.tool_name;
    let local_read_only = request.is_local_read_only();
    if let Some(rule) = matching_rule(&config.disallowed_tools, |r| r.matches_tool_name(name)) {
        return PermissionDecision::Deny {
            reason: texts::denied_by_rule(name, rule),
        };
    }
    match config.mode {
        PermissionMode::BypassPermissions => return PermissionDecision::Allow,
        PermissionMode::Plan if !local_read_only && request.facts.read_only => {}
        PermissionMode::Plan => {
            return if local_read_only {
                PermissionDecision::Allow
            } else {
                PermissionDecision::Deny {
                    reason: texts::denied_in_plan_mode(name),
                }
            };
        }
        PermissionMode::AcceptEdits if request.is_file_edit() => return PermissionDecision::Allow,
        PermissionMode::AcceptEdits | PermissionMode::Default => {}
    }
    if local_read_only {
        return PermissionDecision::Allow;
    }
    if matching_rule(&config.allowed_tools, |r| r.allows(request)).is_some() {
        return PermissionDecision::Allow;
    }
    PermissionDecision::Ask {
        reason: texts::not_granted(name),
    }
}

/// The first rule in `rules` (parsed leniently) that satisfies `pred`.
fn matching_rule(rules: &[String], pred: impl Fn(&PermissionRule<'_>) -> bool) -> Option<&str> {
    rules
        .iter()
        .map(String::as_str)
        .find(|raw| PermissionRule::parse(raw).is_some_and(|r| pred(&r)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn network_tools_need_a_rule_even_though_read_only() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
        ] {
            let c = cfg(mode, &[], &[]);
            assert!(
                !ask(&c, "WebFetch", json!({"url": "http://x"}), true).is_allow(),
                "{mode:?}"
            );
            let c = cfg(mode, &["WebFetch"], &[]);
            assert!(
                ask(&c, "WebFetch", json!({"url": "http://x"}), true).is_allow(),
                "{mode:?}"
            );
        }
    }
    use serde_json::{Value, json};

    fn cfg(mode: PermissionMode, allowed: &[&str], disallowed: &[&str]) -> PermissionConfig {
        PermissionConfig {
            mode,
            allowed_tools: allowed.iter().map(|s| s.to_string()).collect(),
            disallowed_tools: disallowed.iter().map(|s| s.to_string()).collect(),
            headless: false,
        }
    }

    /// The facts the built-ins declare for such a call (what the gate sees).
    fn facts_of(name: &str, input: &Value, read_only: bool) -> CallFacts {
        CallFacts {
            read_only,
            command: input["command"].as_str().map(str::to_string),
            writes: if matches!(name, "Write" | "Edit") {
                vec!["file.txt".into()]
            } else {
                Vec::new()
            },
            network: input["url"].as_str().map(str::to_string),
            ..CallFacts::default()
        }
    }

    fn ask(
        config: &PermissionConfig,
        name: &str,
        input: Value,
        read_only: bool,
    ) -> PermissionDecision {
        let facts = facts_of(name, &input, read_only);
        can_use_tool(
            config,
            &PermissionRequest {
                tool_name: name,
                facts: &facts,
            },
        )
    }

    #[test]
    fn default_mode_allows_read_only_and_asks_for_the_rest() {
        let c = cfg(PermissionMode::Default, &[], &[]);
        assert_eq!(ask(&c, "Read", json!({}), true), PermissionDecision::Allow);
        assert_eq!(
            ask(&c, "Bash", json!({"command": "rm x"}), false),
            PermissionDecision::Ask {
                reason: "orbit requested permissions to use Bash, but you haven't granted it yet."
                    .into()
            }
        );
        assert!(matches!(
            ask(&c, "Write", json!({}), false),
            PermissionDecision::Ask { .. }
        ));
    }

    #[test]
    fn headless_turns_ask_into_deny() {
        let mut c = cfg(PermissionMode::Default, &[], &[]);
        c.headless = true;
        assert_eq!(
            ask(&c, "Bash", json!({"command": "ls"}), false),
            PermissionDecision::Deny {
                reason: "orbit requested permissions to use Bash, but you haven't granted it yet."
                    .into()
            }
        );
        assert_eq!(ask(&c, "Read", json!({}), true), PermissionDecision::Allow);
    }

    #[test]
    fn allowed_tools_grant_by_name() {
        let c = cfg(PermissionMode::Default, &["Write", "Bash"], &[]);
        assert!(ask(&c, "Write", json!({}), false).is_allow());
        assert!(ask(&c, "Bash", json!({"command": "make; rm -rf /"}), false).is_allow());
        assert!(!ask(&c, "Edit", json!({}), false).is_allow());
    }

    #[test]
    fn bash_allow_specifiers_match_exact_or_prefix_without_metacharacters() {
        let c = cfg(
            PermissionMode::Default,
            &["Bash(git status)", "Bash(npm run test:*)"],
            &[],
        );
        assert!(ask(&c, "Bash", json!({"command": "git status"}), false).is_allow());
        assert!(
            !ask(
                &c,
                "Bash",
                json!({"command": "git status; rm -rf ~"}),
                false
            )
            .is_allow()
        );
        assert!(!ask(&c, "Bash", json!({"command": "git statusx"}), false).is_allow());
        assert!(ask(&c, "Bash", json!({"command": "npm run test:unit"}), false).is_allow());
        assert!(ask(&c, "Bash", json!({"command": "npm run test"}), false).is_allow());
        assert!(
            !ask(
                &c,
                "Bash",
                json!({"command": "npm run test && curl x"}),
                false
            )
            .is_allow()
        );
        assert!(!ask(&c, "Bash", json!({"command": "echo $(id)"}), false).is_allow());
    }

    #[test]
    fn non_bash_specifiers_are_coarse_by_tool_name() {
        let c = cfg(PermissionMode::Default, &["Edit(src/**)"], &[]);
        assert!(ask(&c, "Edit", json!({"file_path": "/etc/passwd"}), false).is_allow());
    }

    #[test]
    fn deny_beats_allow_and_every_mode() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::BypassPermissions,
        ] {
            let c = cfg(mode, &["Bash", "Read"], &["Bash(rm:*)", "Read"]);
            assert_eq!(
                ask(&c, "Bash", json!({"command": "ls"}), false),
                PermissionDecision::Deny {
                    reason: "Permission to use Bash has been denied by the rule `Bash(rm:*)`."
                        .into()
                },
                "{mode:?}"
            );
            assert!(matches!(
                ask(&c, "Read", json!({}), true),
                PermissionDecision::Deny { .. }
            ));
        }
    }

    #[test]
    fn bypass_allows_everything_not_disallowed() {
        let c = cfg(PermissionMode::BypassPermissions, &[], &["WebFetch"]);
        assert!(ask(&c, "Bash", json!({"command": "rm -rf build"}), false).is_allow());
        assert!(ask(&c, "Write", json!({}), false).is_allow());
        assert!(!ask(&c, "WebFetch", json!({}), true).is_allow());
    }

    #[test]
    fn plan_mode_allows_only_read_only() {
        let c = cfg(PermissionMode::Plan, &["Bash", "Write"], &[]);
        assert!(ask(&c, "Grep", json!({}), true).is_allow());
        assert!(ask(&c, "Bash", json!({"command": "ls"}), true).is_allow());
        assert_eq!(
            ask(&c, "Write", json!({}), false),
            PermissionDecision::Deny {
                reason: "Write is not allowed in plan mode: only read-only tools may run while planning."
                    .into()
            }
        );
    }

    #[test]
    fn accept_edits_allows_file_edits_and_asks_for_others() {
        let c = cfg(PermissionMode::AcceptEdits, &[], &[]);
        assert!(ask(&c, "Write", json!({}), false).is_allow());
        assert!(ask(&c, "Edit", json!({}), false).is_allow());
        assert!(ask(&c, "Read", json!({}), true).is_allow());
        assert!(matches!(
            ask(&c, "Bash", json!({"command": "touch x"}), false),
            PermissionDecision::Ask { .. }
        ));
        let c = cfg(PermissionMode::AcceptEdits, &["Bash"], &[]);
        assert!(ask(&c, "Bash", json!({"command": "touch x"}), false).is_allow());
    }
}
