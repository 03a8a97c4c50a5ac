//! A fake Anthropic Messages API: scripted [`Reply`]s rendered to the exact
//! SSE wire format (`event: X\ndata: {json}\n\n`, `text/event-stream`).
//!
//! Data flow: a test builds [`Turn`]s (content blocks, usage, delays,
//! faults) and [`Reply`]s (a turn, an HTTP status, a hang) →
//! [`FakeAnthropic::start`] renders each to a `WireReply` → the shared
//! core ([`crate::fake`] over [`crate::http::ScriptServer`]) answers
//! `POST …/messages` requests with them in order and captures every
//! request. Rendering follows the real API: `message_start`,
//! one `ping`, per block `content_block_start` / deltas / `content_block_stop`,
//! `message_delta` (stop_reason, output usage), `message_stop`. Text and
//! thinking arrive in two deltas, tool input in several `input_json_delta`
//! fragments (the first one empty, as the API does), so clients must
//! assemble partial JSON.
//!
//! Fault positions (`cut_after(n)`, `malformed_at(n)`, …) count SSE events
//! (frames) of the rendered turn, `message_start` being event 0 and `ping`
//! event 1 (unless `no_ping`). [`Turn::event_count`] tells how many there are.

pub mod side;
mod turn;

use serde_json::Value;

pub use turn::Turn;

use crate::fake::{FakeServer, ReplyOf};

/// Model name reported by turns that do not set one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5-20250929";

/// The body of an `overloaded_error` (HTTP 529 or stream `error` event).
pub const OVERLOADED_BODY: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;

/// One scripted answer to a `/v1/messages` request.
pub type Reply = ReplyOf<Turn>;

/// The fake Anthropic server. Dropping it stops the server.
pub type FakeAnthropic = FakeServer<Turn>;

impl Reply {
    /// A streamed assistant message (possibly with a fault, see [`Turn`]).
    pub fn turn(turn: Turn) -> Self {
        Self::stream(turn)
    }

    /// Shorthand: a turn with one tool_use block, `tool_use`.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self::turn(Turn::new().tool_use(id, name, input))
    }

    /// HTTP 529 `overloaded_error`.
    pub fn overloaded() -> Self {
        Self::status(529, OVERLOADED_BODY)
    }

    /// A 200 SSE response that never sends an event (idle-timeout tests).
    pub fn hang() -> Self {
        Self::turn(Turn::new().hang_after(0))
    }
}

crate::fake::dialect! {
    Turn: POST "/messages" under "", env "ANTHROPIC_BASE_URL" "ANTHROPIC_API_KEY",
    server error "api_error", ids "msg_fake_", model DEFAULT_MODEL
}
