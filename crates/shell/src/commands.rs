//! The one walk over a script's tree ([`parts`]): its simple commands
//! ([`SimpleCommand`]: words, assignment prefixes, redirections) and tests,
//! in source order, and whether anything else appeared; and the name of the
//! command a script's exit status comes from.

use tree_sitter::{Node, Tree};

use crate::expansions::test_is_inert;
use crate::words::{Arg, SUBSTITUTION_KINDS, Walker, contains_kind, is_redirect, named_children};

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// As written (quotes and backslashes included).
    pub text: String,
    /// What the shell passes (quotes removed, backslashes resolved), when
    /// that is static; `None` for a word with an expansion (`$x`, `${x}`,
    /// `$((…))`, a substitution) or an unquoted glob or brace (`*.rs`,
    /// `{a,b}`), whose value is unknown.
    pub value: Option<String>,
}

/// A redirection of a simple command, or of a group (`( … ) > f`) the
/// command runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// Duplicates or closes a descriptor: `2>&1`, `>&2`, `<&0`, `>&-`.
    Descriptor,
    /// Writes to a file: `>`, `>>`, `&>`, `&>>`, `>|`, `>& FILE`, `<>`.
    Output(Word),
    /// Reads stdin from a file: `< f`.
    Input(Word),
    /// Gives stdin inline: a heredoc (`<<EOF`) or here-string (`<<< text`).
    Inline,
    /// Any other redirection.
    Other,
}

impl Redirect {
    /// True for a redirection that touches no file: a descriptor
    /// duplication, inline input, or output to `/dev/null`.
    pub fn touches_no_file(&self) -> bool {
        match self {
            Redirect::Descriptor | Redirect::Inline => true,
            Redirect::Output(target) => target.value.as_deref() == Some("/dev/null"),
            Redirect::Input(_) | Redirect::Other => false,
        }
    }
}

/// One simple command: a name, its arguments, and what the shell does
/// around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Its source text: assignments, words and the redirections written
    /// among them (one written after the last word is in `redirects` only).
    pub text: String,
    /// Assignment prefixes, as written (`LC_ALL=C` in `LC_ALL=C sort f`).
    pub assignments: Vec<String>,
    /// The command name, then its arguments.
    pub words: Vec<Word>,
    /// Its redirections, then those of every group it runs in.
    pub redirects: Vec<Redirect>,
    /// A command or process substitution appears in it (in a word, an
    /// assignment or a redirection).
    pub has_substitution: bool,
    /// A word's value is unknown (an expansion or glob, see [`Word::value`]).
    pub has_expansion: bool,
}

impl SimpleCommand {
    /// The command name as the shell sees it, when static.
    pub fn name(&self) -> Option<&str> {
        self.words.first()?.value.as_deref()
    }
}

/// The one walk over a parsed tree: every part of the script in source
/// order, and whether anything else appeared. Every question the crate
/// answers (read-only, rules, paths, last command) reads this, so the tree's
/// statements and redirections are walked once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parts {
    /// The simple commands and tests, in source order.
    pub(crate) parts: Vec<Part>,
    /// False when a construct other than a list of simple commands and
    /// tests appears (`if`, loops, functions, `(( … ))`, a bare assignment,
    /// `export`, …): then `parts` does not describe the whole script.
    pub(crate) complete: bool,
}

/// One part of a script.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    /// A simple command.
    Command(SimpleCommand),
    /// A `[ … ]` or `[[ … ]]` test with the redirections around it.
    Test {
        /// Its operands cannot make bash evaluate code (see
        /// `expansions::test_is_inert`).
        inert: bool,
        /// Its redirections, then those of every group it runs in.
        redirects: Vec<Redirect>,
    },
}

/// Walks `tree` once (see [`Parts`]).
pub(crate) fn parts(source: &str, tree: &Tree) -> Parts {
    let walker = Walker::new(source);
    let mut parts = Vec::new();
    let complete = walker.collect(tree.root_node(), &[], &mut parts);
    Parts { parts, complete }
}

/// Every `command` node of `tree`, wherever it is (inside `if`, loops,
/// functions, substitutions), as a [`SimpleCommand`] without the
/// redirections of the groups around it; a node the walk cannot read as
/// one (a heredoc carrying more statements) is left out.
pub(crate) fn all_commands(source: &str, tree: &Tree) -> Vec<SimpleCommand> {
    let walker = Walker::new(source);
    let mut out = Vec::new();
    crate::words::visit(tree.root_node(), &mut |node| {
        if node.kind() == "command"
            && let Some(command) = walker.simple_command(node, &[])
        {
            out.push(command);
        }
    });
    out
}

/// See [`crate::Script::last_command_name`].
pub(crate) fn last_command_name(source: &str, tree: &Tree) -> Option<String> {
    Walker::new(source).last_command_name(tree.root_node())
}

