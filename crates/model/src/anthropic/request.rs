//! The Messages API request body for a [`ModelRequest`].
//!
//! Prompt caching: the system prompt is sent as one text block with
//! `cache_control: ephemeral`, and the last cacheable block of the newest
//! message gets one too, so each request reads the previous request's
//! prefix from the cache and writes its own. The marker is added to the
//! serialized body only; the engine's history is never touched, so earlier
//! messages serialize to the same bytes on every request (R2) — which is
//! what lets the client reuse their bytes ([`PrefixCache`]). With
//! `DISABLE_PROMPT_CACHING` ([`super::RequestShape::prompt_caching`] off)
//! no marker is sent. Model id, `max_tokens`, thinking, effort and context
//! management come from the request's [`Plan`] (`super::shape`).

use serde_json::{Map, Value, json};

use super::shape::Plan;
use crate::ModelRequest;
use crate::prefix::PrefixCache;

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

/// Serializes `request` to the JSON body (`stream: true`): every message
/// but the newest is written straight to the bytes (no intermediate
/// `Value` tree), and only those the previous request of this client did
/// not send are serialized now (`cache`: the others' bytes are reused);
/// the newest goes through a `Value`, to get its `cache_control` marker.
/// The bytes are those of the equivalent `Value` (same keys, same order).
pub(super) fn build_body(
    request: &ModelRequest,
    plan: &Plan,
    cache: &PrefixCache,
) -> Result<Vec<u8>, serde_json::Error> {
    build_body_for(request, plan, cache, BodyFor::Messages)
}

/// Which API a body is for: the Messages API's, or a cloud provider's
/// (the model is in the URL, not the body, and `anthropic_version` names
/// the provider's API version; Bedrock takes the betas in the body and no
/// `stream` field, as Claude Code 2.1.332 sends them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyFor<'a> {
    /// `POST /v1/messages`.
    Messages,
    /// Bedrock's `invoke-with-response-stream`, with the request's betas.
    Bedrock(&'a [String]),
    /// Vertex AI's `streamRawPredict`.
    Vertex,
}

/// Bedrock's `anthropic_version` body field.
pub(crate) const BEDROCK_VERSION: &str = "bedrock-2023-05-31";
/// Vertex AI's `anthropic_version` body field.
pub(crate) const VERTEX_VERSION: &str = "vertex-2023-10-16";

/// [`build_body`] for the API `target`.
pub(crate) fn build_body_for(
    request: &ModelRequest,
    plan: &Plan,
    cache: &PrefixCache,
    target: BodyFor<'_>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(BODY_CAPACITY_BYTES);
    if target == BodyFor::Messages {
        out.extend_from_slice(b"{\"model\":");
        serde_json::to_writer(&mut out, &plan.model)?;
        out.extend_from_slice(b",\"max_tokens\":");
    } else {
        out.extend_from_slice(b"{\"max_tokens\":");
    }
    serde_json::to_writer(&mut out, &plan.max_tokens)?;
    if let Some(thinking) = &plan.thinking {
        out.extend_from_slice(b",\"thinking\":");
        serde_json::to_writer(&mut out, thinking)?;
    }
    if plan.context_management {
        out.extend_from_slice(b",\"context_management\":");
        serde_json::to_writer(&mut out, &super::shape::context_management())?;
    }
    if let Some(effort) = plan.effort {
        out.extend_from_slice(b",\"output_config\":");
        serde_json::to_writer(&mut out, &json!({"effort": effort.as_str()}))?;
    }
    if !request.system.is_empty() {
        out.extend_from_slice(b",\"system\":");
        let system = if plan.prompt_caching {
            json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}])
        } else {
            json!([{"type": "text", "text": request.system}])
        };
        serde_json::to_writer(&mut out, &system)?;
    }
    out.extend_from_slice(b",\"messages\":[");
    if let Some((newest, earlier)) = request.messages.split_last() {
        cache.write(earlier, &mut out, |message, bytes| {
            serde_json::to_writer(&mut *bytes, message)?;
            bytes.push(b',');
            Ok(())
        })?;
        let mut newest = serde_json::to_value(newest.as_ref())?;
        if plan.prompt_caching {
            mark_newest_message(&mut newest);
        }
        serde_json::to_writer(&mut out, &newest)?;
    }
    out.push(b']');
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":");
        serde_json::to_writer(&mut out, &request.tools)?;
    }
    // The API takes no temperature with thinking on.
    if let Some(t) = request.temperature.filter(|_| plan.thinking.is_none()) {
        // Via the shortest decimal form: 0.7f32 as f64 would be 0.699999988….
        let t: f64 = t.to_string().parse().unwrap_or(f64::from(t));
        out.extend_from_slice(b",\"temperature\":");
        serde_json::to_writer(&mut out, &t)?;
    }
    match target {
        BodyFor::Messages => out.extend_from_slice(b",\"stream\":true}"),
        BodyFor::Vertex => {
            out.extend_from_slice(b",\"stream\":true,\"anthropic_version\":");
            serde_json::to_writer(&mut out, VERTEX_VERSION)?;
            out.push(b'}');
        }
        BodyFor::Bedrock(betas) => {
            if !betas.is_empty() {
                out.extend_from_slice(b",\"anthropic_beta\":");
                serde_json::to_writer(&mut out, betas)?;
            }
            out.extend_from_slice(b",\"anthropic_version\":");
            serde_json::to_writer(&mut out, BEDROCK_VERSION)?;
            out.push(b'}');
        }
    }
    Ok(out)
}

