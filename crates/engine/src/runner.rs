//! [`ToolRunner`]: a session's tools without a conversation — the narrow
//! entry for a front end that runs one call at a time for someone else
//! (`orbit mcp serve`).
//!
//! Data flow: `ToolRunner::new(config, tools)` builds the same
//! `ToolRuntime` a [`crate::QueryEngine`] builds (policy compiled for the
//! project root, read-deny filter, result storage, hooks, approver), and
//! [`ToolRunner::run_one`] takes one tool_use through the orchestrator's
//! two steps (`prepare`, then `run_tool_use`: validation → hooks →
//! permission gate → call → result pipeline), exactly as the query loop
//! does for the model's calls.

use std::path::PathBuf;
use std::sync::Arc;

use orbit_protocol::{ToolResultBlock, ToolUseBlock};
use orbit_tool::{ToolRegistry, ToolUseContext};
use tokio_util::sync::CancellationToken;

use crate::config::EngineConfig;
use crate::denials::Denials;
use crate::executor::StreamingToolExecutor;
use crate::orchestrator::run_single;
use crate::runtime::ToolRuntime;

/// The tools of a session, run one call at a time.
pub struct ToolRunner {
    runtime: Arc<ToolRuntime>,
}

impl ToolRunner {
    /// The runner of a session configured by `config` (its cwd, data dir,
    /// session id, permissions, approver, rules file, hooks and concurrency
    /// cap; the model settings are not used) over `tools`. There is no
    /// transcript: hooks are told an empty `transcript_path`.
    pub fn new(config: &EngineConfig, tools: ToolRegistry) -> Self {
        let root = config
            .cwd
            .canonicalize()
            .unwrap_or_else(|_| config.cwd.clone());
        let context = ToolUseContext::new(config.session_id.clone(), root, config.data_dir.clone());
        let runtime = ToolRuntime::new(config, tools, context, PathBuf::new(), Denials::default());
        Self {
            runtime: Arc::new(runtime),
        }
    }

    /// The tools this runner runs.
    pub fn tools(&self) -> &ToolRegistry {
        &self.runtime.tools
    }

    /// The state shared by the runner's calls (environment, launcher,
    /// allowed directories, cwd).
    pub fn tool_context(&self) -> &ToolUseContext {
        &self.runtime.context
    }

    /// Runs one call to its tool_result: unknown tools and invalid input
    /// are answered with the model's texts, every other call goes through
    /// the permission gate (headless unless the config has an approver)
    /// and the result pipeline.
    pub async fn run_one(&self, call: ToolUseBlock, cancel: CancellationToken) -> ToolResultBlock {
        let id = call.id.clone();
        match run_single(&self.runtime, call, cancel).await {
            Ok(outcome) => outcome.result,
            Err(text) => ToolResultBlock::text(&id, text.unwrap_or_default(), true),
        }
    }

    /// An executor over this runner's tools (X1–X5), for running a whole
    /// message's calls as the query loop does.
    pub fn executor(&self, cancel: CancellationToken) -> StreamingToolExecutor {
        StreamingToolExecutor::new(Arc::clone(&self.runtime), cancel)
    }
}
