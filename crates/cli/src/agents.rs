//! The session's subagent definitions (`orbit_agents`): the built-in
//! types, the user's and — in a trusted folder — the project's agent files
//! (one warning per skipped file), then `--agents JSON` and the SDK's
//! `agents`; and `--agent NAME`, the main session run as one of them.

use std::path::Path;

use orbit::{AgentSet, AgentSource, AgentSources, SessionSpec, ToolFilter};
use serde_json::{Map, Value};

use crate::args::Args;

/// The definitions for a session in `cwd`.
pub fn load(
    args: &Args,
    config: &orbit_config::Config,
    cwd: &Path,
    sdk: Option<&Map<String, Value>>,
) -> anyhow::Result<AgentSet> {
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
    if let Some(agents) = sdk {
        set.add_value(&Value::Object(agents.clone()), AgentSource::Sdk)?;
    }
    Ok(set)
}

/// Whether the session offers the `Agent` tool: unless `--tools` leaves
/// it out or `--disallowedTools` names it (`Task` is its old name).
pub fn offered(args: &Args) -> bool {
    let named = |names: &[String]| names.iter().any(|n| n == "Agent" || n == "Task");
    let selected = args.tool_selection().is_none_or(|names| named(&names));
    selected && !named(&args.disallowed_tool_rules())
}

/// `--agent NAME`: the main session gets the agent's system prompt (unless
/// `--system-prompt` replaces it), its tools and its model.
pub fn main_agent(args: &Args, set: &AgentSet, spec: &mut SessionSpec) -> anyhow::Result<()> {
    let Some(name) = &args.sdk.agent else {
        return Ok(());
    };
    let Some(agent) = set.find(name) else {
        anyhow::bail!(
            "agent '{name}' not found (available: {})",
            set.names().join(", ")
        );
    };
    if spec.prompt.replace.is_none() {
        spec.prompt.replace = Some(agent.prompt.clone());
    }
    if let Some(tools) = spec.tools.as_mut() {
        match &agent.tools {
            ToolFilter::All => {}
            ToolFilter::ReadOnly => tools.retain(|t| t.read_only()),
            ToolFilter::Only(names) => tools.retain(|t| names.iter().any(|n| n == t.name())),
        }
    }
    if let Some(model) = agent.model() {
        spec.model = Some(orbit_model::catalog::resolve_alias(model).to_string());
    }
    Ok(())
}
