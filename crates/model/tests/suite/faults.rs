//! L4 over both wire formats, one driver: transient faults are retried with
//! a `Retry` event each (the server's `retry-after` honoured, else the
//! backoff) and the attempt that counts is whole; retries are bounded; an
//! idle response is abandoned. Each test runs the same checks over each
//! wire's own faults; what only one format has stays in its module, what
//! ends a call at once is in `final_errors`.

use std::time::{Duration, Instant};

use orbit_model::ModelError;
use orbit_protocol::{ContentBlock, StreamEvent};
use orbit_test_support::{Completion, FakeServer, OpenAiReply, Reply, ReplyOf, Turn};
use serde_json::json;

use super::wire::{Wire, client, client_with};
use super::{completed_blocks, last_attempt, retries, run, run_ok};

/// How a `Retry` message must read.
#[derive(Debug, Clone)]
enum Said {
    Is(String),
    /// The cause's own text follows (reqwest's).
    StartsWith(&'static str),
}

impl Said {
    fn check(&self, message: &str) {
        match self {
            Said::Is(want) => assert_eq!(message, want),
            Said::StartsWith(prefix) => assert!(message.starts_with(prefix), "{message}"),
        }
    }
}

fn said(text: &str) -> Said {
    Said::Is(text.to_string())
}

/// The longest test backoff, in milliseconds: 1 ms doubling, capped at
/// 4 ms, plus at most 25 % jitter.
const BACKOFF_MS: u64 = 5;

/// Asserts the final attempt is the whole good message.
fn assert_recovered(events: &[StreamEvent]) {
    let last = last_attempt(events);
    assert!(
        matches!(last.first(), Some(StreamEvent::MessageStart { .. })),
        "{last:?}"
    );
    assert_eq!(last.last(), Some(&StreamEvent::MessageStop));
    let blocks = completed_blocks(events);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[0], ContentBlock::text("recovered"));
}

/// What the one `Retry` after a fault says, and what the void attempt
/// streamed.
struct Expected {
    status: Option<u16>,
    said: Said,
    /// The server's `retry-after`, in milliseconds: announced exactly and
    /// waited; else the test backoff.
    told_ms: Option<u64>,
    /// Blocks the void attempt completed before it failed.
    void_blocks: usize,
}

/// `fault` then the good message: one `Retry` as `expected` says, the
/// partial attempt void, the retry whole.
async fn survive<W: Wire>(fault: ReplyOf<W>, expected: Expected) {
    let name = format!("{:?} {:?}", expected.status, expected.said);
    let server = FakeServer::start(vec![fault, W::good()]);
    let (events, err) = run(&client(&server), &W::request("go")).await;
    assert!(err.is_none(), "{name}: {err:?}");
    assert_recovered(&events);
    assert_eq!(server.request_count(), 2, "{name}");
    let retried = retries(&events);
    assert_eq!(retried.len(), 1, "{name}: {retried:?}");
    let retry = &retried[0];
    assert_eq!(
        (retry.attempt, retry.max_retries, retry.status),
        (1, 10, expected.status),
        "{name}"
    );
    expected.said.check(&retry.message);
    if let Some(ms) = expected.told_ms {
        assert_eq!(retry.delay, Duration::from_millis(ms), "{name}");
        let reqs = server.requests();
        let gap = reqs[1].received_at - reqs[0].received_at;
        assert!(
            gap >= Duration::from_millis(ms.saturating_sub(50)),
            "{name}: retry-after ignored: {gap:?}"
        );
    } else {
        assert!(retry.delay <= Duration::from_millis(BACKOFF_MS), "{name}");
    }
    // The void attempt: begun (when it streamed at all), never stopped.
    let void = &events[..events
        .iter()
        .position(|e| matches!(e, StreamEvent::Retry { .. }))
        .unwrap()];
    if let Some(first) = void.first() {
        assert!(matches!(first, StreamEvent::MessageStart { .. }), "{name}");
    }
    assert!(!void.contains(&StreamEvent::MessageStop), "{name}");
    let void_blocks = void
        .iter()
        .filter(|e| matches!(e, StreamEvent::ContentBlockComplete { .. }))
        .count();
    assert_eq!(void_blocks, expected.void_blocks, "{name}");
}

/// An error status: `(status, error type, message, retry-after header
/// (name, value))`.
type StatusFault<'a> = (u16, &'a str, &'a str, Option<(&'a str, u64)>);

