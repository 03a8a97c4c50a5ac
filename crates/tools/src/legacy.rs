//! A temporary bridge while the built-ins move to the typed contract:
//! [`LegacyTool`] is the old untyped trait (JSON in, each tool re-parsing
//! it), and [`legacy`] registers such a tool through `orbit_tool::typed`.
//! Removed once every built-in implements `TypedTool`.

use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, Tool, ToolError, ToolOutput, ToolUseContext, TypedTool,
    typed,
};
use serde_json::Value;

/// A tool the model can call. Inputs arrive as JSON already validated
/// against `input_schema` (with numeric strings coerced) by the engine.
#[async_trait]
pub trait LegacyTool: Send + Sync + 'static {
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

/// Registers a [`LegacyTool`].
pub fn legacy<T: LegacyTool>(tool: T) -> Arc<dyn Tool> {
    typed(Legacy(tool))
}

struct Legacy<T>(T);

#[async_trait]
impl<T: LegacyTool> TypedTool for Legacy<T> {
    type Input = Value;
    type Plan = Value;

    fn name(&self) -> &str {
        self.0.name()
    }

    fn description(&self) -> &str {
        self.0.description()
    }

    fn aliases(&self) -> &[&str] {
        self.0.aliases()
    }

    fn search_hint(&self) -> Option<&str> {
        self.0.search_hint()
    }

    fn input_schema(&self) -> Value {
        self.0.input_schema().clone()
    }

    fn result_limit(&self) -> ResultLimit {
        match self.0.max_result_size_chars() {
            usize::MAX => ResultLimit::NeverPersist,
            n => ResultLimit::PersistOver(n),
        }
    }

    fn facts(&self, input: &Value, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts {
            read_only: self.0.is_read_only(input),
            concurrency_safe: self.0.is_concurrency_safe(input),
            destructive: self.0.is_destructive(input),
            ..CallFacts::default()
        }
    }

    async fn validate(&self, input: Value, ctx: &ToolUseContext) -> Result<Value, ToolError> {
        self.0
            .validate_input(&input, ctx)
            .await
            .map_err(ToolError::RespondToModel)?;
        Ok(input)
    }

    async fn call(
        &self,
        input: Value,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok(self.0.call(input, ctx, call).await)
    }
}
