//! The read-only command classifier behind Bash's `is_read_only` /
//! `is_concurrency_safe`, and the `is_destructive` heuristic.
//!
//! A command is parsed with tree-sitter-bash. It is read-only only when the
//! tree has no parse error, contains no command or process substitution, and
//! every statement is a plain command — alone or joined by pipes, `&&`, `||`,
//! `;`, `&`, newlines, `( … )`, `{ …; }`, `!`, `[[ … ]]` — whose name and
//! arguments pass [`rules::command_is_read_only`]. Redirections may only read
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

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

pub use rules::{DESTRUCTIVE_COMMANDS, READ_ONLY_COMMANDS};

/// One argument as the shell would pass it, when that is knowable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Literal(String),
    /// Contains an expansion or an unquoted glob: its value is unknown.
    Opaque,
}

impl Arg {
    pub fn literal(&self) -> Option<&str> {
        match self {
            Arg::Literal(s) => Some(s),
            Arg::Opaque => None,
        }
    }
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `src` with tree-sitter-bash (one parser per thread, reused).
pub(super) fn parse(src: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(src, None)
    })
}

/// True when `command` only reads (see the module docs).
pub fn is_read_only_command(command: &str) -> bool {
    let Some(tree) = parse(command) else {
        return false;
    };
    let root = tree.root_node();
    if root.has_error() || contains_kind(root, &["command_substitution", "process_substitution"]) {
        return false;
    }
    let walker = Walker::new(command);
    walker.statement(root)
}

/// Heuristic: does `command` delete or overwrite data irreversibly? Looks at
/// every command in the tree (also inside substitutions, also when the parse
/// has errors) for [`DESTRUCTIVE_COMMANDS`], `find -delete`/`-exec rm`,
/// `git reset --hard`, `git clean -f`, `git push --force`, `git checkout --`,
/// `git restore`, `git branch -D`, `git stash drop/clear`, and the same
/// behind `sudo`/`xargs`/`env`/`nohup`/`time`/`nice`/`exec`/`command`.
/// Redirections that truncate a file (`> f`) are not counted.
pub fn is_destructive_command(command: &str) -> bool {
    let Some(tree) = parse(command) else {
        return false;
    };
    let walker = Walker::new(command);
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

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

fn contains_kind(node: Node<'_>, kinds: &[&str]) -> bool {
    let mut found = false;
    visit(node, &mut |n| found |= kinds.contains(&n.kind()));
    found
}

pub(super) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Assignment prefixes that only change formatting or locale.
const SAFE_ASSIGNMENTS: &[&str] = &["LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "TERM"];

/// Reads word values and commands out of one parsed source.
pub(super) struct Walker<'s> {
    src: &'s [u8],
}

impl<'s> Walker<'s> {
    pub(super) fn new(src: &'s str) -> Self {
        Self {
            src: src.as_bytes(),
        }
    }
}

impl Walker<'_> {
    fn text(&self, node: Node<'_>) -> &str {
        node.utf8_text(self.src).unwrap_or("")
    }

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

    /// The literal command name and the arguments of a `command` node.
    pub(super) fn command_parts(&self, node: Node<'_>) -> Option<(String, Vec<Arg>)> {
        let name_node = node.child_by_field_name("name")?;
        let name = match self.arg(name_node) {
            Arg::Literal(s) => s,
            Arg::Opaque => return None,
        };
        let mut cursor = node.walk();
        let args = node
            .children_by_field_name("argument", &mut cursor)
            .map(|a| self.arg(a))
            .collect();
        Some((name, args))
    }

    /// The value the shell would pass for a word-like node.
    fn arg(&self, node: Node<'_>) -> Arg {
        match node.kind() {
            "command_name" => match named_children(node).as_slice() {
                [only] => self.arg(*only),
                _ => Arg::Opaque,
            },
            "word" => {
                let text = self.text(node);
                if has_unquoted_glob(text) {
                    Arg::Opaque
                } else {
                    Arg::Literal(unescape_word(text))
                }
            }
            "number" if named_children(node).is_empty() => Arg::Literal(self.text(node).into()),
            "raw_string" => {
                let t = self.text(node);
                Arg::Literal(t.get(1..t.len().saturating_sub(1)).unwrap_or("").into())
            }
            "string" => {
                if named_children(node)
                    .iter()
                    .all(|c| c.kind() == "string_content")
                {
                    let t = self.text(node);
                    Arg::Literal(unescape_double_quoted(
                        t.get(1..t.len().saturating_sub(1)).unwrap_or(""),
                    ))
                } else {
                    Arg::Opaque
                }
            }
            "concatenation" => {
                let mut out = String::new();
                for part in named_children(node) {
                    match self.arg(part) {
                        Arg::Literal(s) => out.push_str(&s),
                        Arg::Opaque => return Arg::Opaque,
                    }
                }
                Arg::Literal(out)
            }
            _ => Arg::Opaque,
        }
    }
}

fn is_redirect(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect"
    )
}

/// `*`, `?`, `[` (globs) or `{` (brace expansion) outside a backslash
/// escape: the shell may turn the word into other words.
fn has_unquoted_glob(word: &str) -> bool {
    let mut escaped = false;
    for c in word.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?' | '[' | '{') {
            return true;
        }
    }
    false
}

/// Backslash removal in an unquoted word (`\x` → `x`, `\<newline>` → ``).
fn unescape_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Backslash removal inside double quotes: only before `$`, `` ` ``, `"`,
/// `\` and newline.
fn unescape_double_quoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
