//! `@path` imports inside a memory file: which words are imports, as
//! Claude Code reads them.
//!
//! Data flow: [`imports`] scans the file's text line by line, leaving out
//! fenced code blocks (```` ``` ```` / `~~~`), inline code spans and HTML
//! comments, and returns each `@path` that starts a word (at the start of a
//! line or after whitespace) in order, once. Accepted forms: `./x`, `~/x`,
//! an absolute path, or a word starting with a letter, digit, `.`, `_` or
//! `-` (`@docs/style.md`, `@README`); `#fragment` is dropped and `\ ` is an
//! escaped space. The loader resolves them (relative to the importing
//! file, `~/` to the home folder).

/// One `@path` found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The path as written (fragment dropped, `\ ` unescaped).
    pub path: String,
}

impl Import {
    /// A bare word (no `/`, no `.`): likely a mention (`@alice`) rather
    /// than a file; a missing one is skipped without a warning.
    pub fn is_bare_word(&self) -> bool {
        !self.path.contains('/') && !self.path.contains('.')
    }
}

/// The imports of `text`, in order, each once.
pub fn imports(text: &str) -> Vec<Import> {
    let mut found: Vec<Import> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut in_comment = false;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if let Some((ch, len)) = fence {
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if indent < 4 && run >= len && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if indent < 4
            && let Some(ch) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')
        {
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if run >= 3 {
                fence = Some((ch, run));
                continue;
            }
        }
        for word in outside_code(line, &mut in_comment) {
            if let Some(import) = parse_word(&word)
                && !found.contains(&import)
            {
                found.push(import);
            }
        }
    }
    found
}

/// The `@…` words of `line` outside inline code spans and HTML comments
/// (`in_comment` carries an open comment to the next line).
fn outside_code(line: &str, in_comment: &mut bool) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut plain = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if *in_comment {
            if starts_with(&chars, i, "-->") {
                *in_comment = false;
                i += 3;
                plain.push(' ');
            } else {
                i += 1;
            }
            continue;
        }
        if starts_with(&chars, i, "<!--") {
            *in_comment = true;
            i += 4;
            continue;
        }
        if chars[i] == '`' {
            let run = chars[i..].iter().take_while(|c| **c == '`').count();
            // The span ends at the next run of exactly the same length.
            let mut j = i + run;
            let mut close = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let other = chars[j..].iter().take_while(|c| **c == '`').count();
                    if other == run {
                        close = Some(j + other);
                        break;
                    }
                    j += other;
                } else {
                    j += 1;
                }
            }
            match close {
                Some(end) => {
                    plain.push(' ');
                    i = end;
                }
                None => {
                    // No closing run: the backticks are literal text.
                    plain.extend(&chars[i..i + run]);
                    i += run;
                }
            }
            continue;
        }
        plain.push(chars[i]);
        i += 1;
    }
    words_after_at(&plain)
}

fn starts_with(chars: &[char], at: usize, pat: &str) -> bool {
    pat.chars()
        .enumerate()
        .all(|(k, c)| chars.get(at + k) == Some(&c))
}

/// The raw words following an `@` that starts a word (`\ ` kept inside).
fn words_after_at(plain: &str) -> Vec<String> {
    let chars: Vec<char> = plain.chars().collect();
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || chars[i - 1].is_whitespace();
        if chars[i] == '@' && starts_word {
            let mut word = String::new();
            let mut j = i + 1;
            while j < chars.len() {
                if chars[j] == '\\' && chars.get(j + 1) == Some(&' ') {
                    word.push_str("\\ ");
                    j += 2;
                } else if chars[j].is_whitespace() || chars[j] == '\\' {
                    break;
                } else {
                    word.push(chars[j]);
                    j += 1;
                }
            }
            if !word.is_empty() {
                words.push(word);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    words
}

/// A raw word as an import, when it is one.
fn parse_word(raw: &str) -> Option<Import> {
    let path = raw.split('#').next().unwrap_or_default();
    let path = path.replace("\\ ", " ");
    if path.is_empty() {
        return None;
    }
    let first = path.chars().next()?;
    let accepted = path.starts_with("./")
        || path.starts_with("~/")
        || (path.starts_with('/') && path != "/")
        || (first.is_ascii_alphanumeric() || matches!(first, '.' | '_' | '-'));
    accepted.then_some(Import { path })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        imports(text).into_iter().map(|i| i.path).collect()
    }

    #[test]
    fn imports_outside_code_only() {
        let text = "see @imp.md and `@span.md` here\n\
                    ```\n@fenced.md\n```\n\
                    ~~~~\n@tilde.md\n~~~~\n\
                    @./rel.md @~/home.md @/abs/x.md\n\
                    mail bob@example.com, <!-- @comment.md --> @after.md\n\
                    ``@double ` still``@x.md#section @with\\ space.md\n\
                    @imp.md again, @ alone, @#hash @(paren) @/\n";
        assert_eq!(
            paths(text),
            [
                "imp.md",
                "./rel.md",
                "~/home.md",
                "/abs/x.md",
                "after.md",
                "x.md",
                "with space.md"
            ]
        );
    }

    #[test]
    fn a_span_glued_to_a_word_hides_it_and_an_unclosed_fence_hides_the_rest() {
        // `x`@y.md: the @ does not start a word once the span is gone? It
        // does (the span becomes a space), as in a markdown lexer's text.
        assert_eq!(paths("`x`@y.md"), ["y.md"]);
        assert_eq!(paths("a\n```\n@never.md\n"), Vec::<String>::new());
        assert_eq!(paths("    ```\n@seen.md"), ["seen.md"]);
    }

    #[test]
    fn bare_words_are_marked() {
        let found = imports("@alice @notes.md @docs/a");
        let bare: Vec<bool> = found.iter().map(Import::is_bare_word).collect();
        assert_eq!(bare, [true, false, false]);
    }
}
