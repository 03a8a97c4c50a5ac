//! Tools driven the way the engine drives them, through the erased
//! contract: `parse` (the typed input, once) → `facts` → `validate` →
//! `call`, then the workspace cwd policy the orchestrator applies
//! (`apply_cwd_policy`). A refusal (`ToolError`) comes back as `Err(text)`:
//! the text the engine would wrap in `<tool_use_error>`.

use std::sync::Arc;

use orbit_tool::{
    CallContext, CallFacts, Tool, ToolError, ToolOutput, ToolUseContext, TypedTool,
    apply_cwd_policy, typed,
};
use serde_json::Value;

fn refusal(e: ToolError) -> String {
    match e {
        ToolError::RespondToModel(text) => text,
        ToolError::Fatal(text) => format!("fatal: {text}"),
    }
}

/// One call of a registered tool, as the orchestrator runs it.
pub async fn drive(
    tool: &Arc<dyn Tool>,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> Result<ToolOutput, String> {
    let parsed = tool.parse(input, ctx).map_err(refusal)?;
    // `call` validates first. (The engine's separate `validate` then
    // `call` needs `TypedCall::validate` to keep an existing plan: today a
    // second validate drops it and `call` answers "run twice or never
    // validated".)
    let mut output = parsed.call(ctx, call).await.map_err(refusal)?;
    apply_cwd_policy(ctx, &mut output);
    Ok(output)
}

/// One call with a detached call context; `Err` is a refusal.
pub async fn try_call<T: TypedTool>(
    tool: T,
    ctx: &ToolUseContext,
    input: Value,
) -> Result<ToolOutput, String> {
    drive(&typed(tool), ctx, input, &CallContext::detached("toolu_1")).await
}

/// One call that must not be refused.
pub async fn call<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> ToolOutput {
    try_call(tool, ctx, input)
        .await
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

/// One call with this call context, which must not be refused.
pub async fn call_with<T: TypedTool>(
    tool: T,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> ToolOutput {
    drive(&typed(tool), ctx, input, call)
        .await
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

/// The text of a successful call.
pub async fn success_text<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> String {
    let out = call(tool, ctx, input).await;
    assert!(!out.is_error, "unexpected error: {out:?}");
    out.content.as_text()
}

/// The facts a call with this input declares.
pub fn facts<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> CallFacts {
    match typed(tool).parse(input, ctx) {
        Ok(call) => call.facts().clone(),
        Err(e) => panic!("unparsable input: {e}"),
    }
}
