//! Subagents: the session spec's side of the `Agent` tool.
//!
//! [`SubagentFactory`] implements [`SubagentLauncher`]. It keeps what the
//! parent's [`SessionSpec`] was made of (provider, model, permission rules
//! and mode, approver, hooks, sandbox launcher, added directories, engine
//! tuning, and the parent's tools — MCP servers' included — without
//! `Agent`) and, for each call, builds the subagent as a session by the
//! same spec: the definition's system prompt and tool set
//! ([`orbit_agents::ToolFilter`]; "read-only" is the tools' own facts),
//! its own history, compaction and max turns, and its own transcript — a
//! sidechain beside the parent's (`orbit_session::sidechain`), recorded by
//! the engine like any session's, so it survives a SIGKILL.
//!
//! - [`run`]: one subagent from its request to its [`SubagentReport`]
//!   (the foreground path; the background one runs the same).
//! - [`background`]: `run_in_background`, listed in the parent's
//!   `BackgroundTasks` until it ends, then a notification for the parent.
//! - [`worktree`]: `isolation: "worktree"`, a fresh `git worktree`
//!   removed when the subagent leaves it clean.

mod background;
mod run;
mod worktree;

use std::path::PathBuf;
use std::sync::Arc;

use orbit_agents::{AgentDefinition, AgentSet, ToolFilter, builtin::GENERAL_PURPOSE};
use orbit_hooks::HookEvent;
use orbit_tool::{
    CallContext, SubagentLauncher, SubagentReport, SubagentRequest, ToolRegistry, ToolUseContext,
    subagent::SubagentLaunch,
};

use crate::parent::{AgentTools, ParentParts};
use crate::provider::Provider;
use crate::spec::{PromptSpec, SessionSpec};

pub use orbit_tool::subagent::{SUBAGENT_COST_KEY, SUBAGENT_EVENT_KEY};

/// How deep subagents may nest (a definition that lists `Agent`).
pub const MAX_SUBAGENT_DEPTH: u32 = 2;

/// Starts subagents for a session's `Agent` tool.
#[derive(Clone)]
pub(crate) struct SubagentFactory {
    pub(crate) parent: ParentParts,
    pub(crate) agents: AgentSet,
    /// The parent's depth: 0 for a main session.
    pub(crate) depth: u32,
}

#[async_trait::async_trait]
impl SubagentLauncher for SubagentFactory {
    fn agent_types(&self) -> Vec<(String, String)> {
        self.agents
            .all()
            .iter()
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect()
    }

    async fn run(
        &self,
        request: SubagentRequest,
        call: &CallContext,
    ) -> Result<SubagentReport, String> {
        self.run_as(&short_id(), request, call, "foreground").await
    }

    fn launch(
        &self,
        request: SubagentRequest,
        call: &CallContext,
        ctx: &ToolUseContext,
    ) -> Result<SubagentLaunch, String> {
        self.launch_background(request, call, ctx)
    }
}

impl SubagentFactory {
    /// The definition the request names (general-purpose by default).
    fn definition(&self, request: &SubagentRequest) -> Result<AgentDefinition, String> {
        let kind = request.subagent_type.as_deref().unwrap_or(GENERAL_PURPOSE);
        self.agents
            .find(kind)
            .cloned()
            .ok_or_else(|| format!("agent type '{kind}' not found"))
    }

    /// The subagent's transcript: a sidechain of the parent's.
    fn sidechain(&self, agent_id: &str) -> PathBuf {
        orbit_session::sidechain_path(
            &self.parent.data_dir,
            &self.parent.cwd,
            &self.parent.session_id,
            agent_id,
        )
    }

