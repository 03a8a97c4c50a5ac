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

use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use orbit_tool::{
    CallContext, Readiness, ResultLimit, Tool, ToolCall, ToolError, ToolReadyFuture, ToolSource,
    ToolUseContext,
};
use serde_json::Value;

use crate::client::{ClientError, ConnectOptions, Connection};
use crate::config::{ServerConfig, normalize_name};
use crate::resources::{ListResources, ReadResource};
use crate::tool::McpTool;

/// `MCP_TIMEOUT`'s default: how long connecting may take, in ms.
pub const MCP_CONNECT_TIMEOUT_DEFAULT_MS: u64 = 30_000;
/// `MCP_TOOL_TIMEOUT`'s default: how long one call may take, in ms (as
/// Claude Code: practically unbounded; the user interrupts).
pub const MCP_TOOL_TIMEOUT_DEFAULT_MS: u64 = 100_000_000;
/// `MAX_MCP_OUTPUT_TOKENS`'s default, in tokens.
pub const MAX_MCP_OUTPUT_TOKENS_DEFAULT: usize = 25_000;
/// Chars per token when turning `MAX_MCP_OUTPUT_TOKENS` into a result limit.
const CHARS_PER_TOKEN: usize = 4;

/// How the session's servers are run.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// `MCP_TIMEOUT`: connecting (start + handshake + tool list).
    pub connect_timeout: Duration,
    /// `MCP_TOOL_TIMEOUT`: one tool call.
    pub tool_timeout: Duration,
    /// `MAX_MCP_OUTPUT_TOKENS`: a longer result is persisted (R1) and the
    /// model gets a preview.
    pub max_output_tokens: usize,
    /// Where each stdio server's stderr is appended (`<dir>/<server>.log`).
    pub log_dir: PathBuf,
    /// The working directory of stdio servers.
    pub cwd: PathBuf,
    /// Variables removed from stdio servers' environment.
    pub hidden_env: Vec<String>,
    /// How `{"type": "sdk"}` servers are reached: the control protocol of
    /// the program driving this session; None = such servers fail to
    /// connect with a clear error.
    pub sdk_bridge: Option<crate::sdk_transport::SharedBridge>,
}

impl McpOptions {
    /// Defaults for a session in `cwd` logging to `log_dir`.
    pub fn new(cwd: PathBuf, log_dir: PathBuf) -> Self {
        Self {
            connect_timeout: Duration::from_millis(MCP_CONNECT_TIMEOUT_DEFAULT_MS),
            tool_timeout: Duration::from_millis(MCP_TOOL_TIMEOUT_DEFAULT_MS),
            max_output_tokens: MAX_MCP_OUTPUT_TOKENS_DEFAULT,
            log_dir,
            cwd,
            hidden_env: Vec::new(),
            sdk_bridge: None,
        }
    }
}

impl McpOptions {
    /// R1 for MCP results: `MAX_MCP_OUTPUT_TOKENS` in chars.
    fn result_limit(&self) -> ResultLimit {
        ResultLimit::PersistOver(self.max_output_tokens.saturating_mul(CHARS_PER_TOKEN))
    }
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Connecting.
    Pending,
    /// Connected; its tools are offered.
    Connected,
    /// Could not connect, or exited (restarted on next use); why.
    Failed(String),
}

impl ServerState {
    /// The init line's word: `pending`, `connected`, `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerState::Pending => "pending",
            ServerState::Connected => "connected",
            ServerState::Failed(_) => "failed",
        }
    }
}

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
            .map(|(name, config)| {
                Arc::new_cyclic(|me| Server {
                    log_file: options
                        .log_dir
                        .join(format!("{}.log", normalize_name(&name))),
                    name,
                    config,
                    options: Arc::clone(&options),
                    me: me.clone(),
                    conn: tokio::sync::Mutex::new(None),
                    shared: Mutex::new(Shared {
                        state: ServerState::Pending,
                        tools: Vec::new(),
                        reported: false,
                    }),
                })
            })
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
                orbit_tool::typed(ListResources {
                    servers: servers.clone(),
                }),
                orbit_tool::typed(ReadResource {
                    servers: servers.clone(),
                }),
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

/// One configured server.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) config: ServerConfig,
    options: Arc<McpOptions>,
    log_file: PathBuf,
    me: Weak<Server>,
    /// The live connection; held while connecting, so callers wait for it.
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    pub(crate) shared: Mutex<Shared>,
}

pub(crate) struct Shared {
    pub(crate) state: ServerState,
    pub(crate) tools: Vec<Arc<McpTool>>,
    /// The exit was reported (once per connection).
    reported: bool,
}

impl Server {
    /// The live connection, connecting (or reconnecting after an exit)
    /// first when there is none.
    async fn connection(&self) -> Result<Arc<Connection>, String> {
        let mut guard = self.conn.lock().await;
        if let Some(conn) = guard.as_ref() {
            if !conn.is_closed() {
                return Ok(Arc::clone(conn));
            }
            self.note_exit();
            *guard = None;
        }
        let connected = tokio::time::timeout(self.options.connect_timeout, self.connect()).await;
        let result = match connected {
            Ok(Ok((conn, tools))) => {
                let mut shared = lock(&self.shared);
                shared.state = ServerState::Connected;
                shared.tools = tools;
                shared.reported = false;
                Ok(conn)
            }
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err(format!(
                "did not connect within {} ms (MCP_TIMEOUT)",
                self.options.connect_timeout.as_millis()
            )),
        };
        match result {
            Ok(conn) => {
                *guard = Some(Arc::clone(&conn));
                self.watch_list_changes(&conn);
                Ok(conn)
            }
            Err(err) => {
                tracing::warn!(server = %self.name, %err, "MCP server failed to connect");
                lock(&self.shared).state = ServerState::Failed(err.clone());
                Err(err)
            }
        }
    }

