//! The `Tool` trait (DESIGN T1) and a tool's output.

use async_trait::async_trait;
use orbit_protocol::{ToolResultContent, ToolResultContentBlock};
use serde_json::Value;

use crate::context::{CallContext, ToolUseContext};

/// What a tool call produced, before the engine's result pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: ToolResultContent,
    pub is_error: bool,
    /// The raw output when `content` was shaped for the model (Bash trims
    /// trailing newlines). When the result is too large and persisted (R1),
    /// this is what the saved file holds, byte-exact.
    pub full_text: Option<String>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            full_text: None,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: ToolResultContent::Text(text.into()),
            is_error: true,
            full_text: None,
        }
    }

    pub fn blocks(blocks: Vec<ToolResultContentBlock>) -> Self {
        Self {
            content: ToolResultContent::Blocks(blocks),
            is_error: false,
            full_text: None,
        }
    }

    /// Attaches the raw output to persist instead of `content` (see `full_text`).
    pub fn with_full_text(mut self, raw: String) -> Self {
        self.full_text = Some(raw);
        self
    }
}

/// A tool the model can call. Inputs arrive as JSON already validated
/// against `input_schema` (with numeric strings coerced) by the engine.
#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;

    /// Other names the model may call this tool by (T2).
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// Keywords for deferred-tool search.
    fn search_hint(&self) -> Option<&str> {
        None
    }

    /// What the model is told about the tool. Keep it short: every byte is
    /// sent on every request.
    fn description(&self) -> &str;

    /// JSON Schema of the input, derived from a Rust type with
    /// [`input_schema_for`].
    fn input_schema(&self) -> &Value;

    fn strict(&self) -> bool {
        false
    }

    /// Sent with `defer_loading` and discovered through ToolSearch.
    fn should_defer(&self) -> bool {
        false
    }

    /// Never deferred, even when ToolSearch is on.
    fn always_load(&self) -> bool {
        false
    }

    fn is_enabled(&self) -> bool {
        true
    }

    fn is_read_only(&self, input: &Value) -> bool;

    fn is_concurrency_safe(&self, input: &Value) -> bool;

    fn is_destructive(&self, _input: &Value) -> bool {
        false
    }

    /// Results longer than this (in chars) are persisted to disk and replaced
    /// by a preview (R1). `usize::MAX` opts out.
    fn max_result_size_chars(&self) -> usize;

    /// Business-rule checks after schema validation; `Err` holds the text
    /// the model receives (wrapped in `<tool_use_error>` by the engine).
    async fn validate_input(&self, _input: &Value, _ctx: &ToolUseContext) -> Result<(), String> {
        Ok(())
    }

    /// Runs the tool. Must return promptly once `call.cancel` fires.
    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput;
}

/// The JSON Schema of `T` as tools advertise it: an object schema with
/// `additionalProperties: false`, without the `$schema`/`title` noise that
/// only costs prompt bytes.
pub fn input_schema_for<T: schemars::JsonSchema>() -> Value {
    let schema = schemars::schema_for!(T);
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        map.entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    value
}
