//! [`Server`]: one configured MCP server — its connection (connected on
//! first need, reconnected after an exit, which is reported once), its
//! published tools and state, the calls made through it, and the
//! [`PendingTool`] stand-in offered while it connects. The manager owns the
//! list of servers; the tools and resource tools hold a server and call
//! through it ([`ToolServer`] for tools, so `tool` does not depend on this
//! module).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use async_trait::async_trait;
use orbit_tool::{
    CallContext, Readiness, ResultLimit, Tool, ToolCall, ToolError, ToolReadyFuture, ToolUseContext,
};
use serde_json::Value;

use crate::client::{ClientError, ConnectOptions, Connection};
use crate::config::{ServerConfig, normalize_name};
use crate::options::McpOptions;
use crate::tool::{McpTool, ToolServer};

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

/// One configured server.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) config: ServerConfig,
    pub(crate) options: Arc<McpOptions>,
    log_file: PathBuf,
    me: Weak<Server>,
    /// The live connection; held while connecting, so callers wait for it.
    pub(crate) conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    pub(crate) shared: Mutex<Shared>,
}

pub(crate) struct Shared {
    pub(crate) state: ServerState,
    pub(crate) tools: Vec<Arc<McpTool>>,
    /// The exit was reported (once per connection).
    reported: bool,
}

impl Server {
    /// A server named `name`, not yet connected (state pending); its stdio
    /// stderr goes to `<log_dir>/<name>.log`.
    pub(crate) fn new(name: String, config: ServerConfig, options: &Arc<McpOptions>) -> Arc<Self> {
        Arc::new_cyclic(|me| Server {
            log_file: options
                .log_dir
                .join(format!("{}.log", normalize_name(&name))),
            name,
            config,
            options: Arc::clone(options),
            me: me.clone(),
            conn: tokio::sync::Mutex::new(None),
            shared: Mutex::new(Shared {
                state: ServerState::Pending,
                tools: Vec::new(),
                reported: false,
            }),
        })
    }

    /// The live connection, connecting (or reconnecting after an exit)
    /// first when there is none.
    pub(crate) async fn connection(&self) -> Result<Arc<Connection>, String> {
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
            .map(|t| {
                let server: Arc<dyn ToolServer> = Arc::clone(&me) as Arc<dyn ToolServer>;
                Arc::new(McpTool::new(server, &self.name, t, limit))
            })
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

#[async_trait]
impl ToolServer for Server {
    /// Calls the server's tool `remote`; the result as JSON, or the text
    /// the model receives as an error.
    async fn call_tool(
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
}

/// The stand-in for a tool of a server that is connecting or down. It is
/// not ready ([`Tool::readiness`]): the orchestrator awaits [`Tool::ready`]
/// — the connection, at most `MCP_TIMEOUT` — then looks the tool up again
/// and validates the input against the real tool's schema (T3) like any
/// call. It is never parsed itself.
pub(crate) struct PendingTool {
    /// The tool's full name, `mcp__S__T`.
    pub(crate) name: String,
    /// Its server.
    pub(crate) server: Arc<Server>,
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
