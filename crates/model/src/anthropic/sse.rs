//! Anthropic SSE events → normalized [`StreamEvent`]s for one attempt.
//!
//! [`Assembler::handle`] takes one SSE event (its `data:` JSON; the type is
//! read from `data.type`, falling back to the `event:` name) and appends the
//! resulting `StreamEvent`s to its output. It keeps the open content blocks
//! by index, accumulates text / thinking / signature / partial tool JSON and
//! emits each block whole in `ContentBlockComplete` at `content_block_stop`.
//! Tool input: empty → `{}` (or the start event's non-empty `input`), JSON
//! that does not parse to an object → `{"__unparsedToolInput": {"raw",
//! "len"}}` plus `invalid_input` = the raw text (`crate::tool_input`), so
//! the engine answers it like Claude Code does instead of crashing.
//! Usage: `message_start` usage merged with `message_delta` usage
//! ([`Usage::merge_delta`]); `MessageDelta.usage` carries the merged total.
//! Compatible servers differ (llama.cpp: no `ping`, no `input` in
//! tool_use starts, non-`toolu_` ids; some send `null` usage fields), so
//! parsing is lenient about absent fields and strict only about JSON syntax.

use std::collections::BTreeMap;

use orbit_protocol::{ContentBlock, StreamEvent, ToolUseBlock, Usage};
use serde_json::Value;

use crate::ModelError;
use crate::tool_input::parse_tool_input;

/// What the attempt loop should do after an event (`Stop`: `message_stop`
/// arrived, the message is complete).
pub(super) use crate::driver::Step as Outcome;

#[derive(Debug)]
enum Open {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        start_input: Option<Value>,
        json: String,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    Redacted(String),
}

/// Per-attempt assembly state.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    open: BTreeMap<usize, Open>,
    usage: Usage,
    stop_reason: Option<String>,
    delta_sent: bool,
    out: Vec<StreamEvent>,
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Reads usage leniently: absent or `null` counts are 0.
fn usage_of(v: &Value) -> Usage {
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
    }
}

/// The final input of a tool_use block and, when it did not parse, the raw
/// text (see `crate::tool_input`). Empty streamed input falls back to the
/// start event's `input` when that is an object.
pub(super) fn finish_tool_input(start_input: Option<Value>, json: &str) -> (Value, Option<String>) {
    if json.trim().is_empty() {
        let input = start_input
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(Default::default()));
        return (input, None);
    }
    parse_tool_input(json)
}

