//! [`Turn`]: one streamed assistant message of the fake Anthropic API and
//! its rendering to SSE frames (`message_start`, `ping`, blocks with their
//! deltas, `message_delta`, `message_stop`), with the fault, if any, applied.

use std::time::Duration;

use serde_json::{Value, json};

use super::DEFAULT_MODEL;
use crate::http::{Frame, StreamEnd, WireReply, sse_event};

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

#[derive(Debug, Clone)]
enum Fault {
    CutAfter(usize),
    EndAfter(usize),
    MalformedAt(usize),
    ErrorAfter(usize, String, String),
    HangAfter(usize),
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
    event_delay: Duration,
    block_delays: Vec<(usize, Duration)>,
    end_delay: Option<Duration>,
    fault: Option<Fault>,
}

fn halves(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 2 {
        return vec![s.to_string()];
    }
    let mid = chars.len() / 2;
    vec![chars[..mid].iter().collect(), chars[mid..].iter().collect()]
}

/// Splits serialized JSON into an empty first fragment plus up to three pieces.
fn json_fragments(input: &Value) -> Vec<String> {
    let text = input.to_string();
    let mut out = vec![String::new()];
    if text == "{}" {
        return out; // the API streams an empty object as "" only
    }
    let chars: Vec<char> = text.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    out.extend(chars.chunks(step).map(|c| c.iter().collect::<String>()));
    out
}

impl Turn {
    pub fn new() -> Self {
        Self::default()
    }

    /// Message id (default `msg_fake_N`, N = 1-based position in the script).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Model name in `message_start` (default [`DEFAULT_MODEL`]).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
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

    /// A tool_use block; `input` is streamed as several `input_json_delta`
    /// fragments (`{}` as a single empty fragment).
    pub fn tool_use(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Self {
        self.blocks.push(Block::ToolUse {
            id: id.into(),
            name: name.into(),
            fragments: json_fragments(&input),
        });
        self
    }

    /// A tool_use block whose input is streamed as exactly these raw
    /// fragments (may be invalid JSON).
    pub fn tool_use_raw(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        fragments: &[&str],
    ) -> Self {
        self.blocks.push(Block::ToolUse {
            id: id.into(),
            name: name.into(),
            fragments: fragments.iter().map(|f| f.to_string()).collect(),
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

    /// Sleep before every event after the first.
    pub fn event_delay(mut self, delay: Duration) -> Self {
        self.event_delay = delay;
        self
    }

    /// Sleep before the `content_block_start` of block `index` (0-based);
    /// `index` = number of blocks means before `message_delta`. Use it to
    /// let a completed tool_use block sit while the rest of the message drips.
    pub fn delay_before_block(mut self, index: usize, delay: Duration) -> Self {
        self.block_delays.push((index, delay));
        self
    }

    /// Send the end of the HTTP body (the final zero-length chunk) only
    /// `delay` after the last event (`message_stop`): the client sees
    /// `message_stop` and the end of the body in different reads.
    pub fn end_body_after(mut self, delay: Duration) -> Self {
        self.end_delay = Some(delay);
        self
    }

    /// Close the connection abruptly after `n` events (no final chunk).
    pub fn cut_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::CutAfter(n));
        self
    }

    /// End the HTTP body cleanly after `n` events (no `message_stop`).
    pub fn end_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::EndAfter(n));
        self
    }

    /// Send an event with invalid JSON in `data:` after `n` events, then the rest.
    pub fn malformed_at(mut self, n: usize) -> Self {
        self.fault = Some(Fault::MalformedAt(n));
        self
    }

    /// After `n` events send `event: error` with this error type and message,
    /// then end the body (as the API does on a mid-stream overload).
    pub fn error_after(
        mut self,
        n: usize,
        error_type: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        self.fault = Some(Fault::ErrorAfter(n, error_type.into(), message.into()));
        self
    }

    /// After `n` events send nothing more until the server is dropped.
    pub fn hang_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::HangAfter(n));
        self
    }

    /// Number of SSE events of the complete (fault-free) rendering.
    pub fn event_count(&self) -> usize {
        self.events(1).len()
    }

    /// The complete rendering as (event delay, frame text), before faults.
    fn events(&self, position: usize) -> Vec<(Duration, String)> {
        let id = self
            .id
            .clone()
            .unwrap_or_else(|| format!("msg_fake_{position}"));
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
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
        for (i, (delay, _)) in out.iter_mut().enumerate() {
            if i > 0 {
                *delay += self.event_delay;
            }
        }
        out
    }

    /// Renders the turn (with its fault) as a wire reply.
    pub(super) fn render(&self, position: usize) -> WireReply {
        let mut events = self.events(position);
        let mut end = self
            .end_delay
            .map_or(StreamEnd::Complete, StreamEnd::CompleteAfter);
        match &self.fault {
            None => {}
            Some(Fault::CutAfter(n)) => {
                events.truncate(*n);
                end = StreamEnd::Abort;
            }
            Some(Fault::EndAfter(n)) => events.truncate(*n),
            Some(Fault::MalformedAt(n)) => {
                let bad = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tru\n\n";
                events.insert((*n).min(events.len()), (self.event_delay, bad.to_string()));
            }
            Some(Fault::ErrorAfter(n, kind, message)) => {
                events.truncate(*n);
                let err = json!({"type": "error", "error": {"type": kind, "message": message}});
                events.push((self.event_delay, sse_event("error", &err.to_string())));
            }
            Some(Fault::HangAfter(n)) => {
                events.truncate(*n);
                end = StreamEnd::Hang;
            }
        }
        let frames = events
            .into_iter()
            .map(|(delay, data)| Frame { delay, data })
            .collect();
        WireReply::sse(frames, end).with_header("request-id", format!("req_fake_{position}"))
    }
}
