//! Integration suites per provider, plus what both share: the tests
//! written once over both wire formats (`faults`, `final_errors`,
//! connection reuse in `reuse`) on the [`wire::Wire`] of each, running a call, reading its
//! events (`Retry`s, the last attempt's blocks), the test clients' retry
//! and idle settings, a closed port for unreachable-server tests.

mod anthropic;
mod bedrock;
mod catalog;
mod catalog_literals;
mod faults;
mod final_errors;
mod openai;
mod reuse;
mod vertex;
mod wire;

use std::time::Duration;

use futures::StreamExt;
use orbit_model::{ModelClient, ModelError, ModelRequest, RetryConfig};
use orbit_protocol::{ContentBlock, StreamEvent, Usage};

/// Idle timeout of test clients, in milliseconds: long enough for a loaded
/// machine, short enough that a hang fails fast.
pub const TEST_IDLE_TIMEOUT_MS: u64 = 5_000;

/// The test clients' retry policy: 10 retries, 1 ms backoff capped at 4 ms.
pub fn fast_retry() -> RetryConfig {
    RetryConfig {
        base_delay_ms: 1,
        max_delay_ms: 4,
        ..RetryConfig::default()
    }
}

/// Every event of one call, and the final error if the stream ended with one.
pub async fn run(
    client: &dyn ModelClient,
    req: &ModelRequest,
) -> (Vec<StreamEvent>, Option<ModelError>) {
    let mut stream = client.stream(req);
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => {
                assert!(
                    stream.next().await.is_none(),
                    "an error must end the stream"
                );
                return (events, Some(e));
            }
        }
    }
    (events, None)
}

/// Every event of one call, which must end without an error.
pub async fn run_ok(client: &dyn ModelClient, req: &ModelRequest) -> Vec<StreamEvent> {
    let (events, err) = run(client, req).await;
    assert!(err.is_none(), "{err:?}");
    events
}

/// One `Retry` event's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Retried {
    pub attempt: u32,
    pub max_retries: u32,
    pub status: Option<u16>,
    pub message: String,
    pub delay: Duration,
}

/// The `Retry` events among `events`.
pub fn retries(events: &[StreamEvent]) -> Vec<Retried> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retry {
                attempt,
                max_retries,
                error_status,
                message,
                delay_ms,
            } => Some(Retried {
                attempt: *attempt,
                max_retries: *max_retries,
                status: *error_status,
                message: message.clone(),
                delay: Duration::from_millis(*delay_ms),
            }),
            _ => None,
        })
        .collect()
}

/// The events after the last `Retry` (the attempt that counted).
pub fn last_attempt(events: &[StreamEvent]) -> &[StreamEvent] {
    let start = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::Retry { .. }))
        .map_or(0, |i| i + 1);
    &events[start..]
}

/// The completed blocks of the attempt that counted.
pub fn completed_blocks(events: &[StreamEvent]) -> Vec<ContentBlock> {
    completed_with_invalid_input(last_attempt(events))
        .into_iter()
        .map(|(block, _)| block)
        .collect()
}

/// The `partial_json` fragments of block `index`, in order.
pub fn input_fragments(events: &[StreamEvent], index: usize) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::InputJsonDelta {
                index: i,
                partial_json,
            } if *i == index => Some(partial_json.clone()),
            _ => None,
        })
        .collect()
}

/// A tool_use block.
pub fn tool(id: &str, name: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::tool_use(id, name, input)
}

/// The completed blocks among `events`, with their invalid input.
pub fn completed_with_invalid_input(events: &[StreamEvent]) -> Vec<(ContentBlock, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ContentBlockComplete {
                block,
                invalid_input,
                ..
            } => Some((block.clone(), invalid_input.clone())),
            _ => None,
        })
        .collect()
}

/// A port on 127.0.0.1 that nothing listens on: bound, read, released.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The exact events of a message with the one text block "Hello, world!"
/// streamed as "Hello," + " world!", ending the turn: the same for every
/// provider, given the message's id, model and usage at start and end.
pub fn hello_world_events(id: &str, model: &str, start: Usage, end: Usage) -> Vec<StreamEvent> {
    vec![
        StreamEvent::MessageStart {
            id: id.into(),
            model: model.into(),
            usage: start,
        },
        StreamEvent::ContentBlockStart {
            index: 0,
            block: ContentBlock::text(""),
        },
        StreamEvent::TextDelta {
            index: 0,
            text: "Hello,".into(),
        },
        StreamEvent::TextDelta {
            index: 0,
            text: " world!".into(),
        },
        StreamEvent::ContentBlockComplete {
            index: 0,
            block: ContentBlock::text("Hello, world!"),
            invalid_input: None,
        },
        StreamEvent::MessageDelta {
            stop_reason: Some("end_turn".into()),
            usage: end,
        },
        StreamEvent::MessageStop,
    ]
}

/// A request for `model` with a system prompt and one user message "hi".
pub fn hi_request(model: &str) -> ModelRequest {
    ModelRequest {
        model: model.into(),
        system: "You are terse.".into(),
        messages: vec![std::sync::Arc::new(orbit_protocol::Message::user_text(
            "hi",
        ))],
        max_tokens: 1000,
        ..ModelRequest::default()
    }
}

/// The cloud fakes' good answer: text "recovered", a Read call of
/// `a.txt`, usage 120 in / 30 out.
pub fn recovered_turn() -> orbit_test_support::Turn {
    orbit_test_support::Turn::new()
        .text("recovered")
        .tool_use("toolu_1", "Read", serde_json::json!({"file_path": "a.txt"}))
        .usage(120, 30)
}

/// The faults a cloud suite's call is retried through, in order: an
/// overloaded error mid-stream, the error status `status`, a cut stream and
/// a malformed one (`turn` makes a turn the fake's reply).
pub fn cloud_faults<R>(turn: impl Fn(orbit_test_support::Turn) -> R, status: R) -> Vec<R> {
    use orbit_test_support::Turn;
    vec![
        turn(
            Turn::new()
                .text("partial")
                .error_after(3, "overloaded_error", "Overloaded"),
        ),
        status,
        turn(Turn::new().text("cut").cut_after(3)),
        turn(Turn::new().text("bad").malformed_at(3)),
    ]
}

/// Asserts that a request's `head` (from [`one_shot_http`]) starts with
/// `start` and has the header line `header` (lowercase `name: value`).
pub fn assert_head(head: &str, start: &str, header: &str) {
    assert!(head.starts_with(start), "{head}");
    assert!(head.to_ascii_lowercase().contains(header), "{head}");
}

/// A one-shot HTTP server on 127.0.0.1 (an SSO portal, a metadata
/// server): answers `body` (JSON) to the first request and hands back the
/// request's head.
pub fn one_shot_http(body: &'static str) -> (String, std::thread::JoinHandle<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).unwrap() == 1 {
            head.push(byte[0]);
        }
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(reply.as_bytes()).unwrap();
        String::from_utf8_lossy(&head).into_owned()
    });
    (url, served)
}