impl Walker<'_> {
    /// Adds the parts of `node` to `out`, each with `inherited`
    /// redirections; false (and the walk stops) when `node` holds anything
    /// else.
    fn collect(&self, node: Node<'_>, inherited: &[Redirect], out: &mut Vec<Part>) -> bool {
        match node.kind() {
            "program" | "list" | "pipeline" | "subshell" | "compound_statement"
            | "negated_command" => named_children(node)
                .into_iter()
                .all(|c| self.collect(c, inherited, out)),
            "redirected_statement" => {
                let Some(body) = node.child_by_field_name("body") else {
                    return false;
                };
                let mut redirects = Vec::new();
                let mut trailing = Vec::new();
                for child in named_children(node) {
                    if child.id() == body.id() {
                        continue;
                    }
                    if !is_redirect(child.kind()) {
                        return false;
                    }
                    self.redirect_effects(child, &mut redirects, &mut trailing);
                }
                redirects.extend_from_slice(inherited);
                // `cat <<EOF | cmd`: the rest of the line hangs off the heredoc.
                self.collect(body, &redirects, out)
                    && trailing
                        .into_iter()
                        .all(|c| self.collect(c, inherited, out))
            }
            "command" => match self.simple_command(node, inherited) {
                Some(command) => {
                    out.push(Part::Command(command));
                    true
                }
                None => false,
            },
            "test_command" => {
                out.push(Part::Test {
                    inert: test_is_inert(self, node),
                    redirects: inherited.to_vec(),
                });
                true
            }
            "comment" => true,
            _ => false,
        }
    }

    fn simple_command(&self, node: Node<'_>, inherited: &[Redirect]) -> Option<SimpleCommand> {
        let mut assignments = Vec::new();
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if !child.is_named() {
                continue;
            }
            match (node.field_name_for_child(i as u32), child.kind()) {
                (Some("name" | "argument"), _) => words.push(self.word(child)),
                (_, "variable_assignment") => assignments.push(self.text(child).to_string()),
                (_, k) if is_redirect(k) => {
                    let mut trailing = Vec::new();
                    self.redirect_effects(child, &mut redirects, &mut trailing);
                    if !trailing.is_empty() {
                        return None;
                    }
                }
                (_, "comment") => {}
                _ => return None,
            }
        }
        if words.is_empty() {
            return None;
        }
        redirects.extend_from_slice(inherited);
        Some(SimpleCommand {
            text: self.text(node).to_string(),
            has_expansion: words.iter().any(|w| w.value.is_none()),
            has_substitution: contains_kind(node, SUBSTITUTION_KINDS),
            assignments,
            words,
            redirects,
        })
    }

    fn word(&self, node: Node<'_>) -> Word {
        Word {
            text: self.text(node).to_string(),
            value: match self.arg(node) {
                Arg::Literal(s) => Some(s),
                Arg::Opaque => None,
            },
        }
    }

    /// Adds what a redirection node does to `redirects`; statements a
    /// heredoc carries (`cat <<EOF | cmd`) go to `trailing`.
    fn redirect_effects<'t>(
        &self,
        node: Node<'t>,
        redirects: &mut Vec<Redirect>,
        trailing: &mut Vec<Node<'t>>,
    ) {
        match node.kind() {
            "file_redirect" => redirects.push(self.file_redirect_effect(node)),
            "herestring_redirect" => redirects.push(Redirect::Inline),
            "heredoc_redirect" => {
                redirects.push(Redirect::Inline);
                for child in named_children(node) {
                    match child.kind() {
                        "heredoc_start" | "heredoc_body" | "heredoc_end" => {}
                        // `cat <<EOF > f`: the file redirect is the command's.
                        "file_redirect" => redirects.push(self.file_redirect_effect(child)),
                        _ => trailing.push(child),
                    }
                }
            }
            _ => redirects.push(Redirect::Other),
        }
    }

    fn file_redirect_effect(&self, node: Node<'_>) -> Redirect {
        let mut op = "";
        let mut destinations = Vec::new();
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if !child.is_named() {
                op = child.kind();
            } else if node.field_name_for_child(i as u32) == Some("destination") {
                destinations.push(self.word(child));
            }
        }
        let Some(dest) = destinations.pop() else {
            return if matches!(op, ">&-" | "<&-") {
                Redirect::Descriptor
            } else {
                Redirect::Other
            };
        };
        if !destinations.is_empty() {
            return Redirect::Other;
        }
        let is_descriptor = dest
            .value
            .as_deref()
            .is_some_and(|d| d == "-" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())));
        match op {
            ">&" | "<&" if is_descriptor => Redirect::Descriptor,
            "<" => Redirect::Input(dest),
            ">" | ">>" | "&>" | "&>>" | ">|" | ">&" | "<>" => Redirect::Output(dest),
            _ => Redirect::Other,
        }
    }

    /// The name of the command whose exit status `node` ends with, when that
    /// is a plain command or a test; `None` for anything else.
    fn last_command_name(&self, node: Node<'_>) -> Option<String> {
        match node.kind() {
            "program" | "list" | "pipeline" => {
                let last = named_children(node)
                    .into_iter()
                    .rev()
                    .find(|c| c.kind() != "comment")?;
                self.last_command_name(last)
            }
            "redirected_statement" => {
                let body = node.child_by_field_name("body")?;
                let redirects_are_plain = named_children(node)
                    .into_iter()
                    .filter(|c| c.id() != body.id())
                    .all(plain_redirect);
                if redirects_are_plain {
                    self.last_command_name(body)
                } else {
                    None
                }
            }
            "command" => self.command_parts(node).map(|(name, _)| name),
            // `[ … ]` and `[[ … ]]`: the opening bracket is the first child.
            "test_command" => node.child(0).map(|open| open.kind().to_string()),
            _ => None,
        }
    }
}

/// A redirection that runs no command of its own: `cat <<EOF | grep x`
/// hangs the rest of the line off the heredoc node, so a heredoc may hold
/// only its own parts.
fn plain_redirect(node: Node<'_>) -> bool {
    match node.kind() {
        "file_redirect" | "herestring_redirect" => true,
        "heredoc_redirect" => named_children(node).into_iter().all(|c| {
            matches!(
                c.kind(),
                "heredoc_start" | "heredoc_body" | "heredoc_end" | "file_redirect"
            )
        }),
        _ => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
