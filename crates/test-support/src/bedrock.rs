//! A fake Amazon Bedrock runtime: `POST /model/<id>/invoke-with-response-stream`
//! answered with real AWS event-stream frames, and a SigV4 checker that
//! recomputes a captured request's `Authorization` header from the
//! credentials (`sigv4`, written from AWS's specification, independent of
//! the signer orbit uses).
//!
//! Data flow: a test scripts [`BedrockTurn`]s (an Anthropic [`Turn`] —
//! the same DSL, usage and faults) → each renders to the Anthropic SSE
//! frames, and the reply's frame encoder ([`encode_frame`]) turns every
//! SSE event into one event-stream frame at send time: a `chunk` event
//! whose payload is `{"bytes": base64(the event's JSON)}`; an `error`
//! event becomes an exception frame (`overloaded_error` →
//! `serviceUnavailableException`, `rate_limit_error` →
//! `throttlingException`); an event whose JSON does not parse (the
//! `malformed_at` fault) becomes a frame with a wrong message CRC. Status
//! replies carry Bedrock's `{"message": …}` body.

pub mod sigv4;

use base64::Engine;
use serde_json::{Value, json};

use crate::anthropic::Turn;
use crate::fake::{FakeServer, ReplyOf};
use crate::http::WireReply;

/// The test credentials of [`bedrock_env`].
pub const ACCESS_KEY_ID: &str = "AKIDORBITTEST";
/// The secret of [`ACCESS_KEY_ID`] (the fake's `ENV_API_KEY` value).
pub const SECRET_ACCESS_KEY: &str = "test-key";
/// The region of [`bedrock_env`].
pub const REGION: &str = "us-west-2";

/// Implements [`Dialect`] for a newtype over [`Turn`] (a cloud provider
/// that streams Anthropic turns) from its wire facts, `render` (the
/// Anthropic rendering of a turn → this provider's reply) and
/// `error_body`, plus `ReplyOf::turn`.
macro_rules! turn_dialect {
    ($name:ident: POST $route:literal under $base:literal, env $url:literal $key:literal,
     server error $server_error:literal, ids $prefix:literal,
     render $render:expr, error body $error_body:expr) => {
        impl $name {
            fn new() -> Self {
                $name($crate::anthropic::Turn::new())
            }

            fn text(self, text: &str) -> Self {
                $name(self.0.text(text))
            }

            fn render_stream(&self, position: usize) -> $crate::http::WireReply {
                let turn = &self.0;
                $render(<$crate::anthropic::Turn as $crate::fake::Dialect>::render(
                    turn, position,
                ))
            }

            fn wire_error_body(error_type: &str, message: &str) -> String {
                $error_body(error_type, message)
            }
        }

        $crate::fake::dialect! {
            $name: POST $route under $base, env $url $key,
            server error $server_error, ids $prefix, model $crate::anthropic::DEFAULT_MODEL
        }

        impl $crate::fake::ReplyOf<$name> {
            /// A streamed turn.
            pub fn turn(turn: $crate::anthropic::Turn) -> Self {
                Self::stream($name(turn))
            }
        }
    };
}
pub(crate) use turn_dialect;

/// One streamed Bedrock answer: an Anthropic turn in event-stream frames.
#[derive(Debug, Clone)]
pub struct BedrockTurn(pub Turn);

/// One scripted answer of the fake Bedrock.
pub type BedrockReply = ReplyOf<BedrockTurn>;

/// The fake Bedrock runtime. Dropping it stops the server.
pub type FakeBedrock = FakeServer<BedrockTurn>;

turn_dialect! {
    BedrockTurn: POST "/invoke-with-response-stream" under "",
    env "ANTHROPIC_BEDROCK_BASE_URL" "AWS_SECRET_ACCESS_KEY",
    server error "internalServerException", ids "msg_bdrk_",
    render in_event_stream, error body |_type: &str, message: &str| json!({ "message": message }).to_string()
}

/// An Anthropic SSE reply as Bedrock sends it: event-stream content type,
/// each frame encoded by [`encode_frame`].
fn in_event_stream(mut wire: WireReply) -> WireReply {
    wire.headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
    wire.headers.push((
        "content-type".into(),
        "application/vnd.amazon.eventstream".into(),
    ));
    wire.encode_frame = Some(crate::http::EncodeFrame(encode_frame));
    wire
}

/// Environment for `orbit` against `server`: Bedrock on, its URL, the
/// region and the test keys, no instance metadata lookups, fast retries.
pub fn bedrock_env(server: &FakeBedrock) -> Vec<(String, String)> {
    let mut env = server.env();
    env.extend(
        [
            ("CLAUDE_CODE_USE_BEDROCK", "1"),
            ("AWS_REGION", REGION),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY_ID),
            ("AWS_EC2_METADATA_DISABLED", "true"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    env
}

/// One event-stream frame with string headers.
pub fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in headers {
        block.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
        block.extend_from_slice(name.as_bytes());
        block.push(7);
        block.extend_from_slice(&u16::try_from(value.len()).unwrap_or(u16::MAX).to_be_bytes());
        block.extend_from_slice(value.as_bytes());
    }
    let total = 12 + block.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&u32::try_from(total).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&u32::try_from(block.len()).unwrap_or(u32::MAX).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&block);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// One SSE event's text (`event: X\ndata: Y\n\n`) as the frame Bedrock
/// would send (see the module docs).
pub fn encode_frame(sse: &str) -> Vec<u8> {
    let field = |name: &str| {
        sse.lines()
            .find_map(|l| l.strip_prefix(name).map(str::trim_start))
            .unwrap_or_default()
    };
    let (event, data) = (field("event:"), field("data:"));
    let parsed: Option<Value> = serde_json::from_str(data).ok();
    if event == "error" {
        let error = parsed.as_ref().map(|v| &v["error"]);
        let exception = match error.and_then(|e| e["type"].as_str()) {
            Some("overloaded_error") => "serviceUnavailableException",
            Some("rate_limit_error") => "throttlingException",
            _ => "internalServerException",
        };
        let message = error.and_then(|e| e["message"].as_str()).unwrap_or("error");
        let payload = json!({ "message": message }).to_string();
        return frame(
            &[
                (":exception-type", exception),
                (":content-type", "application/json"),
                (":message-type", "exception"),
            ],
            payload.as_bytes(),
        );
    }
    let bytes = base64::engine::general_purpose::STANDARD.encode(data);
    let payload = json!({ "bytes": bytes, "p": "abcdefghij" }).to_string();
    let mut out = frame(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    );
    if parsed.is_none() {
        // The malformed fault: a frame whose message CRC does not match.
        if let Some(last) = out.last_mut() {
            *last ^= 0xff;
        }
    }
    out
}
