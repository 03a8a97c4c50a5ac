//! The syntax of a permission rule, as Claude Code writes it: `Tool` or
//! `Tool(specifier)` — `Read`, `Bash(git log:*)`, `Edit(./src/**)`,
//! `WebFetch(domain:example.com)`, `mcp__github`, `mcp__github__*`.
//!
//! [`PermissionRule::parse`] reads one rule strictly: a rule that does not
//! have this shape is a [`RuleError`] with the position (0-based char) of
//! the fault, never a rule that means something broader. Specifiers are
//! checked by kind here (a `Bash` specifier must be a command pattern, a
//! `WebFetch` one `domain:HOST`, a path one must not be empty); what they
//! match is decided when the rule is compiled against a project root
//! (`crate::matcher`). Lists from the CLI (`--allowedTools "Bash(git log) Read,Edit"`)
//! are split by [`parse_rule_list`].

use std::fmt;

use orbit_shell::CommandPattern;
use thiserror::Error;

/// Why a rule text is not a rule; `position` is the 0-based char offset
/// of the fault in the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid permission rule `{rule}` at char {position}: {message}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// 0-based char offset of the fault.
    pub position: usize,
    /// What is wrong.
    pub message: String,
}

/// What the specifier of a rule names, by the tool the rule is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// No specifier (or `()` / `(*)`): the whole tool.
    Whole,
    /// A command pattern, matched against the command a call runs
    /// (`Bash(git log:*)`, and any tool that declares a command).
    Command(CommandPattern),
    /// A gitignore-style path pattern of a `Read` rule: files a call reads.
    ReadPath(String),
    /// A gitignore-style path pattern of an `Edit`/`Write` rule: files a
    /// call writes.
    WritePath(String),
    /// `domain:HOST` of a `WebFetch` rule (`*.HOST` for subdomains).
    Domain(String),
    /// A specifier of a tool orbit has no grammar for (`Skill(deploy)`):
    /// an allow rule matches a call whose subject equals it; a deny or ask
    /// rule covers the whole tool (the safe side).
    Opaque(String),
}

/// One parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// The rule as written (trimmed).
    pub text: String,
    /// The tool (or MCP server) it names.
    pub tool_name: String,
    /// What it covers of that tool.
    pub specifier: Specifier,
}

/// Tools whose specifier is a path pattern of files read.
const READ_PATH_TOOLS: &[&str] = &["Read"];
/// Tools whose specifier is a path pattern of files written (Edit rules
/// cover every file-writing tool).
const WRITE_PATH_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// Tools whose specifier must be a command pattern.
const COMMAND_TOOLS: &[&str] = &["Bash"];
/// Tools whose specifier is `domain:HOST`.
const DOMAIN_TOOLS: &[&str] = &["WebFetch"];

fn error(rule: &str, position: usize, message: impl Into<String>) -> RuleError {
    RuleError {
        rule: rule.to_string(),
        position,
        message: message.into(),
    }
}

impl PermissionRule {
    /// Parses one rule (see the module docs); surrounding whitespace is ignored.
    pub fn parse(raw: &str) -> Result<Self, RuleError> {
        let text = raw.trim();
        if text.is_empty() {
            return Err(error(text, 0, "empty rule"));
        }
        let (name, inner) = match text.find('(') {
            None => {
                if let Some(pos) = text.find(')') {
                    return Err(error(text, char_pos(text, pos), "`)` without `(`"));
                }
                (text, None)
            }
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(error(
                        text,
                        text.chars().count(),
                        "expected `)` at the end of the rule",
                    ));
                };
                (&text[..open], Some(inner))
            }
        };
        check_tool_name(text, name)?;
        let specifier = match inner.map(str::trim) {
            None | Some("") | Some("*") => Specifier::Whole,
            Some(spec) => parse_specifier(text, name, spec)?,
        };
        Ok(Self {
            text: text.to_string(),
            tool_name: name.to_string(),
            specifier,
        })
    }

    /// Whether the rule names `tool_name`: the same name, or an MCP server
    /// rule (`mcp__server`, `mcp__server__*`) and one of its tools.
    pub fn names_tool(&self, tool_name: &str) -> bool {
        if self.tool_name == tool_name {
            return true;
        }
        let server = self
            .tool_name
            .strip_suffix("__*")
            .unwrap_or(&self.tool_name);
        server.starts_with("mcp__")
            && server.matches("__").count() == 1
            && tool_name
                .strip_prefix(server)
                .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2)
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn char_pos(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

/// A tool name: letters, digits, `_`, `-`, `.`; an MCP rule may end in `__*`.
fn check_tool_name(text: &str, name: &str) -> Result<(), RuleError> {
    if name.trim().is_empty() {
        return Err(error(text, 0, "missing tool name"));
    }
    let body = name.strip_suffix("__*").filter(|s| s.starts_with("mcp__"));
    let body = body.unwrap_or(name);
    match body
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some((at, c)) => Err(error(
            text,
            char_pos(text, at),
            format!("`{c}` cannot appear in a tool name"),
        )),
        None => Ok(()),
    }
}

fn parse_specifier(text: &str, name: &str, spec: &str) -> Result<Specifier, RuleError> {
    let at = name.chars().count() + 1;
    if DOMAIN_TOOLS.contains(&name) {
        let Some(host) = spec.strip_prefix("domain:").map(str::trim) else {
            return Err(error(text, at, "expected `domain:HOST`"));
        };
        return check_host(host)
            .map(|()| Specifier::Domain(host.to_ascii_lowercase()))
            .map_err(|message| error(text, at + 7, message));
    }
    if READ_PATH_TOOLS.contains(&name) {
        return Ok(Specifier::ReadPath(spec.to_string()));
    }
    if WRITE_PATH_TOOLS.contains(&name) {
        return Ok(Specifier::WritePath(spec.to_string()));
    }
    match CommandPattern::parse(spec) {
        Some(pattern) => Ok(Specifier::Command(pattern)),
        None if COMMAND_TOOLS.contains(&name) => Err(error(
            text,
            at,
            "not a command pattern (an unquoted operator, expansion or unterminated quote)",
        )),
        None => Ok(Specifier::Opaque(spec.to_string())),
    }
}

/// A host name, optionally `*.`-prefixed: labels of letters, digits, `-`,
/// `_`; or an IP address.
fn check_host(host: &str) -> Result<(), String> {
    let bare = host.strip_prefix("*.").unwrap_or(host);
    if bare.parse::<std::net::IpAddr>().is_ok() {
        return Ok(());
    }
    let bare = bare.strip_suffix('.').unwrap_or(bare);
    if bare.is_empty() {
        return Err("empty host".into());
    }
    let valid = bare.split('.').all(|label| {
        !label.is_empty()
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{host}` is not a host name (write `*.example.com` for subdomains)"
        ))
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
mod tests;
