//! The engine: [`QueryEngine`] holds a session (history, usage, denials,
//! content-replacement state) and runs the tool-use loop for each submitted
//! prompt. PUBLIC API SKETCH — to be implemented.

pub mod results;

use std::path::PathBuf;
use std::sync::Arc;

use futures::stream::BoxStream;
use orbit_model::ModelClient;
use orbit_protocol::{EngineEvent, Message};
use orbit_tools::{ToolRegistry, ToolUseContext};

/// Everything that shapes a session.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub model: String,
    pub system_prompt: String,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub max_turns: Option<u32>,
    pub max_budget_usd: Option<f64>,
    pub permissions: orbit_permissions::PermissionConfig,
    /// X2: `ORBIT_MAX_TOOL_USE_CONCURRENCY`, default 10.
    pub max_tool_use_concurrency: usize,
    pub session_id: String,
    pub cwd: PathBuf,
    /// `$ORBIT_HOME`, default `~/.orbit`.
    pub data_dir: PathBuf,
}

/// Cancels the running turn (L5). Cheap to clone, usable from a signal handler task.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle {}

impl AbortHandle {
    pub fn abort(&self) {}
}

pub struct QueryEngine {
    config: EngineConfig,
    client: Arc<dyn ModelClient>,
    tools: ToolRegistry,
    tool_context: ToolUseContext,
    messages: Vec<Message>,
}

impl QueryEngine {
    pub fn new(config: EngineConfig, client: Arc<dyn ModelClient>, tools: ToolRegistry) -> Self {
        let tool_context = ToolUseContext::new(
            config.session_id.clone(),
            config.cwd.clone(),
            config.data_dir.clone(),
        );
        Self {
            config,
            client,
            tools,
            tool_context,
            messages: Vec::new(),
        }
    }

    /// Runs the loop for one user prompt; the stream ends with `EngineEvent::Result`.
    pub fn submit_message(&mut self, _prompt: String) -> BoxStream<'_, EngineEvent> {
        let _ = (&self.config, &self.client, &self.tools);
        Box::pin(futures::stream::empty())
    }

    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle::default()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn session_id(&self) -> &str {
        &self.config.session_id
    }

    pub fn tool_context(&self) -> &ToolUseContext {
        &self.tool_context
    }
}