    /// The subagent's session spec: the parent's parts, the definition's
    /// prompt, tools and model, working in `cwd` (the parent's, or its
    /// worktree), recorded in `transcript`.
    fn spec(
        &self,
        definition: &AgentDefinition,
        request: &SubagentRequest,
        cwd: PathBuf,
        transcript: PathBuf,
    ) -> SessionSpec {
        let parent = self.parent.clone();
        let mut spec = SessionSpec::new(cwd, parent.data_dir, parent.env);
        // Claude model names are for Anthropic's API; another provider
        // keeps the parent's model (one warning).
        let anthropic =
            matches!(&parent.provider, Provider::Client(c) if c.provider() == "anthropic");
        spec.provider = Some(parent.provider);
        let model = request
            .model
            .as_deref()
            .filter(|m| *m != "inherit")
            .or(definition.model());
        spec.model = Some(match model {
            Some(name) if anthropic => orbit_model::catalog::resolve_alias(name).to_string(),
            Some(name) => {
                eprintln!(
                    "orbit: warning: subagent {}: model {name} is not available from this provider; using {}",
                    definition.name, parent.model
                );
                parent.model
            }
            None => parent.model,
        });
        spec.added_dirs = parent.added_dirs;
        spec.tool_env = parent.tool_env;
        spec.permissions = parent.permissions;
        spec.rules_file = parent.rules_file;
        spec.approver = parent.approver;
        // The parent's tool hooks apply; its turn and session hooks do not
        // fire for a subagent (Claude Code fires SubagentStop instead).
        spec.hooks = parent.hooks.without(&[
            HookEvent::Stop,
            HookEvent::UserPromptSubmit,
            HookEvent::SessionStart,
            HookEvent::SessionEnd,
        ]);
        spec.hook_callbacks = parent.hook_callbacks;
        spec.launcher = parent.launcher;
        spec.profile = Some(parent.profile);
        spec.prompt = PromptSpec {
            replace: Some(definition.prompt.clone()),
            append: None,
            trusted: parent.trusted,
            deny_paths: Vec::new(),
        };
        let mut tuning = parent.tuning;
        tuning.structured_output = None;
        tuning.transcript_path = Some(transcript);
        spec.tuning = tuning;
        spec.persist = true;
        spec.log = Box::new(|line| eprintln!("orbit: warning: subagent: {line}"));
        let mut tools = parent.tools;
        let nests = matches!(&definition.tools, ToolFilter::Only(names) if names.iter().any(|n| n == crate::spec::AGENT_TOOL));
        // A restricted set is taken from every tool now (MCP servers'
        // included), so no tool it does not name arrives later.
        let keep = |t: &dyn orbit_tool::Tool| match &definition.tools {
            ToolFilter::All => true,
            ToolFilter::ReadOnly => t.read_only(),
            ToolFilter::Only(names) => names.iter().any(|n| n == t.name()),
        };
        if definition.tools != ToolFilter::All {
            let mut only = ToolRegistry::new();
            for tool in tools.tools() {
                if keep(tool.as_ref()) {
                    only.register(tool);
                }
            }
            tools = only;
        }
        spec.tools = Some(tools);
        if nests && self.depth + 1 < MAX_SUBAGENT_DEPTH {
            spec.offer_agents_at(self.agents.clone(), self.depth + 1);
        }
        spec
    }
}

impl SessionSpec {
    /// Offers these subagent types through the `Agent` tool (not in the
    /// small-model profile): each call starts a session built by this same
    /// spec from the parent's parts.
    pub fn offer_agents(&mut self, agents: AgentSet) {
        self.offer_agents_at(agents, 0);
    }

    fn offer_agents_at(&mut self, agents: AgentSet, depth: u32) {
        self.agents = Some(AgentTools {
            agents,
            depth,
            launch: launcher,
        });
    }
}

/// The `Agent` tool's launcher for a session with these parts.
fn launcher(parent: ParentParts, agents: AgentSet, depth: u32) -> Arc<dyn SubagentLauncher> {
    Arc::new(SubagentFactory {
        parent,
        agents,
        depth,
    })
}

/// A short id for a subagent (17 hex digits, as Claude Code's).
fn short_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("a{}", &id[..16])
}
