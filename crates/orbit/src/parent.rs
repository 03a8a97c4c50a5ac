//! What a session hands to its subagents, kept apart from both sides so the
//! session spec and the subagent launcher do not import each other:
//! [`ParentParts`] (what the parent's `SessionSpec` was made of) and
//! [`AgentTools`] (the subagent types a session offers, with the function
//! that turns the parts into the `Agent` tool's launcher). Data flow:
//! `SessionSpec::offer_agents` (crate::subagent) stores an `AgentTools` in
//! the spec → `SessionSpec::build` fills a `ParentParts` and calls
//! [`AgentTools::launch`] → the launcher builds each subagent by the same
//! spec.

use std::path::PathBuf;
use std::sync::Arc;

use orbit_agents::AgentSet;
use orbit_config::Env;
use orbit_engine::{EngineConfig, SharedApprover};
use orbit_hooks::{HookCallbacks, HookSet};
use orbit_permissions::PermissionConfig;
use orbit_tool::{CommandLauncher, SubagentLauncher, ToolRegistry};

use crate::profile::ModelProfile;
use crate::provider::Provider;

/// What a subagent's session is made of, from its parent's spec.
#[derive(Clone)]
pub(crate) struct ParentParts {
    pub(crate) provider: Provider,
    pub(crate) model: String,
    pub(crate) session_id: String,
    pub(crate) cwd: PathBuf,
    pub(crate) added_dirs: Vec<PathBuf>,
    pub(crate) data_dir: PathBuf,
    pub(crate) env: Env,
    pub(crate) tool_env: Vec<(String, std::ffi::OsString)>,
    pub(crate) permissions: PermissionConfig,
    pub(crate) rules_file: Option<PathBuf>,
    pub(crate) approver: Option<SharedApprover>,
    pub(crate) hooks: HookSet,
    pub(crate) hook_callbacks: Option<Arc<dyn HookCallbacks>>,
    pub(crate) launcher: Option<CommandLauncher>,
    pub(crate) profile: ModelProfile,
    pub(crate) tuning: EngineConfig,
    pub(crate) trusted: bool,
    /// The parent's tools (MCP included), without `Agent`.
    pub(crate) tools: ToolRegistry,
}

/// The subagent types a session's `Agent` tool may start, how deep the
/// session is in a chain of subagents (0: a main one), and the function that
/// makes the tool's launcher from the parent's parts.
pub(crate) struct AgentTools {
    pub(crate) agents: AgentSet,
    pub(crate) depth: u32,
    pub(crate) launch: fn(ParentParts, AgentSet, u32) -> Arc<dyn SubagentLauncher>,
}

impl std::fmt::Debug for AgentTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTools")
            .field("agents", &self.agents.all().len())
            .field("depth", &self.depth)
            .finish()
    }
}
