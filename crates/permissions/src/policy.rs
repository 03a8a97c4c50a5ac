//! [`Policy`]: a session's permission settings compiled once, and the one
//! decision procedure over a call's facts.
//!
//! Order, first answer wins:
//! 1. deny rules — every mode, `bypassPermissions` included; a command
//!    rule that cannot be told to match or not (a substitution, a wrapper
//!    such as `xargs`, `hash -p`) asks instead, and so does a Read rule
//!    covering a file the call may print without naming it (`may_read`:
//!    a git command and a denied file the repository tracks);
//! 2. ask rules — every mode;
//! 3. `bypassPermissions` allows;
//! 4. plan mode denies what is not read-only by its facts;
//! 5. workspace boundaries: a path read or written outside the project
//!    root and the added directories asks unless a `Read(…)`/`Edit(…)`
//!    allow rule covers that path; a write to a protected path (git
//!    internals, orbit's and Claude Code's settings, `.mcp.json`, shell rc
//!    files, `.env*`) always asks;
//! 6. `acceptEdits` allows calls that only write files; local reads are
//!    allowed;
//! 7. allow rules (the configured ones, then "always allow" answers of
//!    this session); a compound command is allowed when each of its simple
//!    commands is allowed by some rule or is read-only on its own — the
//!    latter not for a call outside the OS sandbox (`unsandboxed`: every
//!    part needs a rule, or a person) nor one that may run a program its
//!    words do not show (`hidden_programs`);
//! 8. otherwise ask.
//!
//! In `dontAsk` mode every ask of steps 1–8 is a deny (no hook, prompt or
//! SDK callback is asked), as Claude Code's `dontAsk`.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use orbit_tool::texts::permissions as texts;

use crate::matcher::{CallView, CompiledRule, Match, parts_allowed};
use crate::rule::{PermissionRule, RuleError, Specifier};
use crate::workspace::{is_within, protected_write};
use crate::{PermissionConfig, PermissionDecision, PermissionMode, PermissionRequest};

/// The compiled permission settings of a session.
#[derive(Debug)]
pub struct Policy {
    /// Swappable mid-session (an SDK's `set_permission_mode`).
    mode: RwLock<PermissionMode>,
    headless: bool,
    deny: Vec<CompiledRule>,
    ask: Vec<CompiledRule>,
    allow: Vec<CompiledRule>,
    session_allow: RwLock<Vec<CompiledRule>>,
    root: PathBuf,
    home: Option<PathBuf>,
    errors: Vec<RuleError>,
}

impl Policy {
    /// Compiles `config` for a session whose project root is `root`
    /// (canonical; relative path rules are anchored there). A rule that
    /// does not compile never widens what is allowed: a bad allow rule is
    /// dropped, a bad deny or ask rule covers the whole tool it names (or
    /// every tool when no name can be read). Such rules are listed by
    /// [`Policy::errors`]; use [`Policy::check`] to refuse them up front.
    pub fn new(config: &PermissionConfig, root: &Path) -> Self {
        let home = config.home.clone();
        let mut errors = Vec::new();
        let mut compile = |list: &[String], restrictive: bool| -> Vec<CompiledRule> {
            let mut out = Vec::new();
            for text in list {
                match compile_one(text, root, home.as_deref()) {
                    Ok(rule) => out.push(rule),
                    Err(err) => {
                        if restrictive {
                            out.push(fallback_rule(text));
                        }
                        errors.push(err);
                    }
                }
            }
            out
        };
        let deny = compile(&config.disallowed_tools, true);
        let ask = compile(&config.ask_tools, true);
        let allow = compile(&config.allowed_tools, false);
        Self {
            mode: RwLock::new(config.mode),
            headless: config.headless,
            deny,
            ask,
            allow,
            session_allow: RwLock::new(Vec::new()),
            root: root.to_path_buf(),
            home,
            errors,
        }
    }

