//! [`Turn`]: one streamed assistant message of the fake Anthropic API and
//! its rendering to SSE frames (`message_start`, `ping`, blocks with their
//! deltas, `message_delta`, `message_stop`), with the fault, if any, applied.

use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Frame, WireReply, sse_event};
use crate::script::{Delivery, Fault, halves, stream_builders, thirds, tool_builders};

/// The event `malformed_at` inserts: a `content_block_delta` cut mid-string.
const MALFORMED_EVENT: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tru\n\n";

#[derive(Debug, Clone)]
enum Block {
    Text(Vec<String>),
    ToolUse {
        id: String,
        name: String,
        fragments: Vec<String>,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking(String),
}

/// One streamed assistant message, built block by block.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    id: Option<String>,
    model: Option<String>,
    blocks: Vec<Block>,
    stop_reason: Option<String>,
    input_tokens: u64,
    output_tokens: u64,
    cache_creation_tokens: u64,
    cache_read_tokens: u64,
    no_ping: bool,
    omit_tool_input: bool,
    block_delays: Vec<(usize, Duration)>,
    delivery: Delivery,
}

/// Splits serialized JSON into an empty first fragment plus up to three pieces.
fn json_fragments(input: &Value) -> Vec<String> {
    let text = input.to_string();
    let mut out = vec![String::new()];
    if text == "{}" {
        return out; // the API streams an empty object as "" only
    }
    out.extend(thirds(&text));
    out
}

impl Turn {
    pub fn new() -> Self {
        Self::default()
    }

    /// A text block, streamed in two `text_delta`s.
    pub fn text(mut self, text: impl AsRef<str>) -> Self {
        self.blocks.push(Block::Text(halves(text.as_ref())));
        self
    }

    /// A text block streamed as exactly these `text_delta`s.
    pub fn text_chunks(mut self, chunks: &[&str]) -> Self {
        self.blocks
            .push(Block::Text(chunks.iter().map(|c| c.to_string()).collect()));
        self
    }

    tool_builders! {
        /// A tool_use block; `input` is streamed as several `input_json_delta`
        /// fragments (`{}` as a single empty fragment).
        tool_use with json_fragments,
        /// A tool_use block whose input is streamed as exactly these raw
        /// fragments (may be invalid JSON).
        tool_use_raw,
    }

    fn tool(mut self, id: String, name: String, fragments: Vec<String>) -> Self {
        self.blocks.push(Block::ToolUse {
            id,
            name,
            fragments,
        });
        self
    }

    /// A thinking block: two `thinking_delta`s then one `signature_delta`.
    pub fn thinking(mut self, thinking: impl Into<String>, signature: impl Into<String>) -> Self {
        self.blocks.push(Block::Thinking {
            thinking: thinking.into(),
            signature: signature.into(),
        });
        self
    }

    /// A redacted_thinking block (data only in `content_block_start`).
    pub fn redacted_thinking(mut self, data: impl Into<String>) -> Self {
        self.blocks.push(Block::RedactedThinking(data.into()));
        self
    }

