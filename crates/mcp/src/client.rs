//! One live connection to one MCP server: connect over stdio (a child in
//! its own process group, stderr appended to a log file, the group killed
//! when the connection is dropped) or streamable HTTP (headers from the
//! config), list its tools, call a tool with cancellation, progress and a
//! timeout, list and read resources.
//!
//! Data flow of a call: [`Connection::call_tool`] sends `tools/call`
//! (rmcp adds a progress token) → while it waits, progress notifications
//! for that token reach the call's `CallContext` as `tool_progress`; the
//! call's cancel token or the timeout sends `notifications/cancelled` →
//! the result as JSON (`content`, `isError`, `structuredContent`), mapped
//! by `crate::tool`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use orbit_tool::{CallContext, ToolProgress};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, Implementation, ProgressNotificationParam, ProgressToken,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::sync::Notify;

use crate::config::ServerConfig;

/// Why connecting or calling failed, as one line for a person or the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The server could not be started or reached, or the handshake failed.
    #[error("{0}")]
    Connect(String),
    /// The connection closed (the server exited or crashed).
    #[error("the server disconnected")]
    Closed,
    /// No answer within the timeout.
    #[error("no answer within {0} ms")]
    Timeout(u128),
    /// The call was cancelled (interrupt or sibling abort).
    #[error("cancelled")]
    Cancelled,
    /// The server answered with an error or something unexpected.
    #[error("{0}")]
    Protocol(String),
}

/// What a server's notifications change, shared with the connection's handler.
#[derive(Default)]
pub(crate) struct Notifications {
    /// Calls waiting for progress, by progress token.
    progress: Mutex<HashMap<ProgressToken, CallContext>>,
    /// Fires on `notifications/tools/list_changed`.
    pub(crate) tools_changed: Notify,
}

/// The client side of rmcp: routes progress to the running call, notes
/// list changes.
#[derive(Clone)]
struct Handler {
    notes: Arc<Notifications>,
}