    /// The first rule of `config` that does not compile for `root`.
    pub fn check(config: &PermissionConfig, root: &Path) -> Result<(), RuleError> {
        match Self::new(config, root).errors.into_iter().next() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Rules that did not compile (see [`Policy::new`]).
    pub fn errors(&self) -> &[RuleError] {
        &self.errors
    }

    /// The permission mode.
    pub fn mode(&self) -> PermissionMode {
        match self.mode.read() {
            Ok(mode) => *mode,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    /// Switches the mode for the rest of the session; rules stay as they are.
    pub fn set_mode(&self, mode: PermissionMode) {
        match self.mode.write() {
            Ok(mut slot) => *slot = mode,
            Err(poisoned) => *poisoned.into_inner() = mode,
        }
    }

    /// Adds an allow rule for the rest of the session (an "always allow"
    /// answer).
    pub fn add_session_rule(&self, text: &str) -> Result<(), RuleError> {
        let rule = compile_one(text, &self.root, self.home.as_deref())?;
        match self.session_allow.write() {
            Ok(mut rules) => rules.push(rule),
            Err(poisoned) => poisoned.into_inner().push(rule),
        }
        Ok(())
    }

    /// Whether a read deny rule covers `path` (a file a search would list):
    /// what Grep, Glob and LS leave out of their walks.
    pub fn is_read_denied(&self, path: &Path) -> bool {
        self.deny
            .iter()
            .any(|r| matches!(r.rule.specifier, Specifier::ReadPath(_)) && r.covers_path(path))
    }

    /// Whether any read deny rule exists (else nothing is read-denied and
    /// a read filter has nothing to do).
    pub fn has_read_deny_rules(&self) -> bool {
        self.deny
            .iter()
            .any(|r| matches!(r.rule.specifier, Specifier::ReadPath(_)))
    }

    /// [`Policy::decide`], with an ask turned into a deny when headless.
    pub fn can_use_tool(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        match self.decide(request) {
            PermissionDecision::Ask { reason } if self.headless => {
                PermissionDecision::Deny { reason }
            }
            other => other,
        }
    }

    /// The decision for one call (see the module docs for the order).
    pub fn decide(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        match self.decide_asking(request) {
            PermissionDecision::Ask { reason } if self.mode() == PermissionMode::DontAsk => {
                deny(dont_ask(request.tool_name, &reason))
            }
            other => other,
        }
    }

    /// [`Policy::decide`] before `dontAsk` turns an ask into a deny.
    fn decide_asking(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let name = request.tool_name;
        let facts = request.facts;
        let call = CallView::new(name, facts, request.cwd);
        let mut unsure = None;
        for rule in &self.deny {
            match rule.restricts(&call) {
                Match::Yes => {
                    return deny(texts::denied_by_rule(name, &rule.rule.text));
                }
                Match::Unsure => unsure = unsure.or(Some(rule)),
                Match::No => {}
            }
        }
        if let Some(rule) = unsure {
            return ask(texts::deny_rule_unsure(name, &rule.rule.text));
        }
        if let Some(rule) = self.ask.iter().find(|r| r.restricts(&call) != Match::No) {
            return ask(texts::ask_rule(name, &rule.rule.text));
        }
        if facts.asks_user {
            return ask(texts::asks_user(name));
        }
        let local_read_only = facts.read_only && facts.network.is_none();
        match self.mode() {
            PermissionMode::BypassPermissions => return PermissionDecision::Allow,
            PermissionMode::Plan if !local_read_only && !facts.read_only => {
                return deny(texts::denied_in_plan_mode(name));
            }
            _ => {}
        }
        let session = match self.session_allow.read() {
            Ok(rules) => rules.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        let allow_rules = || self.allow.iter().chain(session.iter());
        for (paths, write) in [(&call.writes, true), (&call.reads, false)] {
            for path in paths {
                let target = &path.canonical;
                if write && let Some(why) = protected_write(target, request.roots) {
                    return ask(texts::protected_path(name, target, why));
                }
                if !is_within(target, request.roots)
                    && !allow_rules().any(|r| r.allows_path(target, write))
                {
                    return ask(texts::outside_workspace(name, target, write));
                }
            }
        }
        // A part read-only by the shell analysis stands in for a rule only
        // inside the sandbox and when no hidden program may run.
        let read_only_parts_count = !facts.unsandboxed && !facts.hidden_programs;
        let allowed_by_rule = || {
            allow_rules().any(|r| r.allows(&call))
                || parts_allowed(allow_rules(), &call, read_only_parts_count)
        };
        // Outside the OS sandbox no mode auto-approves: rules that match
        // every part of the command, or a person.
        if facts.unsandboxed {
            return if allowed_by_rule() {
                PermissionDecision::Allow
            } else {
                ask(texts::unsandboxed(name))
            };
        }
        // A file tool's edit, or a shell command that only manages files
        // (Claude Code's acceptEdits runs mkdir, touch, rm, mv, cp, sed -i
        // without asking); the paths were checked above.
        let file_edit = facts.network.is_none()
            && ((!facts.writes.is_empty() && facts.command.is_none()) || facts.file_management);
        match self.mode() {
            PermissionMode::Plan if local_read_only => return PermissionDecision::Allow,
            PermissionMode::Plan => {}
            PermissionMode::AcceptEdits if file_edit => return PermissionDecision::Allow,
            _ if local_read_only => return PermissionDecision::Allow,
            _ => {}
        }
        if allowed_by_rule() {
            return PermissionDecision::Allow;
        }
        ask(texts::not_granted(name))
    }
}

fn deny(reason: String) -> PermissionDecision {
    PermissionDecision::Deny { reason }
}

/// A `dontAsk` denial: Claude Code's sentence, then why it would have asked.
fn dont_ask(name: &str, why: &str) -> String {
    format!(
        "Permission to use {name} has been denied because orbit is running in don't ask mode. {why}"
    )
}

fn ask(reason: String) -> PermissionDecision {
    PermissionDecision::Ask { reason }
}

fn compile_one(text: &str, root: &Path, home: Option<&Path>) -> Result<CompiledRule, RuleError> {
    CompiledRule::compile(PermissionRule::parse(text)?, root, home)
}

/// What a deny or ask rule that does not compile covers: the whole tool
/// named before its `(`, or every tool when no name can be read.
fn fallback_rule(text: &str) -> CompiledRule {
    let name = text.trim().split('(').next().unwrap_or("").trim();
    let whole = PermissionRule::parse(name)
        .ok()
        .filter(|r| r.specifier == Specifier::Whole);
    let rule = whole.unwrap_or(PermissionRule {
        text: text.trim().to_string(),
        tool_name: String::new(),
        specifier: Specifier::Whole,
    });
    CompiledRule::everything_or(rule)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
