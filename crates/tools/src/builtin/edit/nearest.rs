//! The closest lines of a file to an `old_string` Edit did not find: Claude
//! Code answers only "String to replace not found", and a small model then
//! retries the same string (a quote, whitespace or case difference it does
//! not see). orbit appends the nearest real lines (a documented
//! improvement), so the next call can copy them.
//!
//! Flow: the file's text and `old_string` → every window of as many lines
//! as `old_string` has → a cheap similarity of the two after folding case,
//! quotes and runs of whitespace (Dice coefficient of character bigrams,
//! linear in the window's length) → the best [`NEAREST_MAX_CANDIDATES`]
//! windows at or above [`NEAREST_MIN_SIMILARITY`], not overlapping, each
//! shown as `Line N:` and its lines exactly as in the file. Bounded: no
//! hint for a file over [`NEAREST_MAX_FILE_BYTES`] or an `old_string` over
//! [`NEAREST_MAX_OLD_LINES`] lines.

use std::collections::HashMap;

/// At most this many candidates are shown.
pub(crate) const NEAREST_MAX_CANDIDATES: usize = 3;
/// Candidates less similar than this (0..=1) are not shown.
pub(crate) const NEAREST_MIN_SIMILARITY: f64 = 0.6;
/// Files larger than this get no hint.
pub(crate) const NEAREST_MAX_FILE_BYTES: usize = 512 * 1024;
/// An `old_string` of more lines than this gets no hint.
pub(crate) const NEAREST_MAX_OLD_LINES: usize = 30;

/// The hint appended to "String to replace not found", or `None` when no
/// window of the file is close enough.
pub(crate) fn nearest_hint(content: &[u8], old: &str) -> Option<String> {
    if content.len() > NEAREST_MAX_FILE_BYTES {
        return None;
    }
    let text = String::from_utf8_lossy(content);
    let lines: Vec<&str> = text.lines().collect();
    let old = old.trim_matches('\n');
    let width = old.lines().count().max(1);
    if width > NEAREST_MAX_OLD_LINES || lines.len() < width {
        return None;
    }
    let target = bigrams(&fold(old));
    let mut scored: Vec<(f64, usize)> = (0..=lines.len() - width)
        .filter_map(|start| {
            let window = lines[start..start + width].join("\n");
            let score = dice(&target, &bigrams(&fold(&window)));
            (score >= NEAREST_MIN_SIMILARITY).then_some((score, start))
        })
        .collect();
    // Best first; on a tie the earlier line.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = Vec::new();
    for (_, start) in scored {
        if chosen
            .iter()
            .all(|&c| start + width <= c || c + width <= start)
        {
            chosen.push(start);
        }
        if chosen.len() == NEAREST_MAX_CANDIDATES {
            break;
        }
    }
    if chosen.is_empty() {
        return None;
    }
    let mut hint = String::from(
        "The closest lines in the file (quotes, whitespace or case may differ); \
copy old_string exactly from them:",
    );
    for start in chosen {
        hint.push_str(&format!("\nLine {}:\n", start + 1));
        hint.push_str(&lines[start..start + width].join("\n"));
    }
    Some(hint)
}

/// `s` lowercased, typographic quotes and backticks as `'`/`"` folded to
/// one quote, runs of whitespace as one space, trimmed.
fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        let c = match c {
            '"' | '\'' | '`' | '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}' => '\'',
            c => c,
        };
        out.extend(c.to_lowercase());
    }
    out
}

/// The character bigrams of `s` with their counts (a one-character string
/// is its own bigram).
fn bigrams(s: &str) -> HashMap<(char, char), u32> {
    let chars: Vec<char> = s.chars().collect();
    let mut counts = HashMap::new();
    if chars.len() == 1 {
        counts.insert((chars[0], '\0'), 1);
    }
    for pair in chars.windows(2) {
        *counts.entry((pair[0], pair[1])).or_insert(0) += 1;
    }
    counts
}

/// Sørensen–Dice similarity of two bigram multisets (1 = the same).
fn dice(a: &HashMap<(char, char), u32>, b: &HashMap<(char, char), u32>) -> f64 {
    let total: u32 = a.values().sum::<u32>() + b.values().sum::<u32>();
    if total == 0 {
        return 0.0;
    }
    let shared: u32 = a
        .iter()
        .map(|(k, n)| (*n).min(b.get(k).copied().unwrap_or(0)))
        .sum();
    f64::from(2 * shared) / f64::from(total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn quote_whitespace_and_case_differences_find_the_real_line() {
        let file = b"import os\n\ndef greet():\n    print(\"Hello, world\")\n    return 1\n";
        let hint = nearest_hint(file, "print('Hello, world')").unwrap();
        assert_eq!(
            hint,
            "The closest lines in the file (quotes, whitespace or case may differ); copy \
old_string exactly from them:\nLine 4:\n    print(\"Hello, world\")"
        );
        let hint = nearest_hint(file, "def  GREET():\n  print(\"hello, world\")").unwrap();
        assert!(
            hint.ends_with("Line 3:\ndef greet():\n    print(\"Hello, world\")"),
            "{hint}"
        );
        assert_eq!(nearest_hint(file, "something else entirely"), None);
    }

    #[test]
    fn at_most_three_candidates_none_overlapping() {
        let file = "x = 1\nx = 2\nx = 3\nx = 4\ny = 5\n".repeat(3);
        let hint = nearest_hint(file.as_bytes(), "x = 9").unwrap();
        assert_eq!(hint.matches("\nLine ").count(), NEAREST_MAX_CANDIDATES);
        assert!(nearest_hint(&vec![b'a'; NEAREST_MAX_FILE_BYTES + 1], "aaa").is_none());
    }
}
