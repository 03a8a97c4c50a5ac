//! Reading a parsed tree: the value the shell would pass for a word
//! ([`Walker::arg`]: quotes removed, backslashes resolved, `-de''lete` →
//! `-delete`; a word with an expansion or an unquoted glob is *opaque*), a
//! `command` node's name and arguments, and small tree helpers.

use tree_sitter::Node;

/// One argument as the shell would pass it, when that is knowable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    /// The exact value.
    Literal(String),
    /// Contains an expansion or an unquoted glob: its value is unknown.
    Opaque,
}

impl Arg {
    /// The exact value, when known.
    pub(crate) fn literal(&self) -> Option<&str> {
        match self {
            Arg::Literal(s) => Some(s),
            Arg::Opaque => None,
        }
    }
}

/// Calls `f` on `node` and every node below it, in source order.
pub(crate) fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

/// Whether `node` or a node below it has one of `kinds`.
pub(crate) fn contains_kind(node: Node<'_>, kinds: &[&str]) -> bool {
    let mut found = false;
    visit(node, &mut |n| found |= kinds.contains(&n.kind()));
    found
}

/// The named children of `node`, in order.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Whether a node kind is a redirection.
pub(crate) fn is_redirect(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect"
    )
}

/// Node kinds that run a command wherever they appear.
pub(crate) const SUBSTITUTION_KINDS: &[&str] = &["command_substitution", "process_substitution"];

/// Reads word values and commands out of one parsed source.
pub(crate) struct Walker<'s> {
    src: &'s [u8],
}

impl<'s> Walker<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Self {
            src: src.as_bytes(),
        }
    }
}

impl Walker<'_> {
    /// The source text of `node`.
    pub(crate) fn text(&self, node: Node<'_>) -> &str {
        node.utf8_text(self.src).unwrap_or("")
    }

    /// The literal command name and the arguments of a `command` node.
    pub(crate) fn command_parts(&self, node: Node<'_>) -> Option<(String, Vec<Arg>)> {
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
    pub(crate) fn arg(&self, node: Node<'_>) -> Arg {
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
