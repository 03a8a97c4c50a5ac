//! A fake Anthropic Messages API: scripted [`Reply`]s rendered to the exact
//! SSE wire format (`event: X\ndata: {json}\n\n`, `text/event-stream`).
//!
//! Data flow: a test builds [`Turn`]s (content blocks, usage, delays,
//! faults) and [`Reply`]s (a turn, an HTTP status, a hang) →
//! [`FakeAnthropic::start`] renders each to a [`WireReply`] → the shared
//! [`ScriptServer`] answers `POST …/messages` requests with them in order and
//! captures every request. Rendering follows the real API: `message_start`,
//! one `ping`, per block `content_block_start` / deltas / `content_block_stop`,
//! `message_delta` (stop_reason, output usage), `message_stop`. Text and
//! thinking arrive in two deltas, tool input in several `input_json_delta`
//! fragments (the first one empty, as the API does), so clients must
//! assemble partial JSON.
//!
//! Fault positions (`cut_after(n)`, `malformed_at(n)`, …) count SSE events
//! (frames) of the rendered turn, `message_start` being event 0 and `ping`
//! event 1 (unless `no_ping`). [`Turn::event_count`] tells how many there are.

use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Frame, ScriptServer, StreamEnd, WireReply, sse_event};

/// Model name reported by turns that do not set one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5-20250929";

/// The body of an `overloaded_error` (HTTP 529 or stream `error` event).
pub const OVERLOADED_BODY: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;

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
    fn render(&self, position: usize) -> WireReply {
        let mut events = self.events(position);
        let mut end = StreamEnd::Complete;
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

#[derive(Debug, Clone)]
enum ReplyKind {
    Turn(Box<Turn>),
    Status { status: u16, body: String },
}

/// One scripted answer to a `/v1/messages` request.
#[derive(Debug, Clone)]
pub struct Reply {
    kind: ReplyKind,
    headers: Vec<(String, String)>,
}

impl Reply {
    /// A streamed assistant message (possibly with a fault, see [`Turn`]).
    pub fn turn(turn: Turn) -> Self {
        Self {
            kind: ReplyKind::Turn(Box::new(turn)),
            headers: Vec::new(),
        }
    }

    /// Shorthand: a turn with one text block, `end_turn`.
    pub fn text(text: impl AsRef<str>) -> Self {
        Self::turn(Turn::new().text(text))
    }

    /// Shorthand: a turn with one tool_use block, `tool_use`.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self::turn(Turn::new().tool_use(id, name, input))
    }

    /// An HTTP error (or any status) with a whole JSON body.
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Status {
                status,
                body: body.into(),
            },
            headers: Vec::new(),
        }
    }

    /// An HTTP error with the API's error body shape.
    pub fn api_error(status: u16, error_type: &str, message: &str) -> Self {
        let body = json!({"type": "error", "error": {"type": error_type, "message": message}});
        Self::status(status, body.to_string())
    }

    /// HTTP 529 `overloaded_error`.
    pub fn overloaded() -> Self {
        Self::status(529, OVERLOADED_BODY)
    }

    /// A 200 SSE response that never sends an event (idle-timeout tests).
    pub fn hang() -> Self {
        Self::turn(Turn::new().hang_after(0))
    }

    /// Adds `retry-after: SECS`.
    pub fn retry_after_secs(self, secs: u64) -> Self {
        self.header("retry-after", secs.to_string())
    }

    /// Adds `retry-after-ms: MS`.
    pub fn retry_after_ms(self, ms: u64) -> Self {
        self.header("retry-after-ms", ms.to_string())
    }

    /// Adds any response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The wire form; `position` is the 1-based place in the script.
    pub fn render(&self, position: usize) -> WireReply {
        let mut wire = match &self.kind {
            ReplyKind::Turn(turn) => turn.render(position),
            ReplyKind::Status { status, body } => WireReply::json(*status, body.clone()),
        };
        wire.headers.extend(self.headers.iter().cloned());
        wire
    }
}

fn is_messages_route(method: &str, path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    method == "POST" && path.ends_with("/messages")
}

fn exhausted(index: usize) -> WireReply {
    let body = json!({"type": "error", "error": {"type": "api_error", "message": format!(
        "orbit-test-support: script exhausted: request #{} has no scripted reply", index + 1)}});
    WireReply::json(500, body.to_string())
}

/// The fake Anthropic server. Dropping it stops the server.
pub struct FakeAnthropic {
    server: ScriptServer,
}

impl FakeAnthropic {
    /// Starts serving `replies` in order on 127.0.0.1 (random port).
    pub fn start(replies: Vec<Reply>) -> Self {
        let wire = replies
            .iter()
            .enumerate()
            .map(|(i, r)| r.render(i + 1))
            .collect();
        Self {
            server: ScriptServer::start(wire, is_messages_route, exhausted),
        }
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: Reply) {
        let position = self.server.request_count() + self.server.remaining_replies() + 1;
        self.server.push(reply.render(position));
    }

    /// `http://127.0.0.1:PORT`; use as `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Environment for running `orbit` against this server: base URL, a test
    /// API key, and a 1 ms retry backoff base so fault tests run fast.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("ANTHROPIC_BASE_URL".into(), self.base_url()),
            ("ANTHROPIC_API_KEY".into(), "test-key".into()),
            ("ORBIT_RETRY_BASE_DELAY_MS".into(), "1".into()),
        ]
    }
}

/// Captured requests and waiting come from the shared server core
/// (`requests`, `bodies`, `request_count`, `remaining_replies`,
/// `wait_for_requests`, `wait_for_requests_async`).
impl std::ops::Deref for FakeAnthropic {
    type Target = ScriptServer;

    fn deref(&self) -> &ScriptServer {
        &self.server
    }
}