/// Error statuses `(status, error type, message, retry-after header)`,
/// each answered once: the `Retry` says `API error (HTTP status, type):
/// message` and waits what the header says (`retry-after` in seconds,
/// `retry-after-ms`), else the backoff.
async fn status_faults<W: Wire>(cases: &[StatusFault<'_>]) {
    for &(status, kind, message, header) in cases {
        let mut fault = ReplyOf::<W>::api_error(status, kind, message);
        let mut told_ms = None;
        if let Some((name, value)) = header {
            fault = fault.header(name, value.to_string());
            told_ms = Some(if name == "retry-after" {
                value * 1_000
            } else {
                value
            });
        }
        let expected = Expected {
            status: Some(status),
            said: Said::Is(format!("API error (HTTP {status}, {kind}): {message}")),
            told_ms,
            void_blocks: 0,
        };
        survive(fault, expected).await;
    }
}

/// Broken streams `(reply, what the Retry says, blocks completed before
/// the break)`, each answered once: a status-less `Retry` after the backoff.
async fn stream_faults<W: Wire>(cases: Vec<(ReplyOf<W>, Said, usize)>) {
    for (fault, said, void_blocks) in cases {
        let expected = Expected {
            status: None,
            said,
            told_ms: None,
            void_blocks,
        };
        survive(fault, expected).await;
    }
}

#[tokio::test]
async fn error_statuses_are_retried_honouring_retry_after() {
    status_faults::<Turn>(&[
        (
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            Some(("retry-after", 1)),
        ),
        (
            529,
            "overloaded_error",
            "Overloaded",
            Some(("retry-after-ms", 120)),
        ),
        (500, "api_error", "Internal server error", None),
    ])
    .await;
    status_faults::<Completion>(&[
        (
            429,
            "rate_limit_exceeded",
            "Rate limit reached, try again later",
            Some(("retry-after", 1)),
        ),
        (500, "server_error", "The server had an error", None),
        (503, "server_error", "Slow down", None),
    ])
    .await;
}

#[tokio::test]
async fn broken_streams_are_retried_and_the_partial_attempt_is_void() {
    let cut = Said::StartsWith("connection error: ");
    let eof = || said("the response stream ended before message_stop");
    // Cut inside the tool_use, after the text block completed.
    let rm = json!({"command": "rm -rf build"});
    let partial = Turn::new()
        .text("half an answer")
        .tool_use("toolu_1", "Bash", rm);
    let abc = || Turn::new().text("abc");
    let overloaded = abc().error_after(4, "overloaded_error", "Overloaded");
    stream_faults(vec![
        (Reply::turn(partial.cut_after(8)), cut.clone(), 1),
        (Reply::turn(abc().end_after(4)), eof(), 0),
        (
            Reply::turn(abc().malformed_at(3)),
            said(concat!(
                "malformed stream event: EOF while parsing a string at line 1 column 80 in ",
                "`content_block_delta` event data: ",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tru"#
            )),
            0,
        ),
        (
            Reply::turn(overloaded),
            said("API error in stream (overloaded_error): Overloaded"),
            0,
        ),
    ])
    .await;
    // Cut in the text, then inside the tool call after the text completed.
    let rm = json!({"command": "rm -rf build"});
    let partial = Completion::new()
        .text("partial answer")
        .tool_call("call_1", "Bash", rm);
    let abc = || Completion::new().text("abc");
    let reply = OpenAiReply::completion;
    stream_faults(vec![
        (reply(partial.clone().cut_after(2)), cut.clone(), 0),
        (reply(partial.cut_after(5)), cut, 1),
        (reply(abc().end_after(2)), eof(), 0),
        (
            reply(abc().malformed_at(2)),
            said(concat!(
                "malformed stream event: EOF while parsing a string at line 1 column 66: ",
                r#"{"id":"chatcmpl-bad","choices":[{"index":0,"delta":{"content":"tru"#
            )),
            0,
        ),
        (
            reply(abc().error_after(2, "model overloaded")),
            said("API error in stream (api_error): model overloaded"),
            0,
        ),
    ])
    .await;
}

/// `fault` four times, then the good message, with 3 retries allowed: the
/// three `Retry` events, then the fourth failure as the final error.
async fn bounded<W: Wire>(fault: ReplyOf<W>, status: u16, message: &str) {
    let mut replies = vec![fault; 4];
    replies.push(W::good());
    let server = FakeServer::start(replies);
    let client = client_with(&server, |c| W::retry_and_idle(c).0.max_retries = 3);
    let (events, err) = run(&client, &W::request("go")).await;
    let attempts: Vec<(u32, u32)> = retries(&events)
        .iter()
        .map(|r| (r.attempt, r.max_retries))
        .collect();
    assert_eq!(attempts, vec![(1, 3), (2, 3), (3, 3)]);
    assert!(
        matches!(&err, Some(ModelError::Api { status: s, message: m, .. }) if *s == status && m == message),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 4);
}

#[tokio::test]
async fn retries_are_bounded_and_the_last_error_is_returned() {
    bounded(Reply::overloaded(), 529, "Overloaded").await;
    bounded(
        OpenAiReply::api_error(500, "server_error", "down"),
        500,
        "down",
    )
    .await;
}

/// `hung` (responses that stop sending events), then the good message,
/// with an idle timeout of `idle_ms`: one `Retry` per hung response, the
/// good message, all in well under the 5 s test timeout.
async fn abandon_idle<W: Wire>(hung: Vec<ReplyOf<W>>, idle_ms: u64) {
    let hangs = hung.len();
    let mut replies = hung;
    replies.push(W::good());
    let server = FakeServer::start(replies);
    let client = client_with(&server, |c| *W::retry_and_idle(c).1 = idle_ms);
    let started = Instant::now();
    let events = run_ok(&client, &W::request("go")).await;
    assert_recovered(&events);
    let messages: Vec<String> = retries(&events).into_iter().map(|r| r.message).collect();
    let want = format!("no stream event for {idle_ms} ms; the response was abandoned");
    assert_eq!(messages, vec![want; hangs]);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_idle_response_is_abandoned_and_retried() {
    // Before any event, and in the middle of a message.
    abandon_idle(
        vec![
            Reply::hang(),
            Reply::turn(Turn::new().text("abc").hang_after(3)),
        ],
        300,
    )
    .await;
    abandon_idle(
        vec![OpenAiReply::completion(
            Completion::new().text("x").hang_after(1),
        )],
        200,
    )
    .await;
}
