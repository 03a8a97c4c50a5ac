//! Front matter of a command file: a leading `---` … `---` block of simple
//! YAML (`key: value`, values optionally quoted; `allowed-tools` also as a
//! YAML list or `[a, b]`). Unknown keys are ignored.

/// The keys orbit reads from a command's front matter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// `description:` — shown in the completion popup and the help list.
    pub description: Option<String>,
    /// `argument-hint:` — what the command expects, shown after its name.
    pub argument_hint: Option<String>,
    /// `allowed-tools:` — allow rules granted while the command's prompt runs.
    pub allowed_tools: Vec<String>,
    /// `model:` — the model for the command's prompt.
    pub model: Option<String>,
}

/// Splits `---\n…\n---` front matter from the body (command and agent
/// files share the format).
pub fn split_front_matter(content: &str) -> (Option<&str>, &str) {
    let Some(rest) = content
        .strip_prefix("---\n")
        .or_else(|| content.strip_prefix("---\r\n"))
    else {
        return (None, content);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            return (Some(&rest[..offset]), body.trim_start_matches(['\r', '\n']));
        }
        offset += line.len();
    }
    (None, content)
}

impl FrontMatter {
    /// Reads the keys orbit knows from the front matter text.
    pub fn parse(front: &str) -> Self {
        let lines: Vec<&str> = front.lines().collect();
        Self {
            description: field(&lines, "description"),
            argument_hint: hint_field(&lines),
            allowed_tools: list_field(&lines, "allowed-tools"),
            model: field(&lines, "model"),
        }
    }
}

/// A scalar `key: value` of front matter text, unquoted; None when missing
/// or empty (for other files in the same format, such as agent files).
pub fn front_scalar(front: &str, key: &str) -> Option<String> {
    field(&front.lines().collect::<Vec<_>>(), key)
}

/// A list value of front matter text (`A, B`, `[A, B]` or `- A` lines);
/// None when the key is missing.
pub fn front_list(front: &str, key: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = front.lines().collect();
    raw(&lines, key)?;
    Some(list_field(&lines, key))
}

/// `A, B` or `[A, "B"]` as items (commas inside parentheses kept).
pub fn split_list(value: &str) -> Vec<String> {
    let value = value.trim();
    let value = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    split_top_level(value)
        .into_iter()
        .map(|item| unquote(item.trim()).trim().to_string())
        .filter(|item| !item.is_empty())
        .collect()
}

/// The raw value after `key:` on a top-level line, and the line's index.
fn raw<'a>(lines: &[&'a str], key: &str) -> Option<(usize, &'a str)> {
    lines.iter().enumerate().find_map(|(i, line)| {
        let value = line.strip_prefix(key)?.trim_start().strip_prefix(':')?;
        Some((i, value.trim()))
    })
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value)
}

/// A scalar `key: value`, unquoted; None when missing or empty.
fn field(lines: &[&str], key: &str) -> Option<String> {
    let (_, value) = raw(lines, key)?;
    let value = unquote(value).trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// `argument-hint:` as Claude Code 2.1.332 reads it: YAML, so an unquoted
/// `[file]` is a one-item list and shows as `file` (items joined with
/// `,`, as JavaScript prints an array); a quoted value stays as written.
fn hint_field(lines: &[&str]) -> Option<String> {
    let (_, value) = raw(lines, "argument-hint")?;
    if value.starts_with('[') && value.ends_with(']') {
        let items = list_field(lines, "argument-hint");
        return (!items.is_empty()).then(|| items.join(","));
    }
    field(lines, "argument-hint")
}

/// A list: `key: A, B(x, y)` (split on commas outside parentheses),
/// `key: [A, B]`, or `key:` followed by `- A` lines.
fn list_field(lines: &[&str], key: &str) -> Vec<String> {
    let Some((at, value)) = raw(lines, key) else {
        return Vec::new();
    };
    if value.is_empty() {
        return lines[at + 1..]
            .iter()
            .map_while(|l| {
                l.trim_start()
                    .strip_prefix("- ")
                    .or_else(|| (l.trim() == "-").then_some(""))
            })
            .map(|item| unquote(item.trim()).trim().to_string())
            .filter(|item| !item.is_empty())
            .collect();
    }
    split_list(value)
}

/// Splits on commas not inside parentheses (`Bash(git add:*), Read`).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_four_keys_in_their_forms() {
        let front = "description: \"Review a file\"\nargument-hint: [file]\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\nmodel: haiku\nother: x";
        let f = FrontMatter::parse(front);
        assert_eq!(f.description.as_deref(), Some("Review a file"));
        assert_eq!(f.argument_hint.as_deref(), Some("file"));
        let quoted = FrontMatter::parse("argument-hint: \"[file] [line]\"");
        assert_eq!(quoted.argument_hint.as_deref(), Some("[file] [line]"));
        assert_eq!(
            f.allowed_tools,
            ["Bash(git add:*)", "Bash(git status:*)", "Read"]
        );
        assert_eq!(f.model.as_deref(), Some("haiku"));
        let listed = FrontMatter::parse("allowed-tools:\n  - Bash(echo:*)\n  - 'Read'\nmodel: x");
        assert_eq!(listed.allowed_tools, ["Bash(echo:*)", "Read"]);
        let flow = FrontMatter::parse("allowed-tools: [Bash(echo:*), Read]");
        assert_eq!(flow.allowed_tools, ["Bash(echo:*)", "Read"]);
        assert_eq!(FrontMatter::parse("model:"), FrontMatter::default());
    }

    #[test]
    fn splits_front_matter_from_the_body() {
        let (front, body) = split_front_matter("---\nmodel: x\n---\n\nBody\n");
        assert_eq!(front, Some("model: x\n"));
        assert_eq!(body, "Body\n");
        assert_eq!(split_front_matter("No front\n"), (None, "No front\n"));
        assert_eq!(
            split_front_matter("---\nunclosed\n"),
            (None, "---\nunclosed\n")
        );
    }
}