impl Assembler {
    /// A decoder that has seen no event.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Events produced since the last call.
    pub(crate) fn take_events(&mut self) -> std::vec::Drain<'_, StreamEvent> {
        self.out.drain(..)
    }

    /// Handles one SSE event (`event:` name and `data:` text).
    pub(crate) fn handle(&mut self, event_name: &str, data: &str) -> Result<Outcome, ModelError> {
        if data.trim().is_empty() {
            return Ok(Outcome::Continue); // keep-alive comment or empty event
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            let head: String = data.chars().take(120).collect();
            ModelError::Malformed(format!("{e} in `{event_name}` event data: {head}"))
        })?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event_name);
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match kind {
            "message_start" => {
                let m = &v["message"];
                self.usage = usage_of(&m["usage"]);
                self.out.push(StreamEvent::MessageStart {
                    id: str_of(m, "id"),
                    model: str_of(m, "model"),
                    usage: self.usage,
                });
            }
            "content_block_start" => self.start_block(index, &v["content_block"]),
            "content_block_delta" => self.delta(index, &v["delta"]),
            "content_block_stop" => self.stop_block(index),
            "message_delta" => {
                self.close_all();
                if let Some(reason) = v["delta"].get("stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                self.usage.merge_delta(&usage_of(&v["usage"]));
                self.delta_sent = true;
                self.out.push(StreamEvent::MessageDelta {
                    stop_reason: self.stop_reason.clone(),
                    usage: self.usage,
                });
            }
            "message_stop" => {
                self.close_all();
                if !self.delta_sent {
                    self.out.push(StreamEvent::MessageDelta {
                        stop_reason: self.stop_reason.clone(),
                        usage: self.usage,
                    });
                }
                self.out.push(StreamEvent::MessageStop);
                return Ok(Outcome::Stop);
            }
            "error" => {
                let e = &v["error"];
                return Err(ModelError::StreamError {
                    error_type: e
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown_error")
                        .to_string(),
                    message: e
                        .get("message")
                        .and_then(Value::as_str)
                        .map(String::from)
                        .unwrap_or_else(|| v.to_string()),
                });
            }
            // ping and event types added to the API later.
            _ => {}
        }
        Ok(Outcome::Continue)
    }

    fn start_block(&mut self, index: usize, b: &Value) {
        let (open, block) = match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = str_of(b, "text");
                (Open::Text(text.clone()), ContentBlock::text(text))
            }
            Some("tool_use") => {
                let (id, name) = (str_of(b, "id"), str_of(b, "name"));
                let start_input = b.get("input").cloned();
                let shown = start_input
                    .clone()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::Object(Default::default()));
                let block = ContentBlock::ToolUse(ToolUseBlock {
                    id: id.clone(),
                    name: name.clone(),
                    input: shown,
                });
                let open = Open::ToolUse {
                    id,
                    name,
                    start_input,
                    json: String::new(),
                };
                (open, block)
            }
            Some("thinking") => {
                let (thinking, signature) = (str_of(b, "thinking"), str_of(b, "signature"));
                let block = ContentBlock::Thinking {
                    thinking: thinking.clone(),
                    signature: signature.clone(),
                };
                (
                    Open::Thinking {
                        thinking,
                        signature,
                    },
                    block,
                )
            }
            Some("redacted_thinking") => {
                let data = str_of(b, "data");
                (
                    Open::Redacted(data.clone()),
                    ContentBlock::RedactedThinking { data },
                )
            }
            // Server tools and future block types are not part of the history.
            _ => return,
        };
        self.open.insert(index, open);
        self.out
            .push(StreamEvent::ContentBlockStart { index, block });
    }

    fn delta(&mut self, index: usize, d: &Value) {
        let Some(open) = self.open.get_mut(&index) else {
            return;
        };
        match (d.get("type").and_then(Value::as_str), open) {
            (Some("text_delta"), Open::Text(text)) => {
                let t = str_of(d, "text");
                text.push_str(&t);
                self.out.push(StreamEvent::TextDelta { index, text: t });
            }
            (Some("input_json_delta"), Open::ToolUse { json, .. }) => {
                let p = str_of(d, "partial_json");
                json.push_str(&p);
                self.out.push(StreamEvent::InputJsonDelta {
                    index,
                    partial_json: p,
                });
            }
            (Some("thinking_delta"), Open::Thinking { thinking, .. }) => {
                let t = str_of(d, "thinking");
                thinking.push_str(&t);
                self.out
                    .push(StreamEvent::ThinkingDelta { index, thinking: t });
            }
            (Some("signature_delta"), Open::Thinking { signature, .. }) => {
                signature.push_str(&str_of(d, "signature"));
            }
            // citations_delta and mismatched deltas carry nothing we keep.
            _ => {}
        }
    }

    fn stop_block(&mut self, index: usize) {
        let Some(open) = self.open.remove(&index) else {
            return;
        };
        let (block, invalid_input) = match open {
            Open::Text(text) => (ContentBlock::text(text), None),
            Open::ToolUse {
                id,
                name,
                start_input,
                json,
            } => {
                let (input, invalid) = finish_tool_input(start_input, &json);
                (
                    ContentBlock::ToolUse(ToolUseBlock { id, name, input }),
                    invalid,
                )
            }
            Open::Thinking {
                thinking,
                signature,
            } => (
                ContentBlock::Thinking {
                    thinking,
                    signature,
                },
                None,
            ),
            Open::Redacted(data) => (ContentBlock::RedactedThinking { data }, None),
        };
        self.out.push(StreamEvent::ContentBlockComplete {
            index,
            block,
            invalid_input,
        });
    }

    /// Completes blocks a server forgot to stop, in index order.
    fn close_all(&mut self) {
        let open: Vec<usize> = self.open.keys().copied().collect();
        for index in open {
            self.stop_block(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_input_edge_cases() {
        assert_eq!(finish_tool_input(None, ""), (json!({}), None));
        assert_eq!(
            finish_tool_input(Some(json!({"a": 1})), " "),
            (json!({"a": 1}), None)
        );
        assert_eq!(
            finish_tool_input(Some(json!({})), r#"{"b":2}"#),
            (json!({"b": 2}), None)
        );
        assert_eq!(
            finish_tool_input(None, r#"{"b":"#),
            (
                json!({"__unparsedToolInput": {"raw": "{\"b\":", "len": 5}}),
                Some(r#"{"b":"#.into())
            )
        );
        assert_eq!(
            finish_tool_input(Some(json!({"a": 1})), "[1]"),
            (
                json!({"__unparsedToolInput": {"raw": "[1]", "len": 3}}),
                Some("[1]".into())
            )
        );
    }

    #[test]
    fn blocks_left_open_are_completed_at_message_stop() {
        let mut a = Assembler::new();
        let start =
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
        assert_eq!(
            a.handle("content_block_start", start).ok(),
            Some(Outcome::Continue)
        );
        let delta =
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#;
        assert!(a.handle("content_block_delta", delta).is_ok());
        assert_eq!(a.handle("message_stop", "{}").ok(), Some(Outcome::Stop));
        let events: Vec<StreamEvent> = a.take_events().collect();
        assert_eq!(
            events[2],
            StreamEvent::ContentBlockComplete {
                index: 0,
                block: ContentBlock::text("hi"),
                invalid_input: None
            }
        );
        assert_eq!(events.last(), Some(&StreamEvent::MessageStop));
    }
}
