//! Cursor arithmetic on the composer's text: char, word and line boundaries.
//!
//! Data flow: the key handler asks these pure functions where a motion or a
//! kill lands (a byte offset on a char boundary) and then edits the text
//! itself; nothing here mutates state.

/// The offset of the char before `at` (or 0).
pub(crate) fn prev_char(text: &str, at: usize) -> usize {
    text[..at]
        .chars()
        .next_back()
        .map_or(0, |c| at - c.len_utf8())
}

/// The offset after the char at `at` (or the end).
pub(crate) fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// The start of the logical line holding `at`.
pub(crate) fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the logical line holding `at` (before its `\n`).
pub(crate) fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// Word characters group together; other non-space characters form their
/// own groups, so `foo.bar` is three words for Alt-←/→.
fn class(c: char) -> u8 {
    if c.is_whitespace() {
        0
    } else if c.is_alphanumeric() || c == '_' {
        1
    } else {
        2
    }
}

/// Alt-← / Ctrl-W: skip spaces backwards, then one word.
pub(crate) fn word_left(text: &str, at: usize) -> usize {
    let mut chars = text[..at].char_indices().rev().peekable();
    let mut pos = at;
    while let Some(&(i, c)) = chars.peek() {
        if class(c) != 0 {
            break;
        }
        pos = i;
        chars.next();
    }
    let Some(&(_, first)) = chars.peek() else {
        return pos;
    };
    let group = class(first);
    for (i, c) in chars {
        if class(c) != group {
            break;
        }
        pos = i;
    }
    pos
}

/// Alt-→: skip spaces forwards, then one word.
pub(crate) fn word_right(text: &str, at: usize) -> usize {
    let mut chars = text[at..].char_indices().peekable();
    while chars.next_if(|&(_, c)| class(c) == 0).is_some() {}
    let Some(&(_, first)) = chars.peek() else {
        return text.len();
    };
    let group = class(first);
    for (i, c) in chars {
        if class(c) != group {
            return at + i;
        }
    }
    text.len()
}
