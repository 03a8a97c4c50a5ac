//! Drives a tool through the erased contract exactly as the engine does:
//! schema validation and coercion (T3) → `Tool::parse` (the typed input,
//! parsed once, and the call's facts) → `ToolCall::validate` (business
//! rules, the plan) → `ToolCall::call`. Shared by the suites.

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use orbit_protocol::ToolResultContent;
use orbit_tool::{CallContext, CallFacts, Tool, ToolCall, ToolError, ToolOutput, ToolUseContext};
use orbit_tools::builtin::default_tools;
use orbit_tools::validation::validate_tool_input;
use serde_json::Value;
use tempfile::TempDir;

/// A session rooted in a fresh temp dir: the dir (kept alive), the
/// context, and the canonical root (how tools print paths).
pub fn session() -> (TempDir, ToolUseContext, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolUseContext::new("s", root.clone(), root.join(".orbit"));
    (dir, ctx, root)
}

/// The built-in tool registered as `name`, as the engine holds it.
pub fn builtin(name: &str) -> Arc<dyn Tool> {
    match default_tools().find(name) {
        Some(tool) => Arc::clone(tool),
        None => panic!("no built-in tool {name}"),
    }
}

/// Validates `input` against the tool's schema (coercing it, as the engine
/// does) and parses it; the input must be schema-valid.
pub fn parse(tool: &Arc<dyn Tool>, ctx: &ToolUseContext, input: &Value) -> Box<dyn ToolCall> {
    let input = match validate_tool_input(tool.as_ref(), input) {
        Ok(coerced) => coerced,
        Err(text) => panic!("{} input is not schema-valid: {text}", tool.name()),
    };
    match tool.parse(input, ctx) {
        Ok(call) => call,
        Err(e) => panic!("{} input did not parse: {e:?}", tool.name()),
    }
}

/// The facts a call with `input` declares.
pub fn facts(tool: &Arc<dyn Tool>, ctx: &ToolUseContext, input: &Value) -> CallFacts {
    parse(tool, ctx, input).facts().clone()
}

/// parse → validate → call with the given call context.
pub async fn run_with(
    tool: &Arc<dyn Tool>,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> Result<ToolOutput, ToolError> {
    let mut parsed = parse(tool, ctx, &input);
    parsed.validate(ctx).await?;
    parsed.call(ctx, call).await
}

/// parse → validate → call, never cancelled.
pub async fn run(
    tool: &Arc<dyn Tool>,
    ctx: &ToolUseContext,
    input: Value,
) -> Result<ToolOutput, ToolError> {
    run_with(tool, ctx, input, &CallContext::detached("toolu_1")).await
}

/// The output of a call that was not refused; panics on a `ToolError`.
pub fn output(result: Result<ToolOutput, ToolError>) -> ToolOutput {
    match result {
        Ok(out) => out,
        Err(e) => panic!("expected an output, got {e:?}"),
    }
}

/// What a call's result says when it must be a refusal.
pub trait Refusal {
    /// The text of a `ToolError::RespondToModel` (the engine wraps it in
    /// `<tool_use_error>`); panics on an output or a fatal error.
    fn unwrap_refusal(self) -> String;
}

impl Refusal for Result<ToolOutput, ToolError> {
    fn unwrap_refusal(self) -> String {
        match self {
            Err(ToolError::RespondToModel(text)) => text,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

/// The text of an output that must be text.
pub fn text(out: &ToolOutput) -> &str {
    match &out.content {
        ToolResultContent::Text(t) => t,
        other => panic!("expected text, got {other:?}"),
    }
}
