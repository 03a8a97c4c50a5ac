//! The stream-json fields Claude Code's SDK readers expect beyond orbit's
//! own events, built in the writer from what it already sees:
//!
//! - `tool_use_result` on `user` lines: the structured result of the call a
//!   tool_result answers ([`crate::tool_result`]), from the call's input
//!   (remembered from the `assistant` line) and the facts its tool reported
//!   ([`orbit_tool::ToolDetail`], from `EngineEvent::ToolResult`);
//! - the top-level `tool_progress` line's name and elapsed time;
//! - `modelUsage` per model, summed over the session (as Claude Code);
//! - `terminal_reason` from the result's subtype;
//! - `stream_event` lines (`--include-partial-messages`): orbit's stream
//!   events written back as the Anthropic API's raw events.
//!
//! Nothing here runs unless the format is stream-json (or json, for the
//! result); the partial-message mapping runs only with its flag.

use std::collections::HashMap;
use std::time::Instant;

use orbit_protocol::{
    ContentBlock, ResultSubtype, StreamEvent, TerminalResult, ToolResultBlock, ToolResultContent,
    Usage,
};
use orbit_tool::ToolDetail;
use serde_json::{Map, Value, json};

use crate::tool_result::{Finished, structured};

/// A tool call seen on an `assistant` line.
struct Call {
    name: String,
    input: Value,
    started: Option<Instant>,
}

/// What the writer remembers across lines.
#[derive(Default)]
pub struct SdkTracker {
    calls: HashMap<String, Call>,
    /// The facts tools reported with their results, by tool_use id (a
    /// result may be released before its call's `assistant` line).
    details: HashMap<String, ToolDetail>,
    /// Per model: its summed usage.
    models: Vec<(String, Usage)>,
    /// `max_tokens` of the requests (`modelUsage.maxOutputTokens`).
    pub max_output_tokens: u64,
    /// The session's window when set (`ORBIT_CONTEXT_WINDOW`), in tokens;
    /// None = the model catalog's window of each model. Either way what
    /// `get_context_usage` reports (`modelUsage.contextWindow`).
    pub context_window_tokens: Option<u64>,
}

impl SdkTracker {
    /// Remembers the tool calls of an assistant message and adds its usage.
    pub fn assistant(&mut self, content: &[ContentBlock], model: &str, usage: &Usage) {
        for block in content {
            if let ContentBlock::ToolUse(call) = block {
                self.calls.insert(
                    call.id.clone(),
                    Call {
                        name: call.name.clone(),
                        input: call.input.clone(),
                        started: None,
                    },
                );
            }
        }
        // A built-in command's output is no model call (Claude Code's
        // `modelUsage` stays empty for it).
        if model == orbit_engine::SYNTHETIC_MODEL {
            return;
        }
        match self.models.iter_mut().find(|(m, _)| m == model) {
            Some((_, total)) => total.add(usage),
            None => self.models.push((model.to_string(), *usage)),
        }
    }

    /// A call began running.
    pub fn started(&mut self, tool_use_id: &str) {
        if let Some(call) = self.calls.get_mut(tool_use_id) {
            call.started = Some(Instant::now());
        }
    }

    /// The facts a call's tool reported with its result.
    pub fn detail(&mut self, tool_use_id: &str, detail: &Value) {
        if let Some(detail) = ToolDetail::from_value(detail) {
            self.details.insert(tool_use_id.to_string(), detail);
        }
    }

    /// The name and seconds since start of a running call.
    pub fn progress(&self, tool_use_id: &str) -> (String, f64) {
        self.calls
            .get(tool_use_id)
            .map_or((String::new(), 0.0), |c| {
                let secs = c.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
                (c.name.clone(), (secs * 1000.0).round() / 1000.0)
            })
    }

    /// Whether the call is an MCP tool's (`mcp__SERVER__TOOL`).
    pub fn is_mcp_call(&self, tool_use_id: &str) -> bool {
        self.calls
            .get(tool_use_id)
            .is_some_and(|c| c.name.starts_with("mcp__"))
    }

    /// The `tool_use_result` for one result block (the call is forgotten).
    pub fn tool_use_result(&mut self, result: &ToolResultBlock) -> Option<Value> {
        let detail = self.details.remove(&result.tool_use_id);
        let call = self.calls.remove(&result.tool_use_id)?;
        let text = result_text(&result.content);
        structured(Finished {
            name: &call.name,
            input: &call.input,
            detail,
            text: &text,
            is_error: result.is_error == Some(true),
        })
    }

    /// `modelUsage`: per model, Claude Code's keys.
    pub fn model_usage(&self) -> Map<String, Value> {
        self.models
            .iter()
            .map(|(model, u)| {
                let window = self
                    .context_window_tokens
                    .unwrap_or_else(|| orbit_model::catalog::context_window_tokens(model));
                let entry = json!({
                    "inputTokens": u.input_tokens,
                    "outputTokens": u.output_tokens,
                    "cacheReadInputTokens": u.cache_read_input_tokens,
                    "cacheCreationInputTokens": u.cache_creation_input_tokens,
                    "webSearchRequests": 0,
                    "costUSD": orbit_model::pricing::cost_usd(model, u),
                    "contextWindow": window,
                    "maxOutputTokens": self.max_output_tokens,
                });
                (model.clone(), entry)
            })
            .collect()
    }
}

/// A result's text: its text blocks joined.
pub fn result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| serde_json::to_value(b).ok())
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Claude Code's `terminal_reason` for a result.
pub fn terminal_reason(result: &TerminalResult) -> &'static str {
    if result.interrupted {
        return "aborted_tools";
    }
    match result.subtype {
        ResultSubtype::Success => "completed",
        ResultSubtype::ErrorMaxTurns => "max_turns",
        ResultSubtype::ErrorMaxBudgetUsd => "budget_exhausted",
        ResultSubtype::ErrorMaxStructuredOutputRetries => "structured_output_retry_exhausted",
        _ => "model_error",
    }
}

/// One of orbit's stream events as the API's raw event (None: retries,
/// which are orbit's own and have their `system/api_retry` line).
pub fn raw_stream_event(event: &StreamEvent) -> Option<Value> {
    let value = match event {
        StreamEvent::MessageStart { id, model, usage } => json!({
            "type": "message_start",
            "message": {
                "id": id, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage,
            }
        }),
        StreamEvent::ContentBlockStart { index, block } => {
            json!({"type": "content_block_start", "index": index, "content_block": block})
        }
        StreamEvent::TextDelta { index, text } => delta(*index, "text_delta", "text", text),
        StreamEvent::ThinkingDelta { index, thinking } => {
            delta(*index, "thinking_delta", "thinking", thinking)
        }
        StreamEvent::InputJsonDelta {
            index,
            partial_json,
        } => delta(*index, "input_json_delta", "partial_json", partial_json),
        StreamEvent::ContentBlockComplete { index, .. } => {
            json!({"type": "content_block_stop", "index": index})
        }
        StreamEvent::MessageDelta { stop_reason, usage } => json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": usage,
        }),
        StreamEvent::MessageStop => json!({"type": "message_stop"}),
        StreamEvent::Retry { .. } => return None,
    };
    Some(value)
}

fn delta(index: usize, kind: &str, key: &str, text: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": kind, key: text}})
}
