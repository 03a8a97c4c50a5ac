//! What some of Claude Code's flags mean beyond parsing (issue 31):
//! `-d FILTER`'s categories as an env-filter, the `--system-prompt-file` /
//! `--append-system-prompt-file` contents (read through `orbit_untrusted`),
//! and the built-in tools `--tools` keeps. [`crate::args::Args`] holds the
//! values; `main` and `setup` ask these methods.

use crate::args::Args;

impl Args {
    /// The env-filter `-d FILTER` stands for (None: no `-d`, or `-d`
    /// without categories): Claude Code's categories (`hooks,mcp`, or
    /// `!hooks,!mcp` for all but those) mapped to orbit's crates, which
    /// log at debug level; everything else stays at warn. A name that is
    /// neither a category nor an `orbit_*` crate is returned in the error.
    pub fn debug_filter(&self) -> Result<Option<String>, String> {
        let Some(spec) = self
            .debug
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        else {
            return Ok(None);
        };
        let mut include = Vec::new();
        let mut exclude = Vec::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (negated, name) = match item.strip_prefix('!') {
                Some(rest) => (true, rest.trim()),
                None => (false, item),
            };
            let targets = debug_targets(name).ok_or_else(|| name.to_string())?;
            if negated {
                exclude.extend(targets);
            } else {
                include.extend(targets);
            }
        }
        let mut directives = vec!["warn".to_string()];
        if include.is_empty() {
            directives.push("orbit=debug".to_string());
        }
        directives.extend(include.iter().map(|t| format!("{t}=debug")));
        directives.extend(exclude.iter().map(|t| format!("{t}=warn")));
        Ok(Some(directives.join(",")))
    }

    /// The system prompt's replacement and addition: `--system-prompt` /
    /// `--append-system-prompt`, or the contents of the files
    /// `--system-prompt-file` / `--append-system-prompt-file` name (read
    /// through `orbit_untrusted`: a user-named file, links followed, a pipe
    /// read, at most 1 MiB, else an error naming the flag).
    pub fn system_prompt_texts(&self) -> anyhow::Result<(Option<String>, Option<String>)> {
        let read = |flag: &str, path: &std::path::Path| -> anyhow::Result<String> {
            let opts = orbit_untrusted::ReadOpts::user_named(SYSTEM_PROMPT_FILE_MAX_BYTES)
                .refuse_over_cap();
            let file = orbit_untrusted::read_untrusted(path, &opts)
                .map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))?;
            Ok(file.text())
        };
        let replace = match &self.system_prompt_file {
            Some(path) => Some(read("--system-prompt-file", path)?),
            None => self.system_prompt.clone(),
        };
        let append = match &self.append_system_prompt_file {
            Some(path) => Some(read("--append-system-prompt-file", path)?),
            None => self.append_system_prompt.clone(),
        };
        Ok((replace, append))
    }

    /// The built-in tools `--tools` names (None: the flag is absent or
    /// says `default`; empty: `""`, no built-in tool).
    pub fn tool_selection(&self) -> Option<Vec<String>> {
        let values = self.tools.as_ref()?;
        let names: Vec<String> = values
            .iter()
            .flat_map(|v| v.split([',', ' ']))
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        if names.iter().any(|n| n == "default") {
            return None;
        }
        Some(names)
    }
}

/// The largest `--system-prompt-file` / `--append-system-prompt-file`.
const SYSTEM_PROMPT_FILE_MAX_BYTES: usize = 1024 * 1024;

/// Keeps only the built-in tools `--tools` names (all without the flag);
/// a name orbit has no tool for is a one-line warning.
pub fn select_tools(args: &Args, tools: &mut orbit_tool::ToolRegistry) {
    let Some(names) = args.tool_selection() else {
        return;
    };
    let disallowed = args.disallowed_tool_rules();
    for name in &names {
        let agent = name == "Agent" || name == "Task";
        if tools.find(name).is_none() && !disallowed.contains(name) && !agent {
            crate::term_safe::eprintln_safe!(
                "orbit: warning: --tools names `{name}`, which is not a tool orbit has"
            );
        }
    }
    tools.retain(|t| names.iter().any(|n| n == t.name()));
}

/// Claude Code's `--debug` categories and the orbit crates that log them.
const DEBUG_CATEGORIES: &[(&str, &[&str])] = &[
    ("api", &["orbit_model"]),
    ("hooks", &["orbit_hooks"]),
    ("mcp", &["orbit_mcp"]),
    ("permissions", &["orbit_permissions"]),
    ("tools", &["orbit_tools", "orbit_tool"]),
    ("sandbox", &["orbit_sandbox"]),
    ("session", &["orbit_session"]),
    ("config", &["orbit_config"]),
    ("settings", &["orbit_config"]),
    ("engine", &["orbit_engine"]),
    ("sdk", &["orbit_sdk"]),
];

/// The log targets of one `-d` name: a category, or an orbit crate's
/// target given as is (`orbit_model`); None for anything else.
fn debug_targets(name: &str) -> Option<Vec<String>> {
    if let Some((_, targets)) = DEBUG_CATEGORIES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(name))
    {
        return Some(targets.iter().map(|t| t.to_string()).collect());
    }
    let crate_like = name.starts_with("orbit")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    crate_like.then(|| vec![name.to_string()])
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::args::Args;

    fn filter(argv: &[&str]) -> Result<Option<String>, String> {
        let argv = ["orbit", "-p", "x"].iter().chain(argv).copied();
        Args::try_parse_from(argv)
            .unwrap_or_else(|e| panic!("{e}"))
            .debug_filter()
    }

    #[test]
    fn debug_categories_become_an_env_filter() {
        assert_eq!(filter(&[]), Ok(None));
        assert_eq!(filter(&["-d"]), Ok(None));
        assert_eq!(
            filter(&["-d", "api,hooks"]),
            Ok(Some("warn,orbit_model=debug,orbit_hooks=debug".into()))
        );
        assert_eq!(
            filter(&["--debug=!mcp"]),
            Ok(Some("warn,orbit=debug,orbit_mcp=warn".into()))
        );
        assert_eq!(
            filter(&["-d", "orbit_engine"]),
            Ok(Some("warn,orbit_engine=debug".into()))
        );
        assert_eq!(filter(&["-d", "statsig"]), Err("statsig".into()));
    }

    #[test]
    fn tools_selection_splits_and_knows_default() {
        let tools = |argv: &[&str]| {
            let argv = ["orbit", "-p", "x"].iter().chain(argv).copied();
            Args::try_parse_from(argv)
                .unwrap_or_else(|e| panic!("{e}"))
                .tool_selection()
        };
        assert_eq!(tools(&[]), None);
        assert_eq!(tools(&["--tools", "default"]), None);
        assert_eq!(tools(&["--tools", ""]), Some(vec![]));
        assert_eq!(
            tools(&["--tools", "Read,Bash", "Grep"]),
            Some(vec!["Read".into(), "Bash".into(), "Grep".into()])
        );
    }
}
