//! Argument placeholders, as Claude Code 2.1.332 fills them (observed
//! against the fake server, `/args "a b" c d`):
//! - `$ARGUMENTS` — the arguments as typed (trimmed);
//! - `$ARGUMENTS[N]` and `$N` — the N-th argument, 0-based (`$0` is the
//!   first), arguments split like a shell splits words (`"a b"` is one);
//!   a placeholder past the last argument stays as written (`$3`, and so
//!   does a price such as `$5`);
//! - a body with no placeholder at all gets `\n\nARGUMENTS: …` appended
//!   when arguments were given, so they are not lost.

/// The arguments split like shell words: whitespace separates, `"…"` and
/// `'…'` group (the quotes are removed), `\` escapes the next character
/// outside single quotes.
pub fn split_arguments(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The body with its placeholders filled from `args` (see the module docs).
pub fn expand_arguments(body: &str, args: &str) -> String {
    let args = args.trim();
    let words = split_arguments(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            used = true;
            if let Some((index, tail)) = bracket_index(tail) {
                match words.get(index) {
                    Some(word) => out.push_str(word),
                    None => out.push_str(&rest[at..rest.len() - tail.len()]),
                }
                rest = tail;
            } else {
                out.push_str(args);
                rest = tail;
            }
            continue;
        }
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<usize>() {
            Ok(n) => {
                used = true;
                match words.get(n) {
                    Some(word) => out.push_str(word),
                    None => out.push_str(&rest[at..at + 1 + digits]),
                }
                rest = &after[digits..];
            }
            Err(_) => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

/// `[N]` at the start of `text`: N and the text after it.
fn bracket_index(text: &str) -> Option<(usize, &str)> {
    let inner = text.strip_prefix('[')?;
    let close = inner.find(']')?;
    let index = inner[..close].trim().parse().ok()?;
    Some((index, &inner[close + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_placeholders_as_claude_code_does() {
        // (body, args, prompt); the first case is the one observed.
        let cases: &[(&str, &str, &str)] = &[
            (
                "zero=$0 one=$1 two=$2 three=$3 arr0=$ARGUMENTS[0] all=[$ARGUMENTS]\n",
                "\"a b\" c d",
                "zero=a b one=c two=d three=$3 arr0=a b all=[\"a b\" c d]\n",
            ),
            (
                "Review $ARGUMENTS now",
                "src/lib.rs",
                "Review src/lib.rs now",
            ),
            ("Review $ARGUMENTS now", "", "Review  now"),
            // `$N` is 0-based and a missing one stays as written, as Claude
            // Code 2.1.332 fills them.
            (
                "Deploy to $0 with tag $1.",
                "staging v1.2",
                "Deploy to staging with tag v1.2.",
            ),
            ("Only $1 and $2", "a b", "Only b and $2"),
            ("$0$ARGUMENTS", "a b", "aa b"),
            ("Costs $5 and $ dollars $0", "x", "Costs $5 and $ dollars x"),
            ("Costs $5 and $ dollars", "x", "Costs $5 and $ dollars"),
            ("$ARGUMENTS[7]", "x", "$ARGUMENTS[7]"),
            ("Explain.\n", "", "Explain.\n"),
            (
                "Explain.\n",
                "in detail",
                "Explain.\n\n\nARGUMENTS: in detail",
            ),
        ];
        for (body, args, expected) in cases {
            assert_eq!(expand_arguments(body, args), *expected, "{body:?} {args:?}");
        }
    }

    #[test]
    fn splits_like_shell_words() {
        assert_eq!(
            split_arguments(r#" a "b c" 'd e' f\ g "#),
            ["a", "b c", "d e", "f g"]
        );
        assert_eq!(split_arguments(r#""""#), [""]);
        assert!(split_arguments("  ").is_empty());
    }
}