    /// `stop_reason` in `message_delta` (default: `tool_use` when the turn
    /// has a tool_use block, else `end_turn`).
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// Input tokens (in `message_start`) and output tokens (in
    /// `message_delta`). Default 0 / 0.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.input_tokens = input_tokens;
        self.output_tokens = output_tokens;
        self
    }

    /// Cache creation / read input tokens (in `message_start`).
    pub fn cache_usage(mut self, creation_tokens: u64, read_tokens: u64) -> Self {
        self.cache_creation_tokens = creation_tokens;
        self.cache_read_tokens = read_tokens;
        self
    }

    /// No `ping` event (llama.cpp and other compatible servers send none).
    pub fn no_ping(mut self) -> Self {
        self.no_ping = true;
        self
    }

    /// tool_use `content_block_start` without an `input` field.
    pub fn omit_tool_input(mut self) -> Self {
        self.omit_tool_input = true;
        self
    }

    /// llama.cpp's dialect: no ping, no `input` in tool_use starts. (Ids are
    /// whatever the test passes, e.g. non-`toolu_` ones.)
    pub fn llama_style(self) -> Self {
        self.no_ping().omit_tool_input()
    }

    /// Sleep before the `content_block_start` of block `index` (0-based);
    /// `index` = number of blocks means before `message_delta`. Use it to
    /// let a completed tool_use block sit while the rest of the message drips.
    pub fn delay_before_block(mut self, index: usize, delay: Duration) -> Self {
        self.block_delays.push((index, delay));
        self
    }

    /// After `n` events send `event: error` with this error type and message,
    /// then end the body (as the API does on a mid-stream overload).
    pub fn error_after(
        self,
        n: usize,
        error_type: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let error = json!({"type": "error",
            "error": {"type": error_type.into(), "message": message.into()}});
        self.fault(Fault::ErrorAfter(n, sse_event("error", &error.to_string())))
    }

    stream_builders!(event_delay);

    /// Number of SSE events of the complete (fault-free) rendering.
    pub fn event_count(&self) -> usize {
        self.events(1).len()
    }

    /// The complete rendering, before faults.
    fn events(&self, position: usize) -> Vec<Frame> {
        let (id, model) = self.id_and_model(position);
        let block_delay = |i: usize| -> Duration {
            self.block_delays
                .iter()
                .filter(|(b, _)| *b == i)
                .map(|(_, d)| *d)
                .sum()
        };
        let mut out: Vec<(Duration, String)> = Vec::new();
        let start = json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {
                "input_tokens": self.input_tokens,
                "cache_creation_input_tokens": self.cache_creation_tokens,
                "cache_read_input_tokens": self.cache_read_tokens,
                "output_tokens": self.output_tokens.min(1),
            }
        }});
        out.push((
            Duration::ZERO,
            sse_event("message_start", &start.to_string()),
        ));
        if !self.no_ping {
            out.push((Duration::ZERO, sse_event("ping", r#"{"type": "ping"}"#)));
        }
        for (index, block) in self.blocks.iter().enumerate() {
            let (start_block, deltas): (Value, Vec<Value>) = match block {
                Block::Text(chunks) => (
                    json!({"type": "text", "text": ""}),
                    chunks
                        .iter()
                        .map(|t| json!({"type": "text_delta", "text": t}))
                        .collect(),
                ),
                Block::ToolUse {
                    id,
                    name,
                    fragments,
                } => {
                    let mut b = json!({"type": "tool_use", "id": id, "name": name});
                    if !self.omit_tool_input {
                        b["input"] = json!({});
                    }
                    let deltas = fragments
                        .iter()
                        .map(|f| json!({"type": "input_json_delta", "partial_json": f}))
                        .collect();
                    (b, deltas)
                }
                Block::Thinking {
                    thinking,
                    signature,
                } => {
                    let mut d: Vec<Value> = halves(thinking)
                        .iter()
                        .map(|t| json!({"type": "thinking_delta", "thinking": t}))
                        .collect();
                    d.push(json!({"type": "signature_delta", "signature": signature}));
                    (json!({"type": "thinking", "thinking": ""}), d)
                }
                Block::RedactedThinking(data) => (
                    json!({"type": "redacted_thinking", "data": data}),
                    Vec::new(),
                ),
            };
            let start = json!({"type": "content_block_start", "index": index, "content_block": start_block});
            out.push((
                block_delay(index),
                sse_event("content_block_start", &start.to_string()),
            ));
            for delta in deltas {
                let d = json!({"type": "content_block_delta", "index": index, "delta": delta});
                out.push((
                    Duration::ZERO,
                    sse_event("content_block_delta", &d.to_string()),
                ));
            }
            let stop = json!({"type": "content_block_stop", "index": index});
            out.push((
                Duration::ZERO,
                sse_event("content_block_stop", &stop.to_string()),
            ));
        }
        let has_tool = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        let stop_reason = self
            .stop_reason
            .clone()
            .unwrap_or_else(|| if has_tool { "tool_use" } else { "end_turn" }.to_string());
        let delta = json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": self.output_tokens}});
        out.push((
            block_delay(self.blocks.len()),
            sse_event("message_delta", &delta.to_string()),
        ));
        out.push((
            Duration::ZERO,
            sse_event("message_stop", r#"{"type":"message_stop"}"#),
        ));
        out.into_iter()
            .enumerate()
            .map(|(i, (delay, data))| Frame {
                delay: if i > 0 {
                    delay + self.delivery.gap
                } else {
                    delay
                },
                data,
            })
            .collect()
    }

    /// The Messages API's error body: `{"type": "error", "error": {"type", "message"}}`.
    pub(super) fn wire_error_body(error_type: &str, message: &str) -> String {
        json!({"type": "error", "error": {"type": error_type, "message": message}}).to_string()
    }

    /// Renders the turn (with its fault) as a wire reply.
    pub(super) fn render_stream(&self, position: usize) -> WireReply {
        self.delivery
            .render(self.events(position), MALFORMED_EVENT)
            .with_header("request-id", format!("req_fake_{position}"))
    }
}
