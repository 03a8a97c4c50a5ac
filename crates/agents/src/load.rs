//! Reading agent files: every `*.md` of the user's and the project's agent
//! folders, through `orbit_untrusted` (a FIFO, a device, a link out of the
//! project or a file over [`AGENT_FILE_MAX_BYTES`] is skipped with one
//! warning). A project's folders are read only when the folder is trusted.

use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, read_untrusted};

use crate::{AgentDefinition, AgentSource, ToolFilter};

/// Largest agent file read.
pub const AGENT_FILE_MAX_BYTES: usize = 100 * 1024 * 1024;

/// Where agent files come from.
#[derive(Debug, Clone)]
pub struct AgentSources {
    /// The project directory (its `.claude/agents`, `.orbit/agents`).
    pub project_root: PathBuf,
    /// The home directory (`~/.orbit/agents`, and `~/.claude/agents` when
    /// no Claude config directory is set). None: no user agents.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`, used instead of `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// Whether the project folder is trusted: an untrusted one's agents do
    /// not load.
    pub trusted: bool,
}

/// The definitions found (lowest precedence first) and the warnings.
pub(crate) fn read_all(sources: &AgentSources) -> (Vec<AgentDefinition>, Vec<String>) {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    let claude = sources
        .claude_config_dir
        .clone()
        .or_else(|| sources.home.as_ref().map(|h| h.join(".claude")));
    let mut dirs = Vec::new();
    if let Some(claude) = claude {
        dirs.push((claude.join("agents"), AgentSource::User));
    }
    if let Some(home) = &sources.home {
        dirs.push((home.join(".orbit/agents"), AgentSource::User));
    }
    if sources.trusted {
        dirs.push((
            sources.project_root.join(".claude/agents"),
            AgentSource::Project,
        ));
        dirs.push((
            sources.project_root.join(".orbit/agents"),
            AgentSource::Project,
        ));
    }
    for (dir, source) in dirs {
        let opts = match source {
            AgentSource::Project => {
                ReadOpts::in_project(&sources.project_root, AGENT_FILE_MAX_BYTES)
            }
            _ => ReadOpts::user_file(AGENT_FILE_MAX_BYTES),
        }
        .refuse_over_cap();
        for path in md_files(&dir) {
            match read_one(&path, &opts, source) {
                Ok(Some(definition)) => found.push(definition),
                Ok(None) => {}
                Err(why) => warnings.push(format!("skipped agent file {}: {why}", path.display())),
            }
        }
    }
    (found, warnings)
}

/// The `*.md` entries of `dir`, sorted (none when it is missing).
fn md_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    paths.sort();
    paths
}

/// One file's definition; Ok(None) for a file without front matter or
/// without `name`/`description` (not an agent, as Claude Code skips it).
fn read_one(
    path: &Path,
    opts: &ReadOpts<'_>,
    source: AgentSource,
) -> Result<Option<AgentDefinition>, String> {
    let file = read_untrusted(path, opts).map_err(|e| e.to_string())?;
    let text = file.text();
    let Some((front, body)) = crate::front::parse(&text) else {
        return Ok(None);
    };
    let (Some(name), Some(description)) = (front.name, front.description) else {
        return Ok(None);
    };
    Ok(Some(AgentDefinition {
        name,
        description,
        prompt: body,
        tools: front.tools.map_or(ToolFilter::All, ToolFilter::Only),
        model: front.model,
        source,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use orbit_test_support::files::{mkfifo, put};

    use super::*;
    use crate::AgentSet;

    #[test]
    fn user_and_project_agents_load_and_untrusted_projects_do_not() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let config = home.path().join("cc");
        put(
            &config,
            "agents/mine.md",
            "---\nname: mine\ndescription: user agent\n---\nUser prompt",
        );
        put(
            home.path(),
            ".claude/agents/ignored.md",
            "---\nname: ignored\ndescription: not read with CLAUDE_CONFIG_DIR\n---\nx",
        );
        put(
            project.path(),
            ".claude/agents/reviewer.md",
            "---\nname: reviewer\ndescription: reviews\ntools: Read, Grep\n---\nYou review.",
        );
        mkfifo(&project.path().join(".claude/agents/fifo.md"));
        let mut sources = AgentSources {
            project_root: project.path().canonicalize().unwrap(),
            home: Some(home.path().to_path_buf()),
            claude_config_dir: Some(config),
            trusted: true,
        };
        let set = AgentSet::load(&sources);
        assert!(set.find("mine").is_some());
        assert!(set.find("ignored").is_none());
        let reviewer = set.find("reviewer").unwrap();
        assert_eq!(reviewer.prompt, "You review.");
        assert_eq!(
            reviewer.tools,
            ToolFilter::Only(vec!["Read".into(), "Grep".into()])
        );
        assert_eq!(set.warnings.len(), 1, "{:?}", set.warnings);
        assert!(set.warnings[0].contains("fifo.md"));
        sources.trusted = false;
        let set = AgentSet::load(&sources);
        assert!(set.find("reviewer").is_none());
        assert!(set.find("mine").is_some());
        assert!(set.find("Explore").is_some());
    }
}
