//! The messages of a scripted exchange: [`CapturedRequest`] is a request
//! as the server received it; [`WireReply`] is a reply exactly as it goes
//! on the wire — status, headers, and a body that is whole or streamed as
//! [`Frame`]s ending as [`StreamEnd`] says, each frame optionally framed in
//! binary ([`EncodeFrame`]); [`sse_event`] and [`sse_data`] make SSE frames.
//! The fakes render their scripted replies to these; `super::wire` writes
//! them.

use std::time::{Duration, Instant};

use serde_json::Value;

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct CapturedRequest {
    pub method: String,
    /// Path with query, as sent (`/v1/messages`).
    pub path: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::Null` when empty or not JSON).
    pub body: Value,
    /// The body as received (lossy UTF-8).
    pub raw_body: String,
    /// 0-based number of the TCP connection it came on (equal ids = the
    /// client reused a pooled connection).
    pub connection_id: usize,
    /// When the first byte of this request arrived.
    pub received_at: Instant,
    /// When the server finished writing the response (None while streaming
    /// or hanging).
    pub responded_at: Option<Instant>,
}

impl CapturedRequest {
    /// First value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One chunk of a streamed body, sent after `delay`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) delay: Duration,
    pub(crate) data: String,
}

/// How a streamed body ends after its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamEnd {
    /// Final zero-length chunk; the connection stays usable (keep-alive).
    Complete,
    /// The final zero-length chunk only after this delay (a server whose
    /// last frame and end of body arrive in different reads); then as
    /// [`StreamEnd::Complete`].
    CompleteAfter(Duration),
    /// The socket is closed without the final chunk (a cut stream).
    Abort,
    /// Nothing more is sent until the server is dropped (idle-timeout tests).
    Hang,
}

/// A response body: whole, or streamed frame by frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WireBody {
    Full(String),
    Stream { frames: Vec<Frame>, end: StreamEnd },
}

/// A response exactly as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireReply {
    pub(crate) status: u16,
    /// Extra headers (content-type is included here by the constructors).
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: WireBody,
    /// Turns each streamed frame's text into the bytes sent (a binary
    /// framing such as Bedrock's event-stream); None sends the text.
    pub(crate) encode_frame: Option<EncodeFrame>,
}

/// A binary framing of streamed frames (see [`WireReply`]'s `encode_frame`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EncodeFrame(pub(crate) fn(&str) -> Vec<u8>);

impl PartialEq for EncodeFrame {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for EncodeFrame {}

impl WireReply {
    /// A whole JSON body with the given status.
    pub(crate) fn json(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: WireBody::Full(body.into()),
            encode_frame: None,
        }
    }

    /// A `200 text/event-stream` response made of `frames`.
    pub(crate) fn sse(frames: Vec<Frame>, end: StreamEnd) -> Self {
        Self {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: WireBody::Stream { frames, end },
            encode_frame: None,
        }
    }

    /// Adds a header.
    pub(crate) fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// An SSE frame with an event name: `event: NAME\ndata: DATA\n\n`.
pub(crate) fn sse_event(event: &str, data: &str) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// An SSE frame without an event name: `data: DATA\n\n` (OpenAI style).
pub(crate) fn sse_data(data: &str) -> String {
    format!("data: {data}\n\n")
}
