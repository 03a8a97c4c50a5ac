//! The session's subagent definitions (`orbit_agents`): the built-in
//! types, the user's and — in a trusted folder — the project's agent files
//! (one warning per skipped file), then `--agents JSON`.

use std::path::Path;

use orbit::{AgentSet, AgentSource, AgentSources};

use crate::args::Args;

/// The definitions for a session in `cwd`.
pub fn load(args: &Args, config: &orbit_config::Config, cwd: &Path) -> anyhow::Result<AgentSet> {
    let sources = AgentSources {
        project_root: cwd.to_path_buf(),
        home: config.env.path(orbit_config::vars::HOME),
        claude_config_dir: orbit_config::claude_code::claude_config_dir(&config.env),
        trusted: config.project_trusted,
    };
    let mut set = AgentSet::load(&sources);
    for warning in &set.warnings {
        crate::term_safe::eprintln_safe!("orbit: warning: {warning}");
    }
    if let Some(text) = &args.sdk.agents {
        set.add_json(text, AgentSource::Flag)?;
    }
    Ok(set)
}
