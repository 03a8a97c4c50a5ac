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

mod turn;

use serde_json::{Value, json};

pub use turn::Turn;

use crate::http::{ScriptServer, WireReply};

/// Model name reported by turns that do not set one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5-20250929";

/// The body of an `overloaded_error` (HTTP 529 or stream `error` event).
pub const OVERLOADED_BODY: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;

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
