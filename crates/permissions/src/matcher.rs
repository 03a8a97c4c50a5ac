//! Rules compiled for matching, and what they match in a call.
//!
//! A [`crate::PermissionRule`] is compiled once against the project root
//! and the home directory ([`CompiledRule::compile`]): a path specifier
//! becomes a glob over absolute paths, gitignore-style:
//!
//! | written | means |
//! |---|---|
//! | `//etc/hosts` | the absolute path `/etc/hosts` |
//! | `~/.ssh/**` | under the home directory |
//! | `/src/**`, `./src/**` | under the project root |
//! | `src/*.rs` (a `/` inside) | relative to the project root |
//! | `.env`, `*.pem` (no `/`) | that name at any depth under the root |
//! | `build/` (trailing `/`) | that directory's contents |
//! | `secrets/**` | the directory and everything below it |
//!
//! A pattern that matches a directory covers everything below it; `*`
//! stays within one component, `**` spans any. A call is then matched
//! through a [`CallView`]: its facts with paths resolved (lexical and
//! canonical) and its command parsed once. Allow rules must match all of
//! what the call does; deny and ask rules match when any part matches,
//! and answer [`Match::Unsure`] when a command cannot be analysed.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use orbit_shell::{ArgumentCode, CommandPattern, SimpleCommand, runs_its_arguments};
use orbit_tool::CallFacts;

use crate::rule::{PermissionRule, RuleError, Specifier};
use crate::workspace::{canonical_target, lexical};

/// Whether a deny or ask rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// It applies.
    Yes,
    /// It does not.
    No,
    /// It cannot be told (a command that does not parse, a substitution, a
    /// wrapper that runs its arguments): the call must be confirmed.
    Unsure,
}

/// A path of a call: as written (folded lexically) and where it points.
#[derive(Debug, Clone)]
pub(crate) struct CallPath {
    pub(crate) lexical: PathBuf,
    pub(crate) canonical: PathBuf,
}

/// The command of a call, parsed once.
#[derive(Debug, Clone)]
pub(crate) struct CommandView {
    /// The simple commands, or None when the command is more than a list of
    /// simple commands or does not parse.
    pub(crate) commands: Option<Vec<SimpleCommand>>,
    /// A command or process substitution appears somewhere.
    pub(crate) has_substitution: bool,
}

impl CommandView {
    fn of(command: &str) -> Self {
        match orbit_shell::parse(command) {
            Ok(script) => Self {
                commands: script.simple_commands().filter(|c| !c.is_empty()),
                has_substitution: script.has_substitution(),
            },
            Err(_) => Self {
                commands: None,
                has_substitution: false,
            },
        }
    }
}

/// A call as rules see it.
#[derive(Debug, Clone)]
pub(crate) struct CallView<'a> {
    pub(crate) tool_name: &'a str,
    pub(crate) facts: &'a CallFacts,
    pub(crate) reads: Vec<CallPath>,
    pub(crate) writes: Vec<CallPath>,
    /// What it may print without naming it (`CallFacts::may_read`).
    pub(crate) may_read: Vec<CallPath>,
    pub(crate) host: Option<String>,
    pub(crate) command: Option<CommandView>,
}

impl<'a> CallView<'a> {
    /// Resolves the call's paths against `base` and parses its command.
    pub(crate) fn new(tool_name: &'a str, facts: &'a CallFacts, base: &Path) -> Self {
        let resolve = |paths: &[PathBuf]| -> Vec<CallPath> {
            paths
                .iter()
                .map(|p| CallPath {
                    lexical: lexical(p, base),
                    canonical: canonical_target(p, base),
                })
                .collect()
        };
        Self {
            tool_name,
            facts,
            reads: resolve(&facts.reads),
            writes: resolve(&facts.writes),
            may_read: resolve(&facts.may_read),
            host: facts.network.as_deref().and_then(url_host),
            command: facts.command.as_deref().map(CommandView::of),
        }
    }
}

/// A rule ready to match.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    pub(crate) rule: PermissionRule,
    paths: Option<GlobSet>,
    /// Covers every call (a deny or ask rule whose tool name is unreadable).
    everything: bool,
}

impl CompiledRule {
    /// Compiles `rule`: path specifiers against `root` and `home`.
    pub(crate) fn compile(
        rule: PermissionRule,
        root: &Path,
        home: Option<&Path>,
    ) -> Result<Self, RuleError> {
        let paths = match &rule.specifier {
            Specifier::ReadPath(spec) | Specifier::WritePath(spec) => {
                Some(path_globs(spec, root, home).map_err(|message| RuleError {
                    rule: rule.text.clone(),
                    position: rule.tool_name.chars().count() + 1,
                    message,
                })?)
            }
            _ => None,
        };
        Ok(Self {
            rule,
            paths,
            everything: false,
        })
    }

