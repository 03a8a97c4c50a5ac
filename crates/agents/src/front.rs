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

/// Splits the front matter from the body; None without front matter. The
/// format is the command files' (`orbit_commands`' reader).
pub(crate) fn parse(content: &str) -> Option<(Front, String)> {
    let (front, body) = orbit_commands::split_front_matter(content);
    let front = front?;
    let out = Front {
        name: orbit_commands::front_scalar(front, "name"),
        description: orbit_commands::front_scalar(front, "description"),
        tools: orbit_commands::front_list(front, "tools"),
        model: orbit_commands::front_scalar(front, "model"),
    };
    Some((out, body.trim().to_string()))
}

/// `Read, Grep` or `[Read, "Grep"]` as names.
pub(crate) fn split_list(value: &str) -> Vec<String> {
    orbit_commands::split_list(value)
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
