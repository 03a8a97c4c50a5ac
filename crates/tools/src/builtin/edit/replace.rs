//! Exact-string replacement on a file's bytes, the pure core of Edit.
//!
//! Works on bytes, so a file with invalid UTF-8 is edited without losing a
//! byte outside the replaced spans. A CRLF file (its first line ends in
//! `\r\n`) is matched with `\n` in old/new strings turned into `\r\n`, so
//! the model's LF strings fit and the file stays CRLF; the strings as given
//! are tried when that finds nothing (mixed endings).

use std::borrow::Cow;

/// Outcome of planning a replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Replacement {
    /// The new file content.
    Done(Vec<u8>),
    NotFound,
    /// More than one match and `replace_all` is false.
    Ambiguous(usize),
}

/// Replaces `old` with `new` in `content`: every occurrence with
/// `replace_all`, else exactly one (refusing zero or several). `old` must
/// not be empty.
pub(crate) fn replace(content: &[u8], old: &str, new: &str, replace_all: bool) -> Replacement {
    let mut candidates: Vec<(Cow<'_, str>, Cow<'_, str>)> = Vec::with_capacity(2);
    if uses_crlf(content) && (old.contains('\n') || new.contains('\n')) {
        candidates.push((to_crlf(old), to_crlf(new)));
    }
    candidates.push((Cow::Borrowed(old), Cow::Borrowed(new)));
    for (old, new) in candidates {
        let hits = find_all(content, old.as_bytes());
        match hits.len() {
            0 => continue,
            n if n > 1 && !replace_all => return Replacement::Ambiguous(n),
            _ => return Replacement::Done(splice(content, &hits, old.len(), new.as_bytes())),
        }
    }
    Replacement::NotFound
}

/// True when the file's first line ends in `\r\n`.
pub(crate) fn uses_crlf(content: &[u8]) -> bool {
    matches!(memchr::memchr(b'\n', content), Some(i) if i > 0 && content[i - 1] == b'\r')
}

/// `\n` (and any existing `\r\n`) as `\r\n`.
fn to_crlf(s: &str) -> Cow<'_, str> {
    if s.contains('\n') {
        Cow::Owned(s.replace("\r\n", "\n").replace('\n', "\r\n"))
    } else {
        Cow::Borrowed(s)
    }
}

/// Start offsets of the non-overlapping occurrences of `needle`, left to
/// right (as `str::matches` counts them).
pub(crate) fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(needle);
    let mut hits = Vec::new();
    let mut at = 0;
    while let Some(i) = finder.find(&haystack[at..]) {
        hits.push(at + i);
        at += i + needle.len();
    }
    hits
}

fn splice(content: &[u8], hits: &[usize], old_len: usize, new: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + hits.len() * new.len());
    let mut at = 0;
    for &h in hits {
        out.extend_from_slice(&content[at..h]);
        out.extend_from_slice(new);
        at = h + old_len;
    }
    out.extend_from_slice(&content[at..]);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Each case: the file, old_string, new_string, replace_all, and what
    /// `replace` decides. A CRLF file takes LF strings and stays CRLF; a
    /// file of mixed endings takes the strings as given; overlapping
    /// matches count left to right; bytes that are not UTF-8 outside the
    /// match survive.
    #[test]
    fn replacements() {
        use Replacement::{Ambiguous, Done, NotFound};
        let crlf: &[u8] = b"one\r\ntwo\r\nthree\r\n";
        let table: [(&[u8], &str, &str, bool, Replacement); 9] = [
            (b"a b c", "b", "X", false, Done(b"a X c".to_vec())),
            (b"x x x", "x", "y", false, Ambiguous(3)),
            (b"x x x", "x", "y", true, Done(b"y y y".to_vec())),
            (b"aaa", "aa", "b", true, Done(b"ba".to_vec())),
            (b"abc", "zz", "y", true, NotFound),
            (
                crlf,
                "one\ntwo",
                "uno\ndos",
                false,
                Done(b"uno\r\ndos\r\nthree\r\n".to_vec()),
            ),
            (
                crlf,
                "two",
                "2\n2",
                false,
                Done(b"one\r\n2\r\n2\r\nthree\r\n".to_vec()),
            ),
            (
                b"a\r\nb\nc\n",
                "b\nc",
                "B\nC",
                false,
                Done(b"a\r\nB\nC\n".to_vec()),
            ),
            (
                b"\xff\xfeold\x80",
                "old",
                "new",
                false,
                Done(b"\xff\xfenew\x80".to_vec()),
            ),
        ];
        for (file, old, new, all, expected) in table {
            assert_eq!(
                replace(file, old, new, all),
                expected,
                "{old:?} in {file:?}"
            );
        }
        assert_eq!(find_all(b"aaaa", b"aa"), vec![0, 2]);
    }

    proptest! {
        /// replace_all never loses or alters bytes outside the replaced
        /// spans: undoing each replacement at the recorded offsets gives
        /// back the original, and no old_string remains.
        #[test]
        fn replace_all_keeps_everything_outside_the_spans(
            parts in proptest::collection::vec("[a-c]{0,6}", 1..8),
            old in "[a-c]{1,3}",
            new in "[x-z]{0,4}",
        ) {
            let content = parts.join("\n");
            let hits = find_all(content.as_bytes(), old.as_bytes());
            match replace(content.as_bytes(), &old, &new, true) {
                Replacement::Done(out) => {
                    prop_assert!(!hits.is_empty());
                    let out = String::from_utf8(out).unwrap();
                    // Rebuild the original from the output and the hit offsets.
                    let mut rebuilt = String::new();
                    let mut src = 0;
                    let mut dst = 0;
                    for &h in &hits {
                        let keep = h - src;
                        prop_assert_eq!(&out[dst..dst + keep], &content[src..h]);
                        rebuilt.push_str(&out[dst..dst + keep]);
                        rebuilt.push_str(&old);
                        prop_assert_eq!(&out[dst + keep..dst + keep + new.len()], new.as_str());
                        dst += keep + new.len();
                        src = h + old.len();
                    }
                    prop_assert_eq!(&out[dst..], &content[src..]);
                    rebuilt.push_str(&content[src..]);
                    prop_assert_eq!(rebuilt, content.clone());
                    prop_assert_eq!(out.len(), content.len() - hits.len() * old.len() + hits.len() * new.len());
                }
                Replacement::NotFound => prop_assert!(hits.is_empty()),
                Replacement::Ambiguous(_) => prop_assert!(false, "replace_all never ambiguous"),
            }
        }
    }
}
