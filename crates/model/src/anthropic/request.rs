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

/// Serializes `request` to the JSON body (`stream: true`), in one pass
/// over the history: every message but the newest is written straight to
/// the bytes (no intermediate `Value` tree, whose allocations would grow
/// with the history on every request); only the newest goes through a
/// `Value`, to get its `cache_control` marker. The bytes are those of the
/// equivalent `Value` (same keys, same order).
pub(super) fn build_body(request: &ModelRequest) -> Result<Vec<u8>, serde_json::Error> {
    let max_tokens = if request.max_tokens == 0 {
        DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    let mut out = Vec::with_capacity(BODY_CAPACITY_BYTES);
    out.extend_from_slice(b"{\"model\":");
    serde_json::to_writer(&mut out, &request.model)?;
    out.extend_from_slice(b",\"max_tokens\":");
    serde_json::to_writer(&mut out, &max_tokens)?;
    if !request.system.is_empty() {
        out.extend_from_slice(b",\"system\":");
        let system =
            json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}]);
        serde_json::to_writer(&mut out, &system)?;
    }
    out.extend_from_slice(b",\"messages\":[");
    if let Some((newest, earlier)) = request.messages.split_last() {
        for message in earlier {
            serde_json::to_writer(&mut out, message)?;
            out.push(b',');
        }
        let mut newest = serde_json::to_value(newest)?;
        mark_newest_message(&mut newest);
        serde_json::to_writer(&mut out, &newest)?;
    }
    out.push(b']');
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":");
        serde_json::to_writer(&mut out, &request.tools)?;
    }
    if let Some(t) = request.temperature {
        // Via the shortest decimal form: 0.7f32 as f64 would be 0.699999988….
        let t: f64 = t.to_string().parse().unwrap_or(f64::from(t));
        out.extend_from_slice(b",\"temperature\":");
        serde_json::to_writer(&mut out, &t)?;
    }
    out.extend_from_slice(b",\"stream\":true}");
    Ok(out)
}

/// First allocation of a request body; it grows with the history.
const BODY_CAPACITY_BYTES: usize = 16 * 1024;

/// Adds `cache_control` to the last cacheable block of the newest message.
fn mark_newest_message(message: &mut Value) {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
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
        let body: Value =
            serde_json::from_slice(&build_body(&request).unwrap_or_default()).unwrap_or_default();
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

    #[test]
    fn the_bytes_are_those_of_the_equivalent_value() {
        let request = ModelRequest {
            model: "claude-x".into(),
            system: "be brief".into(),
            messages: vec![
                Message::user_text("read a.txt"),
                Message::assistant(vec![ContentBlock::text("ok \"quoted\" é")]),
                Message::user_text("now b.txt"),
            ],
            tools: vec![crate::ToolSpec {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object", "properties": {"p": {"type": "string"}}}),
            }],
            max_tokens: 100,
            temperature: Some(0.7),
            ..Default::default()
        };
        let mut messages = serde_json::to_value(&request.messages).unwrap_or_default();
        if let Some(last) = messages.as_array_mut().and_then(|m| m.last_mut()) {
            mark_newest_message(last);
        }
        let expected = json!({
            "model": "claude-x",
            "max_tokens": 100,
            "system": [{"type": "text", "text": "be brief", "cache_control": ephemeral()}],
            "messages": messages,
            "tools": serde_json::to_value(&request.tools).unwrap_or_default(),
            "temperature": 0.7,
            "stream": true,
        });
        let bytes = build_body(&request).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            serde_json::to_string(&expected).unwrap_or_default()
        );
        // No messages: an empty array, still valid JSON.
        let empty = build_body(&ModelRequest::default()).unwrap_or_default();
        let parsed: Value = serde_json::from_slice(&empty).unwrap_or_default();
        assert_eq!(parsed["messages"], json!([]));
    }
}