    /// A whole-tool rule; one with no tool name covers every call.
    pub(crate) fn everything_or(rule: PermissionRule) -> Self {
        Self {
            everything: rule.tool_name.is_empty(),
            rule,
            paths: None,
        }
    }

    /// Whether this allow rule covers all the call does.
    pub(crate) fn allows(&self, call: &CallView<'_>) -> bool {
        let only_local = call.facts.command.is_none() && call.facts.network.is_none();
        match &self.rule.specifier {
            Specifier::Whole => self.rule.names_tool(call.tool_name),
            Specifier::Command(pattern) => {
                self.rule.names_tool(call.tool_name)
                    && call
                        .command
                        .as_ref()
                        .is_some_and(|view| command_allowed(pattern, view))
            }
            Specifier::ReadPath(_) => {
                only_local
                    && call.writes.is_empty()
                    && !call.reads.is_empty()
                    && call.reads.iter().all(|p| self.covers_path(&p.canonical))
            }
            Specifier::WritePath(_) => {
                only_local
                    && !call.writes.is_empty()
                    && call.writes.iter().all(|p| self.covers_path(&p.canonical))
            }
            Specifier::Domain(domain) => {
                call.facts.command.is_none()
                    && call
                        .host
                        .as_deref()
                        .is_some_and(|h| host_matches(domain, h))
            }
            Specifier::Opaque(spec) => {
                self.rule.names_tool(call.tool_name) && call.facts.subject == *spec
            }
        }
    }

    /// Whether this allow rule lifts the workspace boundary for `path`
    /// (canonical) read (`write == false`) or written.
    pub(crate) fn allows_path(&self, path: &Path, write: bool) -> bool {
        match &self.rule.specifier {
            Specifier::ReadPath(_) if !write => self.covers_path(path),
            Specifier::WritePath(_) if write => self.covers_path(path),
            _ => false,
        }
    }

    /// Whether this deny or ask rule applies to any part of the call.
    pub(crate) fn restricts(&self, call: &CallView<'_>) -> Match {
        let yes = |b: bool| if b { Match::Yes } else { Match::No };
        if self.everything {
            return Match::Yes;
        }
        match &self.rule.specifier {
            Specifier::Whole | Specifier::Opaque(_) => yes(self.rule.names_tool(call.tool_name)),
            Specifier::Command(pattern) => {
                if !self.rule.names_tool(call.tool_name) {
                    return Match::No;
                }
                match &call.command {
                    Some(view) => command_restricted(pattern, view),
                    None => Match::No,
                }
            }
            Specifier::ReadPath(_) => {
                if call.reads.iter().any(|p| self.covers_call_path(p)) {
                    Match::Yes
                } else if call.may_read.iter().any(|p| self.covers_call_path(p)) {
                    // A committed copy the command may print: a person decides.
                    Match::Unsure
                } else {
                    Match::No
                }
            }
            Specifier::WritePath(_) => yes(call.writes.iter().any(|p| self.covers_call_path(p))),
            Specifier::Domain(domain) => match (&call.facts.network, &call.host) {
                (None, _) => Match::No,
                (Some(_), Some(host)) => yes(host_matches(domain, host)),
                (Some(_), None) => Match::Unsure,
            },
        }
    }

    fn covers_call_path(&self, path: &CallPath) -> bool {
        self.covers_path(&path.lexical) || self.covers_path(&path.canonical)
    }

    pub(crate) fn covers_path(&self, path: &Path) -> bool {
        self.paths.as_ref().is_some_and(|set| set.is_match(path))
    }
}

/// Whether every simple command of the call's command is allowed by one
/// of `rules` (command rules naming the tool) or — when
/// `read_only_parts_count` — is read-only on its own (no assignment, no
/// redirection to a file): `git log | head` under `Bash(git log:*)`,
/// `cargo test && git status` under two rules. No substitution anywhere,
/// and the command must be analysable.
pub(crate) fn parts_allowed<'r>(
    rules: impl Iterator<Item = &'r CompiledRule>,
    call: &CallView<'_>,
    read_only_parts_count: bool,
) -> bool {
    let Some(view) = &call.command else {
        return false;
    };
    let Some(commands) = view.commands.as_ref().filter(|_| !view.has_substitution) else {
        return false;
    };
    let patterns: Vec<&CommandPattern> = rules
        .filter(|r| r.rule.names_tool(call.tool_name))
        .filter_map(|r| match &r.rule.specifier {
            Specifier::Command(pattern) => Some(pattern),
            _ => None,
        })
        .collect();
    !patterns.is_empty()
        && commands.iter().all(|command| {
            patterns.iter().any(|p| p.matches_simple(command))
                || (read_only_parts_count && part_is_read_only(command))
        })
}

