//! Where bash would evaluate text as code although no command is written:
//! command and process substitutions, arithmetic, and array subscripts.
//!
//! Bash evaluates an array subscript whenever it reads a name as an
//! arithmetic operand or a variable reference, and it expands `$(…)` inside
//! that subscript *after* quote removal: `test -v 'a[$(touch P)]'`,
//! `printf -v 'a[$(touch P)]' x`, `[[ 'a[$(touch P)]' -eq 1 ]]` and
//! `${x:'a[$(touch P)]'}` all run `touch`, single quotes notwithstanding.
//! [`scan`] looks at every node of a tree once for the constructs that can
//! do that (substitutions, `$((…))`, `${…}` other than `${NAME}` /
//! `${#NAME}`, subscripts); [`test_is_inert`] decides one `[ … ]` / `[[ … ]]`
//! (no `-v`/`-R`, arithmetic comparisons only between integer literals, and
//! in `[ … ]` no unquoted expansion or glob, which could turn into either).

use tree_sitter::Node;

use crate::words::{SUBSTITUTION_KINDS, Walker, visit};

/// What [`scan`] found anywhere in a tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Hazards {
    /// A command or process substitution.
    pub(crate) substitution: bool,
    /// An arithmetic expansion, a subscript, or a `${…}` beyond `${NAME}`.
    pub(crate) evaluation: bool,
}

/// Test operators whose operand bash reads as a variable name (with its
/// subscript evaluated).
const NAME_TESTS: &[&str] = &["-v", "-R"];
/// Comparisons whose operands `[[ … ]]` evaluates as arithmetic.
const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// One pass over every node below `root`.
pub(crate) fn scan(walker: &Walker<'_>, root: Node<'_>) -> Hazards {
    let mut hazards = Hazards::default();
    visit(root, &mut |node| match node.kind() {
        k if SUBSTITUTION_KINDS.contains(&k) => hazards.substitution = true,
        "arithmetic_expansion" | "subscript" => hazards.evaluation = true,
        "expansion" if !is_plain_braced(walker.text(node)) => hazards.evaluation = true,
        _ => {}
    });
    hazards
}

/// `${NAME}` or `${#NAME}`: a variable's value or length, nothing evaluated.
fn is_plain_braced(text: &str) -> bool {
    let Some(inner) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    let name = inner.strip_prefix('#').unwrap_or(inner);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True when a `test_command` node cannot make bash evaluate code.
pub(crate) fn test_is_inert(walker: &Walker<'_>, node: Node<'_>) -> bool {
    let single_bracket = node.child(0).is_some_and(|open| open.kind() == "[");
    let mut inert = true;
    visit(node, &mut |n| {
        if !inert {
            return;
        }
        inert = match n.kind() {
            "test_operator" => !NAME_TESTS.contains(&walker.text(n)),
            "binary_expression" => binary_is_inert(walker, n),
            // `[ … ]` splits and globs its words: `[ $x ]` or `[ * ]` may
            // become `[ -v 'a[$(…)]' ]`.
            "simple_expansion" | "expansion" if single_bracket => {
                n.parent().is_some_and(|p| p.kind() == "string")
            }
            "word" if single_bracket => !walker.text(n).contains(['*', '?', '[', '{']),
            // A subscript or arithmetic anywhere is refused by `scan`.
            _ => true,
        };
    });
    inert
}

/// An arithmetic comparison is inert only between integer literals.
fn binary_is_inert(walker: &Walker<'_>, node: Node<'_>) -> bool {
    let op = node
        .child_by_field_name("operator")
        .map(|o| walker.text(o))
        .unwrap_or("");
    if !ARITHMETIC_TESTS.contains(&op) {
        return true;
    }
    let is_integer = |field: &str| {
        node.child_by_field_name(field).is_some_and(|operand| {
            let text = walker.text(operand);
            let digits = text.strip_prefix('-').unwrap_or(text);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        })
    };
    is_integer("left") && is_integer("right")
}

#[cfg(test)]
mod tests {
    use super::is_plain_braced;

    #[test]
    fn plain_braced_expansions() {
        for (text, plain) in [
            ("${HOME}", true),
            ("${#HOME}", true),
            ("${_a1}", true),
            ("${a[1]}", false),
            ("${x:1}", false),
            ("${!x}", false),
            ("${x:-y}", false),
            ("${1}", false),
            ("${}", false),
            ("$x", false),
        ] {
            assert_eq!(is_plain_braced(text), plain, "{text}");
        }
    }
}