/// First allocation of a request body, in bytes; it grows with the history.
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
    use std::sync::Arc;

    use super::*;
    use orbit_protocol::{ContentBlock, Message};

    fn encode(request: &ModelRequest, cache: &PrefixCache) -> Vec<u8> {
        let plan = Plan::of(request, &super::super::RequestShape::default());
        build_body(request, &plan, cache).unwrap_or_default()
    }

    fn body_of(request: &ModelRequest) -> Value {
        let bytes = encode(request, &PrefixCache::default());
        serde_json::from_slice(&bytes).unwrap_or_default()
    }

    #[test]
    fn marks_last_cacheable_block_and_keeps_history_untouched() {
        let request = ModelRequest {
            model: "m".into(),
            messages: vec![
                Message::user_text("first").into(),
                Message::assistant(vec![
                    ContentBlock::text("answer"),
                    ContentBlock::Thinking {
                        thinking: "t".into(),
                        signature: "s".into(),
                    },
                ])
                .into(),
            ],
            temperature: Some(0.7),
            ..Default::default()
        };
        let body = body_of(&request);
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
        assert!(request.messages.iter().all(|m| {
            !serde_json::to_string(m.as_ref())
                .unwrap_or_default()
                .contains("cache")
        }));
    }

    /// The body as a `Value` tree would serialize it.
    fn expected(request: &ModelRequest) -> String {
        let mut messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| serde_json::to_value(m.as_ref()).unwrap_or_default())
            .collect();
        if let Some(last) = messages.last_mut() {
            mark_newest_message(last);
        }
        let expected = json!({
            "model": request.model,
            "max_tokens": request.max_tokens,
            "system": [{"type": "text", "text": request.system, "cache_control": ephemeral()}],
            "messages": messages,
            "tools": serde_json::to_value(&request.tools).unwrap_or_default(),
            "temperature": 0.7,
            "stream": true,
        });
        serde_json::to_string(&expected).unwrap_or_default()
    }

    #[test]
    fn the_bytes_are_those_of_the_equivalent_value_request_after_request() {
        let mut request = ModelRequest {
            model: "claude-x".into(),
            system: "be brief".into(),
            messages: vec![
                Message::user_text("read a.txt").into(),
                Message::assistant(vec![ContentBlock::text("ok \"quoted\" é")]).into(),
                Message::user_text("now b.txt").into(),
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
        let cache = PrefixCache::default();
        let body =
            |request: &ModelRequest| String::from_utf8(encode(request, &cache)).unwrap_or_default();
        assert_eq!(body(&request), expected(&request));
        // The next request shares the three: the newest of before is now
        // sent without its marker, from the cache's bytes for the first two.
        request
            .messages
            .push(Arc::new(Message::assistant(vec![ContentBlock::text("b")])));
        request.messages.push(Arc::new(Message::user_text("and c")));
        assert_eq!(body(&request), expected(&request));
        assert_eq!(cache.len(), 4);
        // A changed message (a new allocation) is serialized again.
        request.messages[1] = Arc::new(Message::assistant(vec![ContentBlock::text("other")]));
        assert_eq!(body(&request), expected(&request));
        // No messages: an empty array, still valid JSON.
        let parsed = body_of(&ModelRequest::default());
        assert_eq!(parsed["messages"], json!([]));
    }

    #[test]
    fn thinking_is_enabled_below_max_tokens_and_drops_the_temperature() {
        let mut request = ModelRequest {
            model: "m".into(),
            max_tokens: 32_000,
            temperature: Some(0.7),
            thinking_budget: Some(4_000),
            ..Default::default()
        };
        let body = body_of(&request);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 4_000})
        );
        assert_eq!(body["max_tokens"], 32_000);
        assert!(body.get("temperature").is_none(), "{body}");
        request.thinking_budget = Some(50_000);
        assert_eq!(body_of(&request)["thinking"]["budget_tokens"], 31_999);
        request.thinking_budget = Some(0);
        let off = body_of(&request);
        assert!(off.get("thinking").is_none(), "{off}");
        assert_eq!(off["temperature"].to_string(), "0.7");
    }
}