pub(crate) fn part_is_read_only(command: &SimpleCommand) -> bool {
    command.assignments.is_empty()
        && !command.has_substitution
        && command.redirects.iter().all(|r| r.touches_no_file())
        && orbit_shell::is_read_only(&command.text)
}

/// Every simple command matches (allow): no substitution, analysable.
fn command_allowed(pattern: &CommandPattern, view: &CommandView) -> bool {
    !view.has_substitution
        && view
            .commands
            .as_ref()
            .is_some_and(|cmds| cmds.iter().all(|c| pattern.matches_simple(c)))
}

/// Any simple command matches (deny/ask), looking through assignments,
/// redirections and a path before the name, and into the command text a
/// builtin runs (`trap 'CMD' EXIT`, `mapfile -C CMD`, an alias's value);
/// what cannot be seen (a substitution, a wrapper that runs its arguments,
/// `hash -p`) is [`Match::Unsure`].
fn command_restricted(pattern: &CommandPattern, view: &CommandView) -> Match {
    let Some(commands) = &view.commands else {
        return Match::Unsure;
    };
    let mut unsure = view.has_substitution;
    for command in commands {
        match command.argument_code() {
            ArgumentCode::Nothing => {}
            ArgumentCode::Unknown => unsure = true,
            ArgumentCode::Scripts(scripts) => {
                for script in scripts {
                    match command_restricted(pattern, &CommandView::of(&script)) {
                        Match::Yes => return Match::Yes,
                        Match::Unsure => unsure = true,
                        Match::No => {}
                    }
                }
            }
        }
        let values: Option<Vec<&str>> = command.words.iter().map(|w| w.value.as_deref()).collect();
        let Some(mut values) = values else {
            // A word the shell computes: the pattern may match what it becomes.
            unsure = true;
            continue;
        };
        if pattern.matches_words(&values) {
            return Match::Yes;
        }
        if let Some(name) = values.first().copied() {
            let base = name.rsplit('/').next().unwrap_or(name);
            if base != name {
                values[0] = base;
                if pattern.matches_words(&values) {
                    return Match::Yes;
                }
            }
            unsure |= runs_its_arguments(base);
        }
    }
    if unsure { Match::Unsure } else { Match::No }
}

/// The host of a URL, lower-cased, without port, user info or a final dot.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let rest = url.trim();
    let rest = match rest.find("://") {
        Some(i) => &rest[i + 3..],
        None => rest,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// `example.com` matches that host only; `*.example.com` its subdomains
/// (not the apex).
fn host_matches(domain: &str, host: &str) -> bool {
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    match domain.strip_prefix("*.") {
        Some(apex) => host
            .strip_suffix(apex)
            .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        None => host == domain,
    }
}

/// The globs of a path specifier (see the module docs): the pattern and
/// everything below what it matches.
fn path_globs(spec: &str, root: &Path, home: Option<&Path>) -> Result<GlobSet, String> {
    let (base, rel): (&Path, String) = if let Some(rest) = spec.strip_prefix("//") {
        (Path::new("/"), rest.to_string())
    } else if spec == "~" || spec.starts_with("~/") {
        let home = home.ok_or("`~` needs a home directory (HOME is not set)")?;
        (home, spec.get(2..).unwrap_or("").to_string())
    } else if let Some(rest) = spec.strip_prefix("./") {
        (root, rest.to_string())
    } else if let Some(rest) = spec.strip_prefix('/') {
        (root, rest.to_string())
    } else if spec.trim_end_matches('/').contains('/') {
        (root, spec.to_string())
    } else {
        (root, format!("**/{spec}"))
    };
    let rel = rel.trim_end_matches('/');
    let mut segments: Vec<String> = base
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(globset::escape(&n.to_string_lossy())),
            _ => None,
        })
        .collect();
    for segment in rel.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s.to_string()),
        }
    }
    let text = format!("/{}", segments.join("/"));
    let mut set = GlobSetBuilder::new();
    // `dir/**` covers `dir` itself too: reading the directory reads what it holds.
    let mut globs = vec![text.clone(), format!("{}/**", text.trim_end_matches('/'))];
    if let Some(dir) = text.strip_suffix("/**").filter(|d| !d.is_empty()) {
        globs.push(dir.to_string());
    }
    for glob in globs {
        let glob = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("not a path pattern: {}", e.kind()))?;
        set.add(glob);
    }
    set.build()
        .map_err(|e| format!("not a path pattern: {}", e.kind()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
