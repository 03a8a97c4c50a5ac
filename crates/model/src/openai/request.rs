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
use crate::prefix::PrefixCache;

/// Appended to a tool message whose result held images.
pub(super) const IMAGE_DROPPED_NOTE: &str =
    "[image omitted: this provider cannot receive images in tool results]";

/// Appended to a tool message whose result held a PDF `document` block (a
/// session begun with the Anthropic provider: Read gives other providers
/// the PDF's text instead).
pub(super) const DOCUMENT_DROPPED_NOTE: &str =
    "[PDF document omitted: this provider cannot receive documents; Read it again for its text]";

/// First allocation of a request body, in bytes; it grows with the history.
const BODY_CAPACITY_BYTES: usize = 16 * 1024;

/// llama.cpp's own request fields, sent to the local server only.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LlamaExtras {
    /// `cache_prompt: true`: the slot keeps the prompt in its KV cache.
    pub(super) cache_prompt: bool,
    /// `return_progress: true`: chunks carry `prompt_progress`.
    pub(super) return_progress: bool,
}

/// The JSON body for `POST {base}/chat/completions`, written straight to
/// bytes; the messages the previous request of this client sent are not
/// converted again (`cache`: their bytes are reused). `extras` adds
/// llama.cpp's fields; `request.one_tool_call` adds `parallel_tool_calls:
/// false` (with tools only). The bytes are those of the equivalent `Value`.
pub(super) fn build_body(
    request: &ModelRequest,
    extras: LlamaExtras,
    cache: &PrefixCache,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(BODY_CAPACITY_BYTES);
    out.extend_from_slice(b"{\"model\":");
    serde_json::to_writer(&mut out, &request.model)?;
    out.extend_from_slice(b",\"messages\":[");
    if !request.system.is_empty() {
        let system = json!({"role": "system", "content": request.system});
        serde_json::to_writer(&mut out, &system)?;
        out.push(b',');
    }
    // Each message as its own entries, each followed by a comma.
    cache.write(&request.messages, &mut out, |message, bytes| {
        for entry in wire_messages(message) {
            serde_json::to_writer(&mut *bytes, &entry)?;
            bytes.push(b',');
        }
        Ok(())
    })?;
    if out.last() == Some(&b',') {
        out.pop();
    }
    let max_tokens = if request.max_tokens == 0 {
        crate::catalog::CLIENT_DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    out.extend_from_slice(b"],\"max_tokens\":");
    serde_json::to_writer(&mut out, &max_tokens)?;
    out.extend_from_slice(b",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
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
        out.extend_from_slice(b",\"tools\":");
        serde_json::to_writer(&mut out, &tools)?;
    }
    // As `Value`s, as the body always wrote them (an f32 temperature
    // widened to f64).
    if let Some(t) = request.temperature {
        out.extend_from_slice(b",\"temperature\":");
        serde_json::to_writer(&mut out, &json!(t))?;
    }
    if let Some(seed) = request.seed {
        out.extend_from_slice(b",\"seed\":");
        serde_json::to_writer(&mut out, &json!(seed))?;
    }
    if request.one_tool_call && !request.tools.is_empty() {
        out.extend_from_slice(b",\"parallel_tool_calls\":false");
    }
    if extras.cache_prompt {
        out.extend_from_slice(b",\"cache_prompt\":true");
    }
    if extras.return_progress {
        out.extend_from_slice(b",\"return_progress\":true");
    }
    out.push(b'}');
    Ok(out)
}

/// The chat-completions messages one history message becomes.
fn wire_messages(message: &Message) -> Vec<Value> {
    match message.role {
        Role::Assistant => assistant_message(message).into_iter().collect(),
        Role::User => user_messages(message),
    }
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
    if result.content.has_document() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(DOCUMENT_DROPPED_NOTE);
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// The body as the equivalent `Value` serializes.
    fn expected(request: &ModelRequest, cache_prompt: bool) -> String {
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        messages.extend(request.messages.iter().flat_map(|m| wire_messages(m)));
        let mut body = json!({
            "model": request.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {
                "name": "Read", "description": "reads", "parameters": {"type": "object"},
            }}],
            "temperature": json!(0.7f32),
        });
        if request.one_tool_call {
            body["parallel_tool_calls"] = json!(false);
        }
        if cache_prompt {
            body["cache_prompt"] = json!(true);
            body["return_progress"] = json!(true);
        }
        body.to_string()
    }

    #[test]
    fn the_bytes_are_those_of_the_equivalent_value_request_after_request() {
        let mut request = ModelRequest {
            model: "qwen".into(),
            system: "be brief".into(),
            messages: vec![
                Message::user_text("read a.txt").into(),
                // Sends nothing: no entries, no stray comma.
                Message::assistant(vec![]).into(),
                Message::user_text("again \"quoted\" é").into(),
            ],
            tools: vec![crate::ToolSpec {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_tokens: 100,
            temperature: Some(0.7),
            ..Default::default()
        };
        let cache = PrefixCache::default();
        for (cache_prompt, one_tool_call) in [(true, true), (false, false)] {
            request.one_tool_call = one_tool_call;
            let extras = LlamaExtras {
                cache_prompt,
                return_progress: cache_prompt,
            };
            let bytes = build_body(&request, extras, &cache).unwrap_or_default();
            assert_eq!(
                String::from_utf8_lossy(&bytes),
                expected(&request, cache_prompt)
            );
            request.messages.push(Arc::new(Message::assistant(vec![
                orbit_protocol::ContentBlock::text("ok"),
            ])));
        }
        assert_eq!(cache.len(), 4);
        // Only an assistant message with nothing to send: an empty list.
        let empty = ModelRequest {
            messages: vec![Message::assistant(vec![]).into()],
            one_tool_call: true,
            ..Default::default()
        };
        let body: Value = serde_json::from_slice(
            &build_body(&empty, LlamaExtras::default(), &cache).unwrap_or_default(),
        )
        .unwrap_or_default();
        assert_eq!(body["messages"], json!([]));
        // No tools: no parallel_tool_calls (OpenAI rejects it without tools).
        assert_eq!(body.get("parallel_tool_calls"), None);
    }

    #[test]
    fn a_pdf_document_in_a_result_becomes_a_note() {
        use orbit_protocol::{ToolResultContent, ToolResultContentBlock};
        let result = ToolResultBlock {
            tool_use_id: "call_1".into(),
            content: ToolResultContent::Blocks(vec![
                ToolResultContentBlock::Text {
                    text: "PDF file read: a.pdf (1KB)".into(),
                },
                ToolResultContentBlock::Document {
                    source: ImageSource::Base64 {
                        media_type: "application/pdf".into(),
                        data: "JVBERi0=".into(),
                    },
                },
            ]),
            is_error: None,
        };
        assert_eq!(
            tool_message(&result)["content"],
            format!("PDF file read: a.pdf (1KB)\n{DOCUMENT_DROPPED_NOTE}")
        );
    }
}
