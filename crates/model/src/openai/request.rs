//! Builds the chat-completions request body from a [`ModelRequest`].
//!
//! The engine's history is in the Messages API shape; here it becomes
//! OpenAI's: the system prompt is a `system` message; an assistant message's
//! text and `tool_use` blocks become one assistant message with `content` and
//! `tool_calls` (arguments as a JSON string); a user message's `tool_result`
//! blocks become `role: "tool"` messages (text only: images are dropped with
//! a note, chat completions take no images in tool messages) followed by a
//! user message for any text or images; thinking blocks are dropped (they
//! cannot be sent back to another provider). Tools are `function` tools.

use orbit_protocol::{ContentBlock, ImageSource, Message, Role, ToolResultBlock};
use serde_json::{Value, json};

use crate::ModelRequest;

/// Appended to a tool message whose result held images.
pub(super) const IMAGE_DROPPED_NOTE: &str =
    "[image omitted: this provider cannot receive images in tool results]";

/// Default completion budget when the request sets none.
pub(super) const DEFAULT_MAX_TOKENS: u32 = 8192;

/// The JSON body for `POST {base}/chat/completions`.
pub(super) fn build_body(request: &ModelRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in &request.messages {
        match message.role {
            Role::Assistant => messages.extend(assistant_message(message)),
            Role::User => messages.extend(user_messages(message)),
        }
    }
    let max_tokens = if request.max_tokens == 0 {
        DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "max_tokens": max_tokens,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                }})
            })
            .collect();
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(seed) = request.seed {
        body["seed"] = json!(seed);
    }
    body
}

/// One assistant message (None when it carries nothing sendable).
fn assistant_message(message: &Message) -> Option<Value> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text: t, .. } => text.push_str(t),
            ContentBlock::ToolUse(t) => calls.push(json!({
                "id": t.id,
                "type": "function",
                "function": {"name": t.name, "arguments": t.input.to_string()},
            })),
            _ => {}
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut out = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        out["tool_calls"] = Value::Array(calls);
    }
    Some(out)
}

/// Tool messages for the tool_results, then one user message for the rest.
fn user_messages(message: &Message) -> Vec<Value> {
    let mut out = Vec::new();
    let mut parts: Vec<Value> = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult(r) => out.push(tool_message(r)),
            ContentBlock::Text { text, .. } => parts.push(json!({"type": "text", "text": text})),
            ContentBlock::Image { source } => parts.push(image_part(source)),
            _ => {}
        }
    }
    if parts.is_empty() {
        return out;
    }
    let all_text = parts.iter().all(|p| p["type"] == "text");
    let content = if all_text {
        let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        json!(texts.join("\n\n"))
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
    out
}

fn tool_message(result: &ToolResultBlock) -> Value {
    let mut text = result.content.as_text();
    if result.content.has_image() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(IMAGE_DROPPED_NOTE);
    }
    json!({"role": "tool", "tool_call_id": result.tool_use_id, "content": text})
}

fn image_part(source: &ImageSource) -> Value {
    let url = match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Url { url } => url.clone(),
    };
    json!({"type": "image_url", "image_url": {"url": url}})
}