impl ClientHandler for Handler {
    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let call = lock(&self.notes.progress)
            .get(&params.progress_token)
            .cloned();
        if let Some(call) = call {
            call.progress(ToolProgress::Other(serde_json::json!({
                "progress": params.progress,
                "total": params.total,
                "message": params.message,
            })));
        }
        std::future::ready(())
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.notes.tools_changed.notify_one();
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("orbit", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Kills a stdio server's process group when the connection goes.
struct ChildGroup {
    child: tokio::process::Child,
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id().and_then(|p| i32::try_from(p).ok()) {
            // The child leads its own group (process_group(0)): this reaches
            // whatever it started too (npx → node).
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.start_kill();
    }
}

/// A connected server.
pub(crate) struct Connection {
    service: RunningService<RoleClient, Handler>,
    pub(crate) notes: Arc<Notifications>,
    _child: Option<ChildGroup>,
}

/// What connecting needs besides the server's config.
#[derive(Debug, Clone)]
pub(crate) struct ConnectOptions {
    /// Where a stdio server's stderr is appended.
    pub(crate) log_file: PathBuf,
    /// Variables removed from a stdio server's environment.
    pub(crate) hidden_env: Vec<String>,
    /// The working directory of a stdio server.
    pub(crate) cwd: PathBuf,
    /// The session's bridge to `sdk` servers.
    pub(crate) sdk_bridge: Option<crate::sdk_transport::SharedBridge>,
}

impl Connection {
    /// Starts or reaches the server and completes the MCP handshake.
    pub(crate) async fn connect(
        config: &ServerConfig,
        options: &ConnectOptions,
    ) -> Result<Self, ClientError> {
        let notes = Arc::new(Notifications::default());
        let handler = Handler {
            notes: Arc::clone(&notes),
        };
        match config {
            ServerConfig::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .current_dir(&options.cwd)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(log_file(&options.log_file))
                    .process_group(0)
                    .kill_on_drop(true);
                for name in &options.hidden_env {
                    cmd.env_remove(name);
                }
                cmd.envs(env);
                // fork/exec on the blocking pool: the session's one runtime
                // thread goes on with the first model request meanwhile.
                let spawned = tokio::task::spawn_blocking(move || cmd.spawn())
                    .await
                    .map_err(|e| ClientError::Connect(e.to_string()))?;
                let mut child = spawned
                    .map_err(|e| ClientError::Connect(format!("cannot start `{command}`: {e}")))?;
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err(ClientError::Connect("no stdio pipes".into()));
                };
                let group = ChildGroup { child };
                let service = handler
                    .serve((stdout, stdin))
                    .await
                    .map_err(|e| ClientError::Connect(handshake_error(&e.to_string())))?;
                Ok(Self {
                    service,
                    notes,
                    _child: Some(group),
                })
            }
            ServerConfig::Http { url, headers } => {
                use rmcp::transport::StreamableHttpClientTransport;
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let mut custom = HashMap::new();
                for (k, v) in headers {
                    let name = http::HeaderName::try_from(k.as_str())
                        .map_err(|e| ClientError::Connect(format!("header `{k}`: {e}")))?;
                    let value = http::HeaderValue::try_from(v.as_str())
                        .map_err(|e| ClientError::Connect(format!("header `{k}`: {e}")))?;
                    custom.insert(name, value);
                }
                let transport = StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(custom),
                );
                Self::connected(handler.serve(transport).await, notes)
            }
            ServerConfig::Sdk { name } => {
                let pipe = crate::sdk_transport::open(options.sdk_bridge.as_ref(), name).map_err(ClientError::Connect)?;
                Self::connected(handler.serve(tokio::io::split(pipe)).await, notes)
            }
            ServerConfig::Sse { .. } => Err(ClientError::Connect(
                "the legacy SSE transport is not supported; use \"type\": \"http\" (streamable HTTP)"
                    .into(),
            )),
        }
    }

    /// A connection without a child process, once its handshake is done.
    fn connected<E: std::fmt::Display>(
        served: Result<RunningService<RoleClient, Handler>, E>,
        notes: Arc<Notifications>,
    ) -> Result<Self, ClientError> {
        let service = served.map_err(|e| ClientError::Connect(handshake_error(&e.to_string())))?;
        Ok(Self {
            service,
            notes,
            _child: None,
        })
    }

    /// Whether the connection has closed (the server exited).
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_transport_closed()
    }

    /// The server's tools.
    pub(crate) async fn list_tools(&self) -> Result<Vec<rmcp::model::Tool>, ClientError> {
        self.service.list_all_tools().await.map_err(service_error)
    }

    /// The server's resources, as JSON (`uri`, `name`, `mimeType`, …).
    pub(crate) async fn list_resources(&self) -> Result<Vec<Value>, ClientError> {
        let resources = self
            .service
            .list_all_resources()
            .await
            .map_err(service_error)?;
        Ok(resources
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect())
    }

    /// One resource's contents, as JSON (`contents: [{uri, text|blob}]`).
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<Value, ClientError> {
        let result = self
            .service
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .map_err(service_error)?;
        serde_json::to_value(result).map_err(|e| ClientError::Protocol(e.to_string()))
    }

    /// Calls `tool` with `arguments`; the result as JSON. A cancel or the
    /// timeout sends `notifications/cancelled` to the server.
    pub(crate) async fn call_tool(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
        call: &CallContext,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = self
            .service
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(service_error)?;
        let id = handle.id.clone();
        let token = handle.progress_token.clone();
        lock(&self.notes.progress).insert(token.clone(), call.clone());
        let outcome = tokio::select! {
            response = handle.await_response() => response.map_err(service_error),
            () = call.cancel.cancelled() => Err(ClientError::Cancelled),
            () = tokio::time::sleep(timeout) => Err(ClientError::Timeout(timeout.as_millis())),
        };
        lock(&self.notes.progress).remove(&token);
        if matches!(
            outcome,
            Err(ClientError::Cancelled | ClientError::Timeout(_))
        ) {
            let reason = match &outcome {
                Err(ClientError::Timeout(_)) => "timeout",
                _ => "cancelled by the user",
            };
            let _ = self
                .service
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some(reason.into()),
                ))
                .await;
        }
        match outcome? {
            ServerResult::CallToolResult(result) => {
                serde_json::to_value(result).map_err(|e| ClientError::Protocol(e.to_string()))
            }
            other => Err(ClientError::Protocol(format!(
                "unexpected answer to tools/call: {}",
                serde_json::to_string(&other).unwrap_or_default()
            ))),
        }
    }
}

/// The log file a stdio server's stderr goes to (appended); the null
/// device when it cannot be opened.
fn log_file(path: &Path) -> Stdio {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        Ok(file) => Stdio::from(file),
        Err(err) => {
            tracing::warn!(path = %path.display(), %err, "cannot open the MCP server log");
            Stdio::null()
        }
    }
}

fn handshake_error(detail: &str) -> String {
    format!("the MCP handshake failed: {detail}")
}

fn service_error(err: ServiceError) -> ClientError {
    match err {
        ServiceError::TransportClosed => ClientError::Closed,
        ServiceError::McpError(e) => ClientError::Protocol(e.message.to_string()),
        other => {
            let text = other.to_string();
            if text.contains("closed") {
                ClientError::Closed
            } else {
                ClientError::Protocol(text)
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}
