//! Step 2's first part for a tool that was not ready when its call was
//! prepared (`Tool::readiness`: an MCP server still connecting): await it
//! with the tool contract's wait (`ToolRegistry::ready_tool`: the tool's
//! own bound, or until the call is cancelled), then run step 1
//! ([`prepare`]) again, so the input is
//! validated against the tool's real schema by the same pipeline as every
//! call and the call gets its real facts before the permission gate.

use std::sync::Arc;
use std::time::Duration;

use orbit_protocol::ToolUseBlock;
use orbit_tool::texts::engine::{INTERRUPT_MESSAGE_FOR_TOOL_USE, tool_not_ready_error};
use orbit_tool::validation::wrap_tool_use_error;
use orbit_tool::{CallContext, NotReady, Tool, ToolCall};
use serde_json::Value;

use crate::prepare::{Prepared, Staged, prepare};
use crate::runtime::ToolRuntime;

/// The ready tool and its parsed call, or the text the model is told (the
/// tool never became ready, its input is invalid, the call was cancelled).
pub(crate) async fn await_ready(
    runtime: &ToolRuntime,
    tool: &Arc<dyn Tool>,
    within: Duration,
    input: &Value,
    call: &CallContext,
) -> Result<(Arc<dyn Tool>, Box<dyn ToolCall>), String> {
    let name = tool.name();
    let not_ready = || wrap_tool_use_error(&tool_not_ready_error(name, within.as_millis()));
    match runtime.tools.ready_tool(name, &call.cancel).await {
        Err(NotReady::Cancelled) => return Err(INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string()),
        Err(NotReady::TimedOut(_)) => return Err(not_ready()),
        Err(NotReady::Failed(why)) => return Err(wrap_tool_use_error(&why)),
        // Gone meanwhile: step 1 says so.
        Ok(_) | Err(NotReady::Missing) => {}
    }
    let block = ToolUseBlock {
        id: call.tool_use_id.clone(),
        name: name.to_string(),
        input: input.clone(),
    };
    match prepare(&runtime.tools, &block, None, &runtime.context) {
        Prepared::Ready {
            tool,
            call: Some(Staged::Call(prepared)),
            ..
        } => Ok((tool, prepared)),
        Prepared::Ready { .. } => Err(not_ready()),
        Prepared::Rejected(text) => Err(text),
    }
}
