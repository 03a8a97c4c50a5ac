//! [`McpManager`]: the session's MCP servers. [`McpManager::start`] spawns
//! one connect task per server and returns at once (the first model request
//! never waits); each task connects, lists the server's tools and publishes
//! them. The manager is a [`ToolSource`]: every request and lookup sees the
//! tools published so far, so tools that arrive late join the next request,
//! and `notifications/tools/list_changed` re-lists them.
//!
//! A call of `mcp__S__T` while `S` is connecting or down finds a stand-in
//! ([`ToolSource::resolve`]) that is not ready ([`Tool::readiness`]): the
//! engine's orchestrator awaits its connection (connecting again when it
//! failed or exited; at most `MCP_TIMEOUT`), then validates the input
//! against the real tool's schema and runs the real call. A server that exits is
//! reported once (a warning) and restarted on its next call; a call cut by
//! the exit answers the model with an error. Dropping the manager drops the
//! connections, which kills each stdio server's process group.

use std::sync::Arc;
use std::time::Duration;

use orbit_tool::{Tool, ToolSource};

use crate::config::{ServerConfig, normalize_name};
use crate::resources::{List, Read, ResourceTool};
use crate::server::{PendingTool, Server, lock};

pub use crate::options::{
    MAX_MCP_OUTPUT_TOKENS_DEFAULT, MCP_CONNECT_TIMEOUT_DEFAULT_MS, MCP_TOOL_TIMEOUT_DEFAULT_MS,
    McpOptions,
};
pub use crate::server::ServerState;

/// One server's name and state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// The configured name.
    pub name: String,
    /// Its state now.
    pub state: ServerState,
}

/// The session's MCP servers and their tools.
pub struct McpManager {
    pub(crate) servers: Vec<Arc<Server>>,
    /// `ListMcpResources` and `ReadMcpResource`.
    resource_tools: Vec<Arc<dyn Tool>>,
}

impl McpManager {
    /// Starts connecting every server in the background (on the current
    /// tokio runtime) and returns at once.
    pub fn start(servers: Vec<(String, ServerConfig)>, options: McpOptions) -> Arc<Self> {
        let options = Arc::new(options);
        let servers: Vec<Arc<Server>> = servers
            .into_iter()
            .map(|(name, config)| Server::new(name, config, &options))
            .collect();
        for server in &servers {
            let server = Arc::clone(server);
            tokio::spawn(async move {
                let _ = server.connection().await;
            });
        }
        let resource_tools = if servers.is_empty() {
            Vec::new()
        } else {
            vec![
                orbit_tool::typed(ResourceTool::<List>::new(servers.clone())),
                orbit_tool::typed(ResourceTool::<Read>::new(servers.clone())),
            ]
        };
        Arc::new(Self {
            servers,
            resource_tools,
        })
    }

    /// Every server's state, in configuration order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|s| ServerStatus {
                name: s.name.clone(),
                state: lock(&s.shared).state.clone(),
            })
            .collect()
    }

    /// Waits until no server is pending, at most `limit`.
    pub async fn wait_settled(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self
            .statuses()
            .iter()
            .any(|s| s.state == ServerState::Pending)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn server_of(&self, tool_name: &str) -> Option<&Arc<Server>> {
        let rest = tool_name.strip_prefix("mcp__")?;
        self.servers.iter().find(|s| {
            rest.strip_prefix(&normalize_name(&s.name))
                .is_some_and(|r| r.starts_with("__"))
        })
    }
}

/// Ending the session ends its servers: each server's tools (which point
/// back at it) and connection are dropped, which kills every stdio
/// server's process group.
impl Drop for McpManager {
    fn drop(&mut self) {
        for server in &self.servers {
            lock(&server.shared).tools.clear();
            if let Ok(mut conn) = server.conn.try_lock() {
                conn.take();
            }
        }
    }
}

impl ToolSource for McpManager {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mcp = self.servers.iter().flat_map(|s| {
            lock(&s.shared)
                .tools
                .iter()
                .map(|t| Arc::clone(t) as Arc<dyn Tool>)
                .collect::<Vec<_>>()
        });
        self.resource_tools.iter().cloned().chain(mcp).collect()
    }

    fn is_pending(&self) -> bool {
        self.servers
            .iter()
            .any(|s| lock(&s.shared).state == ServerState::Pending)
    }

    fn wait_ready(&self) -> orbit_tool::ReadyFuture<'_> {
        let limit = self
            .servers
            .first()
            .map_or(Duration::ZERO, |s| s.options.connect_timeout);
        Box::pin(self.wait_settled(limit))
    }

    fn resolve(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let server = self.server_of(name)?;
        (lock(&server.shared).state != ServerState::Connected).then(|| {
            Arc::new(PendingTool {
                name: name.to_string(),
                server: Arc::clone(server),
            }) as Arc<dyn Tool>
        })
    }
}
