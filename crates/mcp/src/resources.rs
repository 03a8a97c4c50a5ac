//! `ListMcpResources` and `ReadMcpResource`: the servers' resources as two
//! read-only tools (as Claude Code), offered while any server is configured.
//!
//! Both are a [`ResourceTool`] over the manager's servers: deferred, about
//! what the input names, read-only, checking that a named server exists
//! before the call; what differs (name, description, input, the request
//! made of the servers) is its [`ResourceOp`], [`List`] or [`Read`].

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::{
    CallContext, CallFacts, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::server::Server;

/// Input of `ListMcpResources`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListInput {
    /// Only this server's resources (default: every server's).
    #[serde(default)]
    server: Option<String>,
}

/// Input of `ReadMcpResource`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadInput {
    /// The server's name.
    server: String,
    /// The resource's URI.
    uri: String,
}

/// What one resource tool does with the servers.
pub(crate) trait ResourceOp: Send + Sync + 'static {
    /// The tool's input.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The tool's name.
    const NAME: &'static str;
    /// The tool's description.
    const DESCRIPTION: &'static str;
    /// The server the input names, which must exist.
    fn server(input: &Self::Input) -> Option<&str>;
    /// What a call is about (its facts' subject).
    fn about(input: &Self::Input) -> String;
    /// The call, on the manager's servers.
    fn run(
        servers: &[Arc<Server>],
        input: Self::Input,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

/// A resource tool over the manager's servers.
pub(crate) struct ResourceTool<Op> {
    servers: Vec<Arc<Server>>,
    op: PhantomData<fn() -> Op>,
}

impl<Op: ResourceOp> ResourceTool<Op> {
    pub(crate) fn new(servers: Vec<Arc<Server>>) -> Self {
        Self {
            servers,
            op: PhantomData,
        }
    }
}

/// `ListMcpResources`.
pub(crate) struct List;

/// `ReadMcpResource`.
pub(crate) struct Read;

fn find<'a>(servers: &'a [Arc<Server>], name: &str) -> Result<&'a Arc<Server>, ToolError> {
    servers
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| ToolError::RespondToModel(format!("No MCP server named \"{name}\"")))
}

/// A failed request to `server`, as the model is told it.
fn server_error(server: &Server, e: impl std::fmt::Display) -> ToolError {
    ToolError::RespondToModel(format!("MCP server \"{}\": {e}", server.name))
}

#[async_trait]
impl<Op: ResourceOp> TypedTool for ResourceTool<Op> {
    type Input = Op::Input;
    type Plan = Op::Input;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(Op::NAME, Op::DESCRIPTION)
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn facts(&self, input: &Op::Input, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(Op::about(input)).only_reads()
    }

    async fn validate(
        &self,
        input: Op::Input,
        _ctx: &ToolUseContext,
    ) -> Result<Op::Input, ToolError> {
        if let Some(name) = Op::server(&input) {
            find(&self.servers, name)?;
        }
        Ok(input)
    }

    async fn call(
        &self,
        plan: Op::Input,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Op::run(&self.servers, plan).await
    }
}

impl ResourceOp for List {
    type Input = ListInput;
    const NAME: &'static str = "ListMcpResources";
    const DESCRIPTION: &'static str = "Lists the resources of the connected MCP servers (all, or one `server`'s) as JSON: uri, name, mimeType, server.";

    fn server(input: &ListInput) -> Option<&str> {
        input.server.as_deref()
    }

    fn about(input: &ListInput) -> String {
        input.server.clone().unwrap_or_default()
    }

    async fn run(servers: &[Arc<Server>], input: ListInput) -> Result<ToolOutput, ToolError> {
        let mut all = Vec::new();
        for server in servers {
            if input.server.as_ref().is_some_and(|n| *n != server.name) {
                continue;
            }
            let resources = server
                .list_resources()
                .await
                .map_err(|e| server_error(server, e))?;
            for mut resource in resources {
                if let Value::Object(map) = &mut resource {
                    map.insert("server".into(), Value::String(server.name.clone()));
                }
                all.push(resource);
            }
        }
        Ok(ToolOutput::text(Value::Array(all).to_string()))
    }
}

impl ResourceOp for Read {
    type Input = ReadInput;
    const NAME: &'static str = "ReadMcpResource";
    const DESCRIPTION: &'static str =
        "Reads one resource (`uri`) of an MCP `server`; text contents are returned as they are.";

    fn server(input: &ReadInput) -> Option<&str> {
        Some(&input.server)
    }

    fn about(input: &ReadInput) -> String {
        input.uri.clone()
    }

    async fn run(servers: &[Arc<Server>], input: ReadInput) -> Result<ToolOutput, ToolError> {
        let server = find(servers, &input.server)?;
        let result = server
            .read_resource(&input.uri)
            .await
            .map_err(|e| server_error(server, e))?;
        let texts: Vec<String> = result
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| match c.get("text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!(
                    "[Resource {} ({}): binary content not shown]",
                    c.get("uri").and_then(Value::as_str).unwrap_or_default(),
                    c.get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ),
            })
            .collect();
        Ok(ToolOutput::text(texts.join("\n")))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