    async fn connect(&self) -> Result<(Arc<Connection>, Vec<Arc<McpTool>>), ClientError> {
        let options = ConnectOptions {
            log_file: self.log_file.clone(),
            hidden_env: self.options.hidden_env.clone(),
            cwd: self.options.cwd.clone(),
            sdk_bridge: self.options.sdk_bridge.clone(),
        };
        let conn = Arc::new(Connection::connect(&self.config, &options).await?);
        let tools = self.tools_of(&conn).await?;
        Ok((conn, tools))
    }

    async fn tools_of(&self, conn: &Connection) -> Result<Vec<Arc<McpTool>>, ClientError> {
        let Some(me) = self.me.upgrade() else {
            return Ok(Vec::new());
        };
        let limit = self.options.result_limit();
        Ok(conn
            .list_tools()
            .await?
            .iter()
            .map(|t| Arc::new(McpTool::new(&me, t, limit)))
            .collect())
    }

    /// Re-lists the tools on `notifications/tools/list_changed`, for the
    /// connection's life.
    fn watch_list_changes(&self, conn: &Arc<Connection>) {
        let weak_conn = Arc::downgrade(conn);
        let me = self.me.clone();
        tokio::spawn(async move {
            loop {
                let Some(conn) = weak_conn.upgrade() else {
                    return;
                };
                let notes = Arc::clone(&conn.notes);
                drop(conn);
                notes.tools_changed.notified().await;
                let (Some(server), Some(conn)) = (me.upgrade(), weak_conn.upgrade()) else {
                    return;
                };
                if let Ok(tools) = server.tools_of(&conn).await {
                    tracing::debug!(server = %server.name, count = tools.len(), "MCP tool list changed");
                    lock(&server.shared).tools = tools;
                }
            }
        });
    }

    /// Reports an exit once per connection.
    fn note_exit(&self) {
        let mut shared = lock(&self.shared);
        if !shared.reported {
            shared.reported = true;
            tracing::warn!(server = %self.name, "MCP server exited; it is restarted on its next use");
        }
        shared.state = ServerState::Failed("the server exited".into());
    }

    /// Calls the server's tool `remote`; the result as JSON, or the text
    /// the model receives as an error.
    pub(crate) async fn call_tool(
        &self,
        remote: &str,
        arguments: serde_json::Map<String, Value>,
        call: &CallContext,
    ) -> Result<Value, String> {
        let conn = self
            .connection()
            .await
            .map_err(|e| format!("MCP server \"{}\" is not connected: {e}", self.name))?;
        let result = conn
            .call_tool(remote, arguments, call, self.options.tool_timeout)
            .await;
        match result {
            Ok(value) => Ok(value),
            Err(ClientError::Closed) => {
                self.note_exit();
                let mut guard = self.conn.lock().await;
                if guard.as_ref().is_some_and(|c| Arc::ptr_eq(c, &conn)) {
                    *guard = None;
                }
                Err(format!(
                    "MCP server \"{}\" disconnected during the call to {remote}; it will be restarted on its next use",
                    self.name
                ))
            }
            Err(ClientError::Timeout(ms)) => Err(format!(
                "MCP server \"{}\" did not answer {remote} within {ms} ms (MCP_TOOL_TIMEOUT); the call was cancelled",
                self.name
            )),
            Err(err) => Err(format!("MCP error from \"{}\": {err}", self.name)),
        }
    }

    /// The server's resources as JSON.
    pub(crate) async fn list_resources(&self) -> Result<Vec<Value>, String> {
        let conn = self.connection().await?;
        conn.list_resources().await.map_err(|e| e.to_string())
    }

    /// One resource of the server as JSON.
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<Value, String> {
        let conn = self.connection().await?;
        conn.read_resource(uri).await.map_err(|e| e.to_string())
    }
}

/// The stand-in for a tool of a server that is connecting or down. It is
/// not ready ([`Tool::readiness`]): the orchestrator awaits [`Tool::ready`]
/// — the connection, at most `MCP_TIMEOUT` — then looks the tool up again
/// and validates the input against the real tool's schema (T3) like any
/// call. It is never parsed itself.
struct PendingTool {
    name: String,
    server: Arc<Server>,
}

static OBJECT_SCHEMA: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::json!({"type": "object"}));

impl Tool for PendingTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        ""
    }
    fn input_schema(&self) -> &Value {
        &OBJECT_SCHEMA
    }
    fn result_limit(&self) -> ResultLimit {
        self.server.options.result_limit()
    }
    fn readiness(&self) -> Readiness {
        Readiness::NotYet {
            within: self.server.options.connect_timeout,
        }
    }
    fn ready(&self) -> ToolReadyFuture<'_> {
        Box::pin(async move {
            self.server
                .connection()
                .await
                .map(drop)
                .map_err(|e| format!("MCP server \"{}\" is not connected: {e}", self.server.name))
        })
    }
    fn parse(&self, _input: Value, _ctx: &ToolUseContext) -> Result<Box<dyn ToolCall>, ToolError> {
        Err(ToolError::Fatal(format!(
            "{}: called before its MCP server was ready",
            self.name
        )))
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}
