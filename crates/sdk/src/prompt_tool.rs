//! `--permission-prompt-tool NAME` with an MCP tool's name: the tool
//! decides the permission gate's asks, as in Claude Code. Each ask calls
//! it with `{tool_name, input, tool_use_id}`; its text result is the JSON
//! decision `{"behavior": "allow", "updatedInput": …}` or
//! `{"behavior": "deny", "message": …}`, applied exactly as the SDK's
//! `can_use_tool` answer ([`crate::control::decision`]).
//!
//! Data flow: built before the engine, given the session's tool registry
//! and tool context once the engine exists ([`PromptTool::attach`]); an
//! ask before that, a missing tool, a failed call or an answer that is not
//! JSON is a denial that says why.

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use orbit_engine::{Approval, ApprovalRequest, Approver};
use orbit_tool::{CallContext, NotReady, ToolRegistry, ToolUseContext};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::lines::result_text;

/// The approver asking MCP tool `name`.
#[derive(Clone)]
pub struct PromptTool {
    name: String,
    session: Arc<OnceLock<(ToolRegistry, ToolUseContext)>>,
}

impl PromptTool {
    /// Asks go to the tool called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            session: Arc::default(),
        }
    }

    /// The session's tools and context, once the engine exists.
    pub fn attach(&self, tools: ToolRegistry, ctx: ToolUseContext) {
        let _ = self.session.set((tools, ctx));
    }

    async fn ask(&self, ask: &ApprovalRequest) -> Result<Value, String> {
        let (tools, ctx) = self
            .session
            .get()
            .ok_or("the session is not ready to ask it yet")?;
        // A stand-in for a server still connecting is awaited within its
        // bound (the tool contract's wait, as the orchestrator's for calls).
        let tool = tools
            .ready_tool(&self.name, &CancellationToken::new())
            .await
            .map_err(|e| match e {
                NotReady::Missing => {
                    "no such tool (is its MCP server configured and connected?)".to_string()
                }
                other => other.to_string(),
            })?;
        let input = json!({
            "tool_name": ask.tool_name,
            "input": ask.input,
            "tool_use_id": ask.tool_use_id,
        });
        let call = tool.parse(input, ctx).map_err(|e| e.to_string())?;
        let context = CallContext::new(ask.tool_use_id.clone(), CancellationToken::new(), None);
        let output = call.call(ctx, &context).await.map_err(|e| e.to_string())?;
        let text = result_text(&output.content);
        if output.is_error {
            return Err(text);
        }
        serde_json::from_str(&text)
            .map_err(|_| format!("its answer is not a JSON decision: {text}"))
    }
}

#[async_trait]
impl Approver for PromptTool {
    async fn approve(&self, ask: &ApprovalRequest) -> Approval {
        match self.ask(ask).await {
            Ok(answer) => crate::control::decision(ask, &answer, None),
            Err(why) => Approval::Deny {
                reason: Some(format!(
                    "The permission prompt tool {} failed: {why}",
                    self.name
                )),
            },
        }
    }
}
