//! Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`,
//! e.g. `Read`, `Bash(git status)`, `Bash(npm run test:*)`,
//! `mcp__server__tool`. Lists from the CLI (`--allowedTools "Bash(git log) Read,Edit"`)
//! are split on commas and whitespace outside parentheses by
//! [`parse_rule_list`].
//!
//! Specifier matching is coarse until the permissions issue (P2/P3): see the
//! crate docs for what is matched today.

use std::fmt;

use crate::PermissionRequest;

/// Characters that make a shell command more than one simple command (or
/// expand to something a prefix cannot vouch for). An allow specifier never
/// matches a command containing one of them.
const SHELL_METACHARACTERS: &[char] = &[';', '&', '|', '`', '$', '(', ')', '<', '>', '\n', '\r'];

/// One parsed rule, borrowing the text it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermissionRule<'a> {
    pub tool_name: &'a str,
    pub specifier: Option<&'a str>,
}

impl<'a> PermissionRule<'a> {
    /// Parses `Tool` or `Tool(specifier)`; `None` for an empty or malformed rule.
    pub fn parse(raw: &'a str) -> Option<Self> {
        let raw = raw.trim();
        if raw.is_empty() {
            return None;
        }
        match raw.find('(') {
            None => Some(Self {
                tool_name: raw,
                specifier: None,
            }),
            Some(open) => {
                let inner = raw[open + 1..].strip_suffix(')')?;
                let tool_name = raw[..open].trim();
                if tool_name.is_empty() {
                    return None;
                }
                let inner = inner.trim();
                Some(Self {
                    tool_name,
                    // `Bash()` and `Bash(*)` mean the whole tool.
                    specifier: (!inner.is_empty() && inner != "*").then_some(inner),
                })
            }
        }
    }

    /// Whether the rule names `tool_name` (the coarse match deny rules use).
    /// `mcp__server` (or `mcp__server__*`) names every tool of that server.
    pub fn matches_tool_name(&self, tool_name: &str) -> bool {
        if self.tool_name == tool_name {
            return true;
        }
        let server = self.tool_name.strip_suffix("__*").unwrap_or(self.tool_name);
        server.starts_with("mcp__")
            && server.matches("__").count() == 1
            && tool_name
                .strip_prefix(server)
                .is_some_and(|rest| rest.starts_with("__"))
    }

    /// Whether this allow rule covers the request.
    pub fn allows(&self, request: &PermissionRequest<'_>) -> bool {
        if !self.matches_tool_name(request.tool_name) {
            return false;
        }
        match self.specifier {
            None => true,
            Some(spec) if request.facts.command.is_some() => request
                .facts
                .command
                .as_deref()
                .is_some_and(|c| bash_command_matches(spec, c)),
            // Coarse until P2: path globs and domains are not checked yet.
            Some(_) => true,
        }
    }
}

impl fmt::Display for PermissionRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.specifier {
            None => f.write_str(self.tool_name),
            Some(s) => write!(f, "{}({s})", self.tool_name),
        }
    }
}

/// `git status` matches exactly; `npm run test:*` matches `npm run test` and
/// anything starting with `npm run test`. Commands with shell metacharacters
/// never match (they may chain a second command).
fn bash_command_matches(spec: &str, command: &str) -> bool {
    let command = command.trim();
    if command.contains(SHELL_METACHARACTERS) {
        return false;
    }
    match spec.strip_suffix(":*") {
        Some(prefix) => {
            command == prefix
                || command
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with([' ', ':', '\t']))
        }
        None => command == spec,
    }
}

/// Splits a CLI rule list on commas and whitespace that are not inside
/// parentheses: `"Bash(git log) Read,Edit"` → `["Bash(git log)", "Read", "Edit"]`.
pub fn parse_rule_list(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in list.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            c if depth == 0 && (c == ',' || c.is_whitespace()) => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_specifiers() {
        assert_eq!(
            PermissionRule::parse("Bash(git status)"),
            Some(PermissionRule {
                tool_name: "Bash",
                specifier: Some("git status")
            })
        );
        assert_eq!(
            PermissionRule::parse(" Read "),
            Some(PermissionRule {
                tool_name: "Read",
                specifier: None
            })
        );
        assert_eq!(
            PermissionRule::parse("Bash(*)").and_then(|r| r.specifier),
            None
        );
        assert_eq!(PermissionRule::parse("Bash(git"), None);
        assert_eq!(PermissionRule::parse("(x)"), None);
        assert_eq!(PermissionRule::parse(""), None);
        assert_eq!(
            PermissionRule::parse("Bash(npm run test:*)").map(|r| r.to_string()),
            Some("Bash(npm run test:*)".to_string())
        );
    }

    #[test]
    fn splits_cli_lists_outside_parentheses() {
        assert_eq!(
            parse_rule_list("Bash(git log --oneline) Read,Edit ,, mcp__s__t"),
            vec!["Bash(git log --oneline)", "Read", "Edit", "mcp__s__t"]
        );
        assert!(parse_rule_list("  ").is_empty());
    }

    #[test]
    fn mcp_server_rules_cover_the_servers_tools() {
        let rule = PermissionRule::parse("mcp__github").unwrap();
        assert!(rule.matches_tool_name("mcp__github__create_issue"));
        assert!(!rule.matches_tool_name("mcp__githubx__create_issue"));
        assert!(
            PermissionRule::parse("mcp__github__*")
                .unwrap()
                .matches_tool_name("mcp__github__a")
        );
        let exact = PermissionRule::parse("mcp__github__create_issue").unwrap();
        assert!(!exact.matches_tool_name("mcp__github__create_issue__x"));
    }

    #[test]
    fn bash_prefix_needs_a_word_boundary() {
        assert!(bash_command_matches("git:*", "git log"));
        assert!(bash_command_matches("git:*", "git"));
        assert!(!bash_command_matches("git:*", "gitk"));
        assert!(!bash_command_matches("git:*", "git log > /etc/x"));
    }
}
