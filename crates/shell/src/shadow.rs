//! The text tree-sitter-bash parses: ASCII only, byte for byte as long as
//! the command.
//!
//! tree-sitter-bash 0.25.1's external scanner calls `isdigit` on the code
//! point after a `{` (`brace_start` in `scanner.c`): for a code point past
//! 255 that reads outside the C library's character table, and on Linux
//! the process dies with SIGSEGV when that address is not mapped
//! (tree-sitter-bash issue #337; orbit's fuzz test hit it with `{` and an
//! emoji). A command the model writes must never crash orbit, so the
//! parser gets a shadow of the command in which every non-ASCII character
//! is [`SHADOW_BYTE`] repeated over its UTF-8 bytes. Byte offsets stay the
//! same, so the tree's nodes index the real command; a node that would
//! start or end inside a character of the real command fails the parse
//! (closed: the command is then not valid bash to orbit).

use std::borrow::Cow;

use tree_sitter::Tree;

/// What stands for each byte of a non-ASCII character. `%` is an ordinary
/// word character to bash, as a non-ASCII character is, and it is not a
/// name character (`é=1` runs a command; `%%=1` too, where `xx=1` would be
/// an assignment).
const SHADOW_BYTE: u8 = b'%';

/// `src` with every non-ASCII character replaced by [`SHADOW_BYTE`]s (one
/// per UTF-8 byte); `src` itself when it is ASCII.
pub(crate) fn ascii_shadow(src: &str) -> Cow<'_, str> {
    if src.is_ascii() {
        return Cow::Borrowed(src);
    }
    let bytes: Vec<u8> = src
        .bytes()
        .map(|b| if b.is_ascii() { b } else { SHADOW_BYTE })
        .collect();
    // Only ASCII bytes remain.
    Cow::Owned(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether some node of `tree` starts or ends inside a character of `src`
/// (possible only where the shadow's run of `%` was split differently from
/// the character it stands for, e.g. `${x%é}`).
pub(crate) fn splits_a_char(tree: &Tree, src: &str) -> bool {
    if src.is_ascii() {
        return false;
    }
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if !src.is_char_boundary(node.start_byte()) || !src.is_char_boundary(node.end_byte()) {
            return true;
        }
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return false;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shadow_keeps_ascii_and_byte_offsets() {
        let table = [
            ("ls -la", "ls -la"),
            ("echo é", "echo %%"),
            ("{🕴", "{%%%%"),
            ("grep 'café' x", "grep 'caf%%' x"),
        ];
        for (src, want) in table {
            let shadow = ascii_shadow(src);
            assert_eq!(shadow, want, "{src:?}");
            assert_eq!(shadow.len(), src.len(), "{src:?}");
            assert!(shadow.is_ascii(), "{src:?}");
        }
    }
}
