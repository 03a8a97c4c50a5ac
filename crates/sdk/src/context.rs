//! The answers to the SDK's status requests: `get_context_usage` (the
//! engine's [`ContextUsage`] in the shape of the SDK's
//! `ContextUsageResponse`, with Claude Code's category names) and
//! `mcp_status` (`{"mcpServers": [McpServerStatus…]}`).
//!
//! The engine is borrowed by a running turn, so the context answer is a
//! snapshot: measured whenever the session loop holds the engine (between
//! turns), its total updated from each response's usage while a turn runs
//! (the API's own count of the context).

use orbit_engine::ContextUsage;
use orbit_protocol::Usage;
use serde_json::{Value, json};

/// A `get_context_usage` answer, kept current by the session loop.
#[derive(Default)]
pub struct ContextSnapshot {
    answer: Value,
}

impl ContextSnapshot {
    /// Replaces the snapshot with the engine's measure.
    pub fn measure(&mut self, usage: &ContextUsage) {
        self.answer = response(usage);
    }

    /// A response's usage is the context's size now (input, cached and
    /// output tokens).
    pub fn observe(&mut self, usage: &Usage) {
        let total = usage.input_tokens
            + usage.cache_read_input_tokens
            + usage.cache_creation_input_tokens
            + usage.output_tokens;
        let Some(raw) = self.answer.get("rawMaxTokens").and_then(Value::as_u64) else {
            return;
        };
        self.answer["totalTokens"] = json!(total);
        self.answer["percentage"] = json!(percentage(total, raw));
    }

    /// The answer to send.
    pub fn answer(&self) -> Value {
        self.answer.clone()
    }
}

fn percentage(total: u64, window: u64) -> f64 {
    let pct = total as f64 * 100.0 / window.max(1) as f64;
    (pct * 100.0).round() / 100.0
}

/// The SDK's `ContextUsageResponse` for `usage`.
fn response(usage: &ContextUsage) -> Value {
    let used = usage.system_prompt_tokens
        + usage.system_tools_tokens
        + usage.mcp_tools_tokens
        + usage.messages_tokens;
    let buffer = usage
        .raw_max_tokens
        .saturating_sub(usage.auto_compact_threshold);
    let free = usage
        .raw_max_tokens
        .saturating_sub(used)
        .saturating_sub(buffer);
    let category = |name: &str, tokens: u64, color: &str| json!({"name": name, "tokens": tokens, "color": color});
    let mut categories = vec![
        category("System prompt", usage.system_prompt_tokens, "promptBorder"),
        category("System tools", usage.system_tools_tokens, "inactive"),
    ];
    if usage.mcp_tools_tokens > 0 {
        categories.push(category(
            "MCP tools",
            usage.mcp_tools_tokens,
            "cyan_FOR_SUBAGENTS_ONLY",
        ));
    }
    categories.push(category(
        "Messages",
        usage.messages_tokens,
        "purple_FOR_SUBAGENTS_ONLY",
    ));
    categories.push(category("Free space", free, "promptBorder"));
    if usage.auto_compact_enabled {
        categories.push(category("Autocompact buffer", buffer, "inactive"));
    }
    let tools = |deferrable: bool| -> Vec<Value> {
        usage
            .tools
            .iter()
            .filter(|(_, _, d)| *d == deferrable)
            .map(|(name, tokens, _)| {
                let mut tool = json!({"name": name, "tokens": tokens});
                if deferrable {
                    // `mcp__SERVER__TOOL`: reported with its server.
                    if let Some((server, _)) = name
                        .strip_prefix("mcp__")
                        .and_then(|rest| rest.split_once("__"))
                    {
                        tool["serverName"] = json!(server);
                    }
                    tool["isLoaded"] = json!(true);
                }
                tool
            })
            .collect()
    };
    let mut mcp_tools = tools(true);
    // Deferred (not sent; ToolSearch loads them), as Claude Code reports them.
    mcp_tools.extend(usage.deferred_tools.iter().map(|(name, tokens)| {
        let server = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
            .map_or("", |(server, _)| server);
        json!({"name": name, "serverName": server, "tokens": tokens, "isLoaded": false})
    }));
    json!({
        "categories": categories,
        "totalTokens": usage.total_tokens,
        "maxTokens": usage.max_tokens,
        "rawMaxTokens": usage.raw_max_tokens,
        "percentage": percentage(usage.total_tokens, usage.raw_max_tokens),
        "model": usage.model,
        "isAutoCompactEnabled": usage.auto_compact_enabled,
        "autoCompactThreshold": usage.auto_compact_threshold,
        "memoryFiles": [],
        "mcpTools": mcp_tools,
        "systemTools": tools(false),
        "agents": [],
        "gridRows": [],
        "apiUsage": null,
    })
}

/// The `mcp_status` answer (`mcpServers`: empty without MCP servers).
pub fn mcp_status(mcp: Option<&orbit_mcp::McpManager>) -> Value {
    json!({"mcpServers": mcp.map(|m| m.status_report()).unwrap_or_default()})
}
