//! The Messages API request body for a [`ModelRequest`].
//!
//! Prompt caching: the system prompt is sent as one text block with
//! `cache_control: ephemeral`, and the last cacheable block of the newest
//! message gets one too, so each request reads the previous request's
//! prefix from the cache and writes its own. The marker is added to the
//! serialized body only; the engine's history is never touched, so earlier
//! messages serialize to the same bytes on every request (R2).

use serde_json::{Map, Value, json};

use crate::ModelRequest;

/// `max_tokens` used when the request leaves it at 0.
pub(super) const DEFAULT_MAX_TOKENS: u32 = 8192;

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// Whether the API accepts `cache_control` on this block: not on thinking
/// blocks, and not on empty text blocks.
fn cacheable(block: &Map<String, Value>) -> bool {
    match block.get("type").and_then(Value::as_str) {
        Some("thinking" | "redacted_thinking") => false,
        Some("text") => block
            .get("text")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty()),
        _ => true,
    }
}

/// Serializes `request` to the JSON body (`stream: true`).
pub(super) fn build_body(request: &ModelRequest) -> Result<Value, serde_json::Error> {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    let max_tokens = if request.max_tokens == 0 {
        DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    body.insert("max_tokens".into(), json!(max_tokens));
    if !request.system.is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}]),
        );
    }
    let mut messages = serde_json::to_value(&request.messages)?;
    mark_newest_message(&mut messages);
    body.insert("messages".into(), messages);
    if !request.tools.is_empty() {
        body.insert("tools".into(), serde_json::to_value(&request.tools)?);
    }
    if let Some(t) = request.temperature {
        // Via the shortest decimal form: 0.7f32 as f64 would be 0.699999988….
        let t: f64 = t.to_string().parse().unwrap_or(f64::from(t));
        body.insert("temperature".into(), json!(t));
    }
    body.insert("stream".into(), Value::Bool(true));
    Ok(Value::Object(body))
}

/// Adds `cache_control` to the last cacheable block of the last message.
fn mark_newest_message(messages: &mut Value) {
    let Some(last) = messages.as_array_mut().and_then(|m| m.last_mut()) else {
        return;
    };
    let Some(blocks) = last.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    if let Some(block) = blocks
        .iter_mut()
        .rev()
        .filter_map(Value::as_object_mut)
        .find(|b| cacheable(b))
    {
        block.insert("cache_control".into(), ephemeral());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orbit_protocol::{ContentBlock, Message};

    #[test]
    fn marks_last_cacheable_block_and_keeps_history_untouched() {
        let request = ModelRequest {
            model: "m".into(),
            messages: vec![
                Message::user_text("first"),
                Message::assistant(vec![
                    ContentBlock::text("answer"),
                    ContentBlock::Thinking {
                        thinking: "t".into(),
                        signature: "s".into(),
                    },
                ]),
            ],
            temperature: Some(0.7),
            ..Default::default()
        };
        let body = build_body(&request).unwrap_or_default();
        assert_eq!(body["max_tokens"], 8192);
        assert_eq!(body["temperature"].to_string(), "0.7");
        assert!(body.get("system").is_none() && body.get("tools").is_none());
        assert!(
            body["messages"][0]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert_eq!(
            body["messages"][1]["content"][0]["cache_control"],
            ephemeral()
        );
        assert!(
            body["messages"][1]["content"][1]
                .get("cache_control")
                .is_none()
        );
        assert!(
            !serde_json::to_string(&request.messages)
                .unwrap_or_default()
                .contains("cache")
        );
    }
}
