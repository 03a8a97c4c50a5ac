//! An agent file's front matter: a leading `---` … `---` block of simple
//! YAML (`key: value`, values optionally quoted; `tools` also as a YAML
//! list or `[a, b]`), and the body after it (the system prompt).

/// The keys orbit reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Front {
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) model: Option<String>,
}

/// Splits the front matter from the body; None without front matter.
pub(crate) fn parse(content: &str) -> Option<(Front, String)> {
    let rest = content
        .strip_prefix("---\n")
        .or_else(|| content.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = &rest[..offset];
            let body = rest[offset + line.len()..].trim().to_string();
            return Some((fields(front), body));
        }
        offset += line.len();
    }
    None
}

fn fields(front: &str) -> Front {
    let lines: Vec<&str> = front.lines().collect();
    let mut out = Front::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if key.starts_with([' ', '\t', '-']) {
            continue;
        }
        let value = unquote(value.trim());
        match key.trim() {
            "name" => out.name = non_empty(value),
            "description" => out.description = non_empty(value),
            "model" => out.model = non_empty(value),
            "tools" => {
                let mut items = split_list(value);
                // A YAML block list on the next lines.
                while i < lines.len() {
                    let Some(item) = lines[i].trim_start().strip_prefix("- ") else {
                        break;
                    };
                    items.push(unquote(item.trim()).to_string());
                    i += 1;
                }
                out.tools = Some(items);
            }
            _ => {}
        }
    }
    out
}

fn non_empty(value: &str) -> Option<String> {
    (!value.is_empty()).then(|| value.to_string())
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value)
}

/// `Read, Grep` or `[Read, "Grep"]` as names.
pub(crate) fn split_list(value: &str) -> Vec<String> {
    let value = value.trim();
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    inner
        .split(',')
        .map(|item| unquote(item.trim()).trim().to_string())
        .filter(|item| !item.is_empty())
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_keys_and_the_body() {
        let (front, body) = parse(
            "---\nname: reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep\nmodel: inherit\n---\n\nYou review.\n",
        )
        .unwrap();
        assert_eq!(front.name.as_deref(), Some("reviewer"));
        assert_eq!(front.description.as_deref(), Some("Reviews code"));
        assert_eq!(
            front.tools,
            Some(vec!["Read".to_string(), "Grep".to_string()])
        );
        assert_eq!(front.model.as_deref(), Some("inherit"));
        assert_eq!(body, "You review.");
        let (front, _) = parse("---\nname: x\ntools:\n  - Read\n  - Bash\n---\nbody").unwrap();
        assert_eq!(
            front.tools,
            Some(vec!["Read".to_string(), "Bash".to_string()])
        );
        assert!(parse("no front matter").is_none());
    }
}
