//! Faults: transient ones are retried with `StreamEvent::Retry` (429 with
//! retry-after, 500, a cut stream, a malformed chunk, an in-stream error);
//! 400/401/403/404 end the call at once with the server's message.

use std::time::{Duration, Instant};

use orbit_model::openai::{OpenAiClient, OpenAiConfig};
use orbit_model::retry::CONNECT_MAX_RETRIES;
use orbit_model::{ModelError, RetryConfig};
use orbit_protocol::{ContentBlock, StreamEvent};
use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};

use super::{client, completed, request, run};

fn retries(events: &[StreamEvent]) -> Vec<(u32, Option<u16>, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retry {
                attempt,
                error_status,
                message,
                ..
            } => Some((*attempt, *error_status, message.clone())),
            _ => None,
        })
        .collect()
}

/// The messages of the `Retry` events.
fn retry_messages(events: &[StreamEvent]) -> Vec<String> {
    retries(events).into_iter().map(|r| r.2).collect()
}

#[tokio::test]
async fn rate_limit_is_retried_honouring_retry_after() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::rate_limited().retry_after_secs(1),
        OpenAiReply::text("after the wait"),
    ]);
    let started = Instant::now();
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "retry-after ignored"
    );
    assert_eq!(
        retries(&events),
        vec![(
            1,
            Some(429),
            "API error (HTTP 429, rate_limit_exceeded): Rate limit reached, try again later".into()
        )]
    );
    let delay = events.iter().find_map(|e| match e {
        StreamEvent::Retry { delay_ms, .. } => Some(*delay_ms),
        _ => None,
    });
    assert_eq!(delay, Some(1000));
    assert_eq!(
        completed(&events),
        vec![ContentBlock::text("after the wait")]
    );
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn server_error_is_retried() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::api_error(500, "server_error", "The server had an error"),
        OpenAiReply::api_error(503, "server_error", "Slow down"),
        OpenAiReply::text("ok"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    let statuses: Vec<_> = retries(&events).into_iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(statuses, vec![(1, Some(500)), (2, Some(503))]);
    assert_eq!(completed(&events), vec![ContentBlock::text("ok")]);
}

#[tokio::test]
async fn a_cut_stream_is_retried_and_the_partial_attempt_is_void() {
    let cut = Completion::new().text("partial answer that never ends");
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(cut.cut_after(2)),
        OpenAiReply::text("whole answer"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    let r = retries(&events);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].1, None);
    // reqwest reports the missing final chunk as a body error.
    assert!(r[0].2.starts_with("connection error: "), "{}", r[0].2);
    assert_eq!(completed(&events), vec![ContentBlock::text("whole answer")]);
    // The void attempt began with its own MessageStart; the retry a new one.
    let starts = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::MessageStart { .. }))
        .count();
    assert_eq!(starts, 2);
}

#[tokio::test]
async fn a_body_ending_before_finish_reason_is_a_cut_stream() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().text("half").end_after(2)),
        OpenAiReply::text("whole"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        retries(&events),
        vec![(
            1,
            None,
            "the response stream ended before message_stop".to_string()
        )]
    );
    assert_eq!(completed(&events), vec![ContentBlock::text("whole")]);
}

#[tokio::test]
async fn a_malformed_chunk_is_retried() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().text("abc").malformed_at(2)),
        OpenAiReply::text("clean"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    let r = retries(&events);
    assert_eq!(r.len(), 1);
    assert!(r[0].2.starts_with("malformed stream event: "), "{}", r[0].2);
    assert_eq!(completed(&events), vec![ContentBlock::text("clean")]);
}

#[tokio::test]
async fn an_error_inside_the_stream_is_retried() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(
            Completion::new()
                .text("abc")
                .error_after(2, "model overloaded"),
        ),
        OpenAiReply::text("second try"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        retry_messages(&events),
        vec!["API error in stream (api_error): model overloaded".to_string()]
    );
    assert_eq!(completed(&events), vec![ContentBlock::text("second try")]);
}

