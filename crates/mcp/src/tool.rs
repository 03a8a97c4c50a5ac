//! An MCP server's tool as an orbit tool: `mcp__SERVER__TOOL`, the server's
//! own JSON schema (validated by the engine's pipeline like a built-in's:
//! T3), facts from the annotations (`readOnlyHint` → read-only and
//! concurrency-safe, `destructiveHint` → destructive), deferrable
//! (ToolSearch), and the result mapped: text, images, resource links,
//! embedded resources, `isError`, structured content.

use std::sync::Arc;

use async_trait::async_trait;
use orbit_protocol::{ImageSource, ToolResultContent, ToolResultContentBlock};
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, Tool, ToolCall, ToolError, ToolOutput, ToolUseContext,
};
use serde_json::Value;

/// What a tool needs of its server: calling one of its tools. The server
/// (`crate::server::Server`) implements it, so this module never names it.
#[async_trait]
pub(crate) trait ToolServer: Send + Sync {
    /// Calls the server's tool `remote`; the result as JSON, or the text
    /// the model receives as an error.
    async fn call_tool(
        &self,
        remote: &str,
        arguments: serde_json::Map<String, Value>,
        call: &CallContext,
    ) -> Result<Value, String>;
}

/// One tool of one server.
pub(crate) struct McpTool {
    pub(crate) name: String,
    pub(crate) remote_name: String,
    pub(crate) description: String,
    pub(crate) schema: Value,
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    pub(crate) result_limit: ResultLimit,
    pub(crate) server: Arc<dyn ToolServer>,
}

impl McpTool {
    /// The registry entry for `tool` of `server`, named `server_name`.
    pub(crate) fn new(
        server: Arc<dyn ToolServer>,
        server_name: &str,
        tool: &rmcp::model::Tool,
        limit: ResultLimit,
    ) -> Self {
        let annotations = tool.annotations.as_ref();
        let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
        // The spec's default for destructiveHint is true, but a server that
        // says nothing is treated as "may have side effects", not as
        // irreversible: only an explicit hint marks a call destructive.
        let destructive = !read_only && annotations.and_then(|a| a.destructive_hint) == Some(true);
        let description = tool
            .description
            .as_deref()
            .map(str::to_string)
            .unwrap_or_default();
        Self {
            name: crate::config::tool_name(server_name, &tool.name),
            remote_name: tool.name.to_string(),
            description,
            schema: Value::Object((*tool.input_schema).clone()),
            read_only,
            destructive,
            result_limit: limit,
            server,
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn result_limit(&self) -> ResultLimit {
        self.result_limit
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn parse(&self, input: Value, _ctx: &ToolUseContext) -> Result<Box<dyn ToolCall>, ToolError> {
        let Value::Object(arguments) = input else {
            return Err(ToolError::RespondToModel(format!(
                "{}: the input must be a JSON object",
                self.name
            )));
        };
        let mut facts = CallFacts::about(self.name.clone());
        if self.read_only {
            facts = facts.only_reads();
        }
        facts.destructive = self.destructive;
        Ok(Box::new(McpCall {
            facts,
            arguments,
            remote_name: self.remote_name.clone(),
            server: Arc::clone(&self.server),
        }))
    }
}

struct McpCall {
    facts: CallFacts,
    arguments: serde_json::Map<String, Value>,
    remote_name: String,
    server: Arc<dyn ToolServer>,
}

#[async_trait]
impl ToolCall for McpCall {
    fn facts(&self) -> &CallFacts {
        &self.facts
    }

    async fn validate(&mut self, _ctx: &ToolUseContext) -> Result<(), ToolError> {
        Ok(())
    }

    async fn call(
        self: Box<Self>,
        _ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let result = self
            .server
            .call_tool(&self.remote_name, self.arguments, call)
            .await
            .map_err(ToolError::RespondToModel)?;
        Ok(map_result(&result))
    }
}

/// A `tools/call` result (as JSON) as a tool output: text blocks joined by
/// newlines when there is no image; `isError` kept; structured content
/// sent as JSON when there is no other content.
pub(crate) fn map_result(result: &Value) -> ToolOutput {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut blocks = Vec::new();
    for item in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        blocks.push(map_block(item));
    }
    if blocks.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        blocks.push(ToolResultContentBlock::Text {
            text: structured.to_string(),
        });
    }
    let has_image = blocks
        .iter()
        .any(|b| matches!(b, ToolResultContentBlock::Image { .. }));
    if has_image && !is_error {
        return ToolOutput::blocks(blocks);
    }
    let text = ToolResultContent::Blocks(blocks).as_text();
    if is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    }
}

fn map_block(item: &Value) -> ToolResultContentBlock {
    let field = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default();
    let text = match field("type") {
        "text" => field("text").to_string(),
        "image" => {
            return ToolResultContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: field("mimeType").to_string(),
                    data: field("data").to_string(),
                },
            };
        }
        "resource_link" => {
            let mut text = format!("[Resource link: {}] {}", field("name"), field("uri"));
            if let Some(d) = item.get("description").and_then(Value::as_str) {
                text.push_str(&format!(" ({d})"));
            }
            text
        }
        "resource" => {
            let resource = item.get("resource").cloned().unwrap_or_default();
            let get = |k: &str| resource.get(k).and_then(Value::as_str).unwrap_or_default();
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!(
                    "[Resource {} ({}): binary content not shown]",
                    get("uri"),
                    get("mimeType")
                ),
            }
        }
        "audio" => format!("[Audio ({}): not shown]", field("mimeType")),
        other => format!("[Unsupported MCP content type: {other}]"),
    };
    ToolResultContentBlock::Text { text }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_map_to_what_the_model_sees() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
                "a\nb",
                false,
            ),
            (
                json!({"content": [{"type": "text", "text": "bad"}], "isError": true}),
                "bad",
                true,
            ),
            (
                json!({"content": [], "structuredContent": {"x": 1}}),
                "{\"x\":1}",
                false,
            ),
            (
                json!({"content": [{"type": "resource_link", "uri": "file:///a", "name": "a", "description": "d"}]}),
                "[Resource link: a] file:///a (d)",
                false,
            ),
            (
                json!({"content": [{"type": "resource", "resource": {"uri": "u", "text": "body"}}]}),
                "body",
                false,
            ),
            (
                json!({"content": [{"type": "resource", "resource": {"uri": "u", "mimeType": "application/x", "blob": "AA=="}}]}),
                "[Resource u (application/x): binary content not shown]",
                false,
            ),
        ];
        for (result, text, is_error) in cases {
            let out = map_result(&result);
            assert_eq!(
                out.content,
                ToolResultContent::Text(text.into()),
                "{result}"
            );
            assert_eq!(out.is_error, is_error, "{result}");
        }
        let image = map_result(
            &json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
        );
        assert!(
            matches!(image.content, ToolResultContent::Blocks(ref b) if matches!(b[0], ToolResultContentBlock::Image { .. }))
        );
    }
}
