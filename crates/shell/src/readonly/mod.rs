//! The read-only command classifier behind [`crate::Script::is_read_only`]
//! (Bash's `read_only` and `concurrency_safe` facts), and the destructive
//! heuristic behind [`crate::is_destructive`].
//!
//! A command is parsed with tree-sitter-bash. It is read-only only when the
//! tree has no parse error, contains no command or process substitution, and
//! every statement is a plain command — alone or joined by pipes, `&&`, `||`,
//! `;`, `&`, newlines, `( … )`, `{ …; }`, `!`, `[[ … ]]` — whose name and
//! arguments pass the per-command rules (`rules.rs`). Redirections may only read
//! a file (`< f`), duplicate or close a descriptor (`2>&1`, `>&-`) or write
//! to `/dev/null`. Assignment prefixes are allowed only for locale/format
//! variables. Anything the walker does not know is not read-only: the
//! classifier errs towards "exclusive", which costs only parallelism.
//!
//! Arguments are reduced to their literal value (quotes removed, backslashes
//! resolved, `-de''lete` → `-delete`); an argument with an expansion or an
//! unquoted glob is *opaque*, and commands whose options can write refuse
//! opaque arguments.

mod rules;

use tree_sitter::{Node, Tree};

use crate::words::{SUBSTITUTION_KINDS, Walker, contains_kind, is_redirect, named_children, visit};

pub use rules::{DESTRUCTIVE_COMMANDS, READ_ONLY_COMMANDS};

/// True when the error-free `tree` of `source` only reads (see the module
/// docs).
pub(crate) fn tree_is_read_only(source: &str, tree: &Tree) -> bool {
    let root = tree.root_node();
    if root.has_error() || contains_kind(root, SUBSTITUTION_KINDS) {
        return false;
    }
    Walker::new(source).statement(root)
}

/// The destructive heuristic over every command of `tree` (see
/// [`crate::is_destructive`]).
pub(crate) fn tree_is_destructive(source: &str, tree: &Tree) -> bool {
    let walker = Walker::new(source);
    let mut found = false;
    visit(tree.root_node(), &mut |node| {
        if !found
            && node.kind() == "command"
            && let Some((name, args)) = walker.command_parts(node)
        {
            found = rules::command_is_destructive(&name, &args);
        }
    });
    found
}

/// Assignment prefixes that only change formatting or locale.
const SAFE_ASSIGNMENTS: &[&str] = &["LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "TERM"];

impl Walker<'_> {
    fn statement(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "program" | "list" | "pipeline" | "subshell" | "compound_statement"
            | "negated_command" => named_children(node).into_iter().all(|c| self.statement(c)),
            "redirected_statement" => named_children(node).into_iter().all(|c| {
                if is_redirect(c.kind()) {
                    self.redirect(c)
                } else {
                    self.statement(c)
                }
            }),
            "command" => self.command(node),
            // `[ … ]` / `[[ … ]]`: only tests; substitutions were refused
            // for the whole tree already.
            "test_command" => named_children(node)
                .into_iter()
                .all(|c| c.kind() != "redirected_statement" || self.statement(c)),
            "comment" => true,
            _ => false,
        }
    }

    fn redirect(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "file_redirect" => self.file_redirect(node),
            // The content is a string; substitutions in it were refused.
            "herestring_redirect" => true,
            "heredoc_redirect" => named_children(node).into_iter().all(|c| match c.kind() {
                "heredoc_start" | "heredoc_body" | "heredoc_end" => true,
                k if is_redirect(k) => self.redirect(c),
                // `cat <<EOF | cmd` / `cat <<EOF && cmd` hang the rest of the
                // line off the heredoc node.
                "pipeline" | "list" | "command" | "redirected_statement" => self.statement(c),
                _ => false,
            }),
            _ => false,
        }
    }

    fn file_redirect(&self, node: Node<'_>) -> bool {
        let mut op = "";
        let mut destinations = Vec::new();
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if !child.is_named() {
                op = child.kind();
            } else if node.field_name_for_child(i as u32) == Some("destination") {
                destinations.push(self.arg(child));
            }
        }
        let [dest] = destinations.as_slice() else {
            // `>&-` / `<&-` (close a descriptor) have no destination node.
            return destinations.is_empty() && matches!(op, ">&-" | "<&-");
        };
        let dest = dest.literal();
        match op {
            "<" => dest.is_some(),
            ">&" | "<&"
                if dest.is_some_and(|d| d == "-" || d.bytes().all(|b| b.is_ascii_digit())) =>
            {
                true
            }
            ">" | ">>" | "&>" | "&>>" | ">|" | ">&" => dest == Some("/dev/null"),
            _ => false,
        }
    }

    fn command(&self, node: Node<'_>) -> bool {
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if !child.is_named() {
                continue;
            }
            let field = node.field_name_for_child(i as u32);
            let ok = match (field, child.kind()) {
                (Some("name"), _) | (Some("argument"), _) => true,
                (_, "variable_assignment") => self.safe_assignment(child),
                (_, k) if is_redirect(k) => self.redirect(child),
                (_, "comment") => true,
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        match self.command_parts(node) {
            Some((name, args)) => rules::command_is_read_only(&name, &args),
            None => false,
        }
    }

    fn safe_assignment(&self, node: Node<'_>) -> bool {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or("");
        let value_ok = node
            .child_by_field_name("value")
            .is_none_or(|v| self.arg(v).literal().is_some());
        value_ok && (SAFE_ASSIGNMENTS.contains(&name) || name.starts_with("LC_"))
    }
}

#[cfg(test)]
mod tests;