#[tokio::test]
async fn client_errors_are_not_retried_and_carry_the_servers_message() {
    for (status, kind, message) in [
        (
            400,
            "invalid_request_error",
            "Invalid schema for function 'Read'",
        ),
        (
            401,
            "invalid_request_error",
            "Incorrect API key provided: sk-bad",
        ),
        (
            403,
            "permission_error",
            "Project does not have access to model",
        ),
        (
            404,
            "invalid_request_error",
            "The model `gpt-9` does not exist",
        ),
    ] {
        let server = FakeOpenAi::start(vec![
            OpenAiReply::api_error(status, kind, message),
            OpenAiReply::text("must not be reached"),
        ]);
        let started = Instant::now();
        let (events, err) = run(&client(&server), &request("hi")).await;
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(retries(&events).is_empty());
        match err {
            Some(ModelError::Api {
                status: s,
                error_type,
                message: m,
            }) => {
                assert_eq!(s, status);
                assert_eq!(error_type.as_deref(), Some(kind));
                assert_eq!(m, message);
            }
            other => panic!("expected an API error, got {other:?}"),
        }
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn retries_are_bounded() {
    let replies = (0..4)
        .map(|_| OpenAiReply::api_error(500, "server_error", "down"))
        .collect();
    let server = FakeOpenAi::start(replies);
    let c = super::client_with(&server, |c| c.retry.max_retries = 3);
    let (events, err) = run(&c, &request("hi")).await;
    assert_eq!(retries(&events).len(), 3);
    assert!(
        matches!(err, Some(ModelError::Api { status: 500, .. })),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 4);
}

#[tokio::test]
async fn an_idle_stream_is_abandoned_and_retried() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().text("x").hang_after(1)),
        OpenAiReply::text("awake"),
    ]);
    let c = super::client_with(&server, |c| c.idle_timeout_ms = 200);
    let (events, err) = run(&c, &request("hi")).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        retry_messages(&events),
        vec!["no stream event for 200 ms; the response was abandoned".to_string()]
    );
    assert_eq!(completed(&events), vec![ContentBlock::text("awake")]);
}

/// Item 12: a refused connection gets the short connect schedule (here
/// with the tests' fast backoff), a one-line `Retry` message per attempt,
/// and a final error naming what to check: `OPENAI_BASE_URL`, or for the
/// local profile its server (whose URL is not from the environment).
#[tokio::test]
async fn unreachable_server_names_the_cause_and_what_to_check() {
    let base_url = format!("http://127.0.0.1:{}/v1", crate::suite::closed_port());
    let cases = [
        (OpenAiConfig::from_lookup(|_| None), "OPENAI_BASE_URL"),
        (
            OpenAiConfig::local(base_url.clone()),
            "the local model server (orbit local status)",
        ),
    ];
    for (config, check) in cases {
        let config = OpenAiConfig {
            base_url: base_url.clone(),
            retry: RetryConfig {
                base_delay_ms: 1,
                max_delay_ms: 4,
                ..RetryConfig::default()
            },
            ..config
        };
        let c = OpenAiClient::new(config).unwrap();
        let started = Instant::now();
        let (events, err) = run(&c, &request("hi")).await;
        assert!(started.elapsed() < Duration::from_secs(2), "{check}");
        let cause = format!("cannot reach {base_url}/chat/completions (connection refused)");
        assert_eq!(
            retries(&events),
            (1..=CONNECT_MAX_RETRIES)
                .map(|n| (n, None, cause.clone()))
                .collect::<Vec<_>>(),
            "{check}"
        );
        assert_eq!(
            err.map(|e| e.to_string()),
            Some(format!(
                "cannot reach {base_url} (connection refused) after 4 attempts; check {check}"
            ))
        );
    }
    // No retries configured: one attempt, said so.
    let c = client_with_base(&base_url, 0);
    let (events, err) = run(&c, &request("hi")).await;
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(format!(
            "cannot reach {base_url} (connection refused) after 1 attempt; check OPENAI_BASE_URL"
        ))
    );
}

fn client_with_base(base_url: &str, max_retries: u32) -> OpenAiClient {
    OpenAiClient::new(OpenAiConfig {
        base_url: base_url.into(),
        retry: RetryConfig {
            max_retries,
            ..RetryConfig::default()
        },
        ..OpenAiConfig::default()
    })
    .unwrap()
}

/// One driver, one policy (issue 10 item 5): `x-should-retry: false` is
/// obeyed as for Anthropic (the OpenAI SDKs honour it too).
#[tokio::test]
async fn x_should_retry_false_is_obeyed() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::api_error(500, "server_error", "down").header("x-should-retry", "false"),
        OpenAiReply::text("must not be reached"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(retries(&events).is_empty());
    assert!(
        matches!(err, Some(ModelError::Api { status: 500, .. })),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 1);
}

/// A server that ignores `stream: true` and answers one JSON body fails
/// at once with what it sent, instead of retrying a stream that never
/// comes.
#[tokio::test]
async fn a_json_answer_instead_of_a_stream_fails_at_once() {
    let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[]}"#;
    let server = FakeOpenAi::start(vec![
        OpenAiReply::status(200, body),
        OpenAiReply::text("must not be reached"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(format!(
            "API error (HTTP 200): expected an SSE stream (text/event-stream) but got JSON: {body}"
        ))
    );
    assert_eq!(server.request_count(), 1);
}
