//! `ListMcpResources` and `ReadMcpResource`: the servers' resources as two
//! read-only tools (as Claude Code), offered while any server is configured.

use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::{
    CallContext, CallFacts, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
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

pub(crate) struct ListResources {
    pub(crate) servers: Vec<Arc<Server>>,
}

pub(crate) struct ReadResource {
    pub(crate) servers: Vec<Arc<Server>>,
}

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
impl TypedTool for ListResources {
    type Input = ListInput;
    type Plan = ListInput;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(
            "ListMcpResources",
            "Lists the resources of the connected MCP servers (all, or one `server`'s) as JSON: uri, name, mimeType, server.",
        )
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn facts(&self, input: &ListInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(input.server.clone().unwrap_or_default()).only_reads()
    }

    async fn validate(
        &self,
        input: ListInput,
        _ctx: &ToolUseContext,
    ) -> Result<ListInput, ToolError> {
        if let Some(name) = &input.server {
            find(&self.servers, name)?;
        }
        Ok(input)
    }

    async fn call(
        &self,
        plan: ListInput,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let mut all = Vec::new();
        for server in &self.servers {
            if plan.server.as_ref().is_some_and(|n| *n != server.name) {
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

#[async_trait]
impl TypedTool for ReadResource {
    type Input = ReadInput;
    type Plan = ReadInput;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(
            "ReadMcpResource",
            "Reads one resource (`uri`) of an MCP `server`; text contents are returned as they are.",
        )
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn facts(&self, input: &ReadInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(input.uri.clone()).only_reads()
    }

    async fn validate(
        &self,
        input: ReadInput,
        _ctx: &ToolUseContext,
    ) -> Result<ReadInput, ToolError> {
        find(&self.servers, &input.server)?;
        Ok(input)
    }

    async fn call(
        &self,
        plan: ReadInput,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let server = find(&self.servers, &plan.server)?;
        let result = server
            .read_resource(&plan.uri)
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
