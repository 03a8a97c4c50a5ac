//! A small keyword highlighter for fenced code blocks: one line at a time
//! (the markdown streamer hands over complete lines), no state across
//! lines. Strings, line comments, numbers and the keywords of a handful of
//! common languages; anything else is plain. Deliberately light: no
//! grammar, no dependency.

use ratatui::text::{Line, Span};

use crate::theme::Theme;

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "False", "finally", "for", "from", "if", "import", "in", "is", "lambda",
    "None", "not", "or", "pass", "raise", "return", "True", "try", "while", "with", "yield",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "else",
    "export",
    "extends",
    "false",
    "for",
    "function",
    "if",
    "import",
    "interface",
    "let",
    "new",
    "null",
    "return",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "while",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "for",
    "func",
    "go",
    "if",
    "import",
    "interface",
    "map",
    "nil",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];
const SHELL: &[&str] = &[
    "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if", "in",
    "local", "return", "then", "while",
];
const C: &[&str] = &[
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "float",
    "for",
    "if",
    "int",
    "long",
    "return",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "unsigned",
    "void",
    "while",
    "class",
    "public",
    "private",
    "namespace",
    "template",
];

/// The keywords and line-comment marker of a fence's language tag.
fn language(tag: &str) -> (&'static [&'static str], &'static str) {
    match tag.to_ascii_lowercase().as_str() {
        "rust" | "rs" => (RUST, "//"),
        "python" | "py" => (PYTHON, "#"),
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" => (JS, "//"),
        "go" => (GO, "//"),
        "sh" | "bash" | "shell" | "zsh" | "console" => (SHELL, "#"),
        "c" | "cpp" | "c++" | "h" | "java" | "cs" => (C, "//"),
        _ => (&[], ""),
    }
}

/// One line of code in `lang`, coloured.
pub(crate) fn highlight(code: &str, lang: &str, theme: Theme) -> Line<'static> {
    let (keywords, comment) = language(lang);
    let mut spans = Vec::new();
    let mut plain = String::new();
    let mut chars = code.char_indices().peekable();
    let flush = |plain: &mut String, spans: &mut Vec<Span<'static>>| {
        if !plain.is_empty() {
            spans.push(Span::styled(std::mem::take(plain), theme.plain()));
        }
    };
    while let Some((i, c)) = chars.next() {
        if !comment.is_empty() && code[i..].starts_with(comment) {
            flush(&mut plain, &mut spans);
            spans.push(Span::styled(code[i..].to_string(), theme.comment()));
            return Line::from(spans);
        }
        if c == '"' || c == '\'' || c == '`' {
            flush(&mut plain, &mut spans);
            let mut s = String::from(c);
            let mut escaped = false;
            for (_, d) in chars.by_ref() {
                s.push(d);
                if d == c && !escaped {
                    break;
                }
                escaped = d == '\\' && !escaped;
            }
            spans.push(Span::styled(s, theme.string()));
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut word = String::from(c);
            while let Some(&(_, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                word.push(d);
                chars.next();
            }
            if keywords.contains(&word.as_str()) {
                flush(&mut plain, &mut spans);
                spans.push(Span::styled(word, theme.keyword()));
            } else if word.starts_with(|d: char| d.is_ascii_digit()) {
                flush(&mut plain, &mut spans);
                spans.push(Span::styled(word, theme.number()));
            } else {
                plain.push_str(&word);
            }
            continue;
        }
        plain.push(c);
    }
    flush(&mut plain, &mut spans);
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_strings_comments_are_their_own_spans() {
        let theme = Theme::new(true);
        let cases = [
            (
                "rust",
                "let x = \"a\"; // hi",
                vec!["let", " x = ", "\"a\"", "; ", "// hi"],
            ),
            (
                "py",
                "def f(): return 1",
                vec!["def", " f(): ", "return", " ", "1"],
            ),
            ("text", "let x", vec!["let x"]),
        ];
        for (lang, code, want) in cases {
            let line = highlight(code, lang, theme);
            let got: Vec<String> = line.spans.iter().map(|s| s.content.to_string()).collect();
            assert_eq!(got, want, "{lang}: {code}");
        }
    }
}
