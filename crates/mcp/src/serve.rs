//! `orbit mcp serve`: a [`ToolHost`]'s tools offered to other MCP clients
//! over stdio (rmcp's server side). The host (the CLI, over the engine's
//! orchestrator) decides what a call may do; this module only speaks the
//! protocol: `tools/list` from [`ToolHost::tools`], `tools/call` to
//! [`ToolHost::call`] (an unknown tool is a JSON-RPC error, as Claude
//! Code's), a client's `notifications/cancelled` to the call's cancel
//! token. The capabilities say `tools.listChanged`, as Claude Code's do.

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig as ServerInfo,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedTool {
    /// Its name.
    pub name: String,
    /// What clients are told.
    pub description: String,
    /// Its input's JSON Schema.
    pub input_schema: Value,
    /// Sent as `readOnlyHint`.
    pub read_only: bool,
}

/// What the server serves.
#[async_trait]
pub trait ToolHost: Send + Sync + 'static {
    /// The tools, in order.
    fn tools(&self) -> Vec<ServedTool>;
    /// Runs one call; the result text and whether it is an error.
    async fn call(&self, name: &str, input: Value, cancel: CancellationToken) -> (String, bool);
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
#[error("MCP server: {0}")]
pub struct ServeError(String);

/// Serves `host` on stdin/stdout until the client disconnects.
pub async fn serve_stdio(host: Arc<dyn ToolHost>) -> Result<(), ServeError> {
    let service = Handler { host }
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| ServeError(e.to_string()))?;
    Ok(())
}

#[derive(Clone)]
struct Handler {
    host: Arc<dyn ToolHost>,
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerInfo {
        let info = json!({
            "protocolVersion": "2025-06-18",
            // As Claude Code's `mcp serve`: clients may re-list the tools.
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "orbit", "version": env!("CARGO_PKG_VERSION")},
        });
        serde_json::from_value(info)
            .unwrap_or_else(|_| ServerInfo::new(ServerCapabilities::default()))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools: Vec<Value> = self
            .host
            .tools()
            .into_iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.input_schema,
                    "annotations": {"readOnlyHint": t.read_only},
                })
            })
            .collect();
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // An unknown tool is a JSON-RPC error (Claude Code's code and
        // words), not a tool result.
        if !self.host.tools().iter().any(|t| t.name == request.name) {
            let message = format!("Tool {} not found", request.name);
            return Err(ErrorData::internal_error(message, None));
        }
        let input = Value::Object(request.arguments.unwrap_or_default());
        let (text, is_error) = self
            .host
            .call(&request.name, input, context.ct.clone())
            .await;
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResponse::Complete(result))
    }
}
