//! L4: transient faults are retried with a `Retry` event each; the attempt
//! that counts is whole; non-retryable statuses fail at once.

use std::time::{Duration, Instant};

use orbit_model::ModelError;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_model::retry::CONNECT_MAX_RETRIES;
use orbit_protocol::{ContentBlock, StreamEvent};
use orbit_test_support::{FakeAnthropic, OVERLOADED_BODY, Reply, Turn};
use serde_json::json;

use super::{client, client_with, completed, last_attempt, request, retries, run};

/// The good turn every fault test ends with.
fn good() -> Reply {
    Reply::turn(
        Turn::new()
            .text("recovered")
            .tool_use("toolu_9", "Read", json!({"file_path": "x"}))
            .usage(50, 9),
    )
}

/// Asserts the final attempt is the whole good turn.
fn assert_recovered(events: &[StreamEvent]) {
    let last = last_attempt(events);
    assert!(
        matches!(last.first(), Some(StreamEvent::MessageStart { .. })),
        "{last:?}"
    );
    assert_eq!(last.last(), Some(&StreamEvent::MessageStop));
    let blocks: Vec<ContentBlock> = completed(last).into_iter().map(|(b, _)| b).collect();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0], ContentBlock::text("recovered"));
}

/// Runs `fault` then the good turn; returns the events and the Retry message.
async fn survive(fault: Reply) -> (Vec<StreamEvent>, String, Option<u16>) {
    let server = FakeAnthropic::start(vec![fault, good()]);
    let (events, err) = run(&client(&server), &request("go")).await;
    assert!(err.is_none(), "{err:?}");
    assert_recovered(&events);
    assert_eq!(server.request_count(), 2);
    let retry = events.iter().find_map(|e| match e {
        StreamEvent::Retry {
            attempt: 1,
            max_retries: 10,
            message,
            error_status,
            ..
        } => Some((message.clone(), *error_status)),
        _ => None,
    });
    let (message, status) = retry.expect("one Retry event");
    assert_eq!(retries(&events).len(), 1);
    (events, message, status)
}

#[tokio::test]
async fn http_429_honours_retry_after_seconds() {
    let server = FakeAnthropic::start(vec![
        Reply::api_error(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
        )
        .retry_after_secs(1),
        good(),
    ]);
    let (events, err) = run(&client(&server), &request("go")).await;
    assert!(err.is_none(), "{err:?}");
    assert_recovered(&events);
    assert_eq!(
        retries(&events),
        vec![(1, 10, Some(429), Duration::from_secs(1))]
    );
    let reqs = server.requests();
    let gap = reqs[1].received_at - reqs[0].received_at;
    assert!(
        gap >= Duration::from_millis(950),
        "retry-after ignored: {gap:?}"
    );
}

#[tokio::test]
async fn http_529_overloaded_then_success_with_retry_after_ms() {
    let (events, message, status) =
        survive(Reply::status(529, OVERLOADED_BODY).retry_after_ms(120)).await;
    assert_eq!(status, Some(529));
    assert_eq!(
        message,
        "API error (HTTP 529, overloaded_error): Overloaded"
    );
    assert_eq!(retries(&events)[0].3, Duration::from_millis(120));
}

#[tokio::test]
async fn http_500_then_success_uses_backoff() {
    let (events, message, status) =
        survive(Reply::api_error(500, "api_error", "Internal server error")).await;
    assert_eq!(status, Some(500));
    assert_eq!(
        message,
        "API error (HTTP 500, api_error): Internal server error"
    );
    // Test config: base 1 ms, cap 4 ms, plus at most 25 % jitter.
    assert!(retries(&events)[0].3 <= Duration::from_millis(5));
}

#[tokio::test]
async fn cut_stream_is_retried_and_the_partial_attempt_is_void() {
    let partial = Turn::new().text("half an answer").tool_use(
        "toolu_1",
        "Bash",
        json!({"command": "rm -rf build"}),
    );
    let (events, message, status) = survive(Reply::turn(partial.cut_after(8))).await;
    assert_eq!(status, None);
    assert!(message.starts_with("connection error: "), "{message}");
    // The void attempt began and streamed a block before the cut.
    let first = &events[..events
        .iter()
        .position(|e| matches!(e, StreamEvent::Retry { .. }))
        .unwrap()];
    assert!(matches!(first[0], StreamEvent::MessageStart { .. }));
    assert!(
        first
            .iter()
            .any(|e| matches!(e, StreamEvent::ContentBlockComplete { index: 0, .. }))
    );
    assert!(!first.iter().any(|e| matches!(e, StreamEvent::MessageStop)));
}

#[tokio::test]
async fn body_ending_before_message_stop_is_retried() {
    let (_, message, status) = survive(Reply::turn(Turn::new().text("abc").end_after(4))).await;
    assert_eq!(status, None);
    assert_eq!(message, "the response stream ended before message_stop");
}

#[tokio::test]
async fn malformed_event_json_is_retried() {
    let (_, message, _) = survive(Reply::turn(Turn::new().text("abc").malformed_at(3))).await;
    assert!(message.starts_with("malformed stream event: "), "{message}");
    assert!(
        message.contains("`content_block_delta` event data"),
        "{message}"
    );
}

#[tokio::test]
async fn overloaded_error_event_mid_stream_is_retried() {
    let fault = Turn::new()
        .text("abc")
        .error_after(4, "overloaded_error", "Overloaded");
    let (_, message, status) = survive(Reply::turn(fault)).await;
    assert_eq!(status, None);
    assert_eq!(
        message,
        "API error in stream (overloaded_error): Overloaded"
    );
}

#[tokio::test]
async fn non_retryable_error_event_ends_the_stream() {
    let fault = Turn::new()
        .text("abc")
        .error_after(2, "invalid_request_error", "bad block");
    let server = FakeAnthropic::start(vec![Reply::turn(fault), good()]);
    let (events, err) = run(&client(&server), &request("go")).await;
    assert!(retries(&events).is_empty());
    assert_eq!(
        err.map(|e| e.to_string()).as_deref(),
        Some("API error in stream (invalid_request_error): bad block")
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn retries_exhausted_returns_the_last_error() {
    let server = FakeAnthropic::start(
        (0..4)
            .map(|_| Reply::overloaded())
            .chain([good()])
            .collect(),
    );
    let client = client_with(&server, |c| c.retry.max_retries = 3);
    let (events, err) = run(&client, &request("go")).await;
    let attempts: Vec<(u32, u32)> = retries(&events).iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(attempts, vec![(1, 3), (2, 3), (3, 3)]);
    assert!(
        matches!(&err, Some(ModelError::Api { status: 529, message, .. }) if message == "Overloaded"),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 4);
}

/// 400/401/403/404: one request, the API's message plus a hint, well under a second.
#[tokio::test]
async fn client_errors_fail_at_once_with_the_api_message() {
    let cases = [
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "invalid x-api-key (check the API key: ANTHROPIC_API_KEY (x-api-key) or ANTHROPIC_AUTH_TOKEN (bearer) was rejected)",
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 250000 tokens > 200000 maximum",
            "prompt is too long: 250000 tokens > 200000 maximum",
        ),
        (
            403,
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
            "Your API key does not have permission to use the specified resource. (the API key lacks permission for this model or endpoint)",
        ),
    ];
    for (status, kind, api_message, want) in cases {
        let server =
            FakeAnthropic::start(vec![Reply::api_error(status, kind, api_message), good()]);
        let started = Instant::now();
        let (events, err) = run(&client(&server), &request("go")).await;
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(events.is_empty(), "{events:?}");
        match err {
            Some(ModelError::Api {
                status: s,
                error_type,
                message,
            }) => {
                assert_eq!(
                    (s, error_type.as_deref(), message.as_str()),
                    (status, Some(kind), want)
                );
            }
            other => panic!("{status}: {other:?}"),
        }
        assert_eq!(server.request_count(), 1, "{status} must not be retried");
    }
}

#[tokio::test]
async fn not_found_names_model_and_base_url() {
    let server = FakeAnthropic::start(vec![Reply::api_error(
        404,
        "not_found_error",
        "model: claude-nope",
    )]);
    let (_, err) = run(&client(&server), &request("go")).await;
    let want = format!(
        "API error (HTTP 404, not_found_error): model: claude-nope (check the model name (--model / ANTHROPIC_MODEL) and ANTHROPIC_BASE_URL (request went to {}/v1/messages))",
        server.base_url()
    );
    assert_eq!(err.map(|e| e.to_string()), Some(want));
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn x_should_retry_false_is_obeyed() {
    let server = FakeAnthropic::start(vec![
        Reply::overloaded().header("x-should-retry", "false"),
        good(),
    ]);
    let (_, err) = run(&client(&server), &request("go")).await;
    assert!(
        matches!(err, Some(ModelError::Api { status: 529, .. })),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn idle_timeout_abandons_a_hung_response_and_retries() {
    let server = FakeAnthropic::start(vec![
        Reply::hang(),
        Reply::turn(Turn::new().text("abc").hang_after(3)),
        good(),
    ]);
    let client = client_with(&server, |c| c.idle_timeout_ms = 300);
    let started = Instant::now();
    let (events, err) = run(&client, &request("go")).await;
    assert!(err.is_none(), "{err:?}");
    assert_recovered(&events);
    let messages: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retry { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        vec!["no stream event for 300 ms; the response was abandoned"; 2]
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// Item 12: a refused connection is retried on the short connect schedule
/// (the real default one here) and reported within seconds, in one line
/// naming the cause and the variable to check.
#[tokio::test]
async fn unreachable_server_is_reported_within_seconds_naming_the_variable() {
    let base_url = format!("http://127.0.0.1:{}", crate::suite::closed_port());
    let client = AnthropicClient::new(AnthropicConfig {
        base_url: base_url.clone(),
        api_key: Some("test-key".into()),
        ..AnthropicConfig::default()
    })
    .unwrap();
    let started = Instant::now();
    let (events, err) = run(&client, &request("go")).await;
    let elapsed = started.elapsed();
    let messages: Vec<(u32, u32, Option<u16>, String)> = events
        .iter()
        .map(|e| match e {
            StreamEvent::Retry {
                attempt,
                max_retries,
                error_status,
                message,
                ..
            } => (*attempt, *max_retries, *error_status, message.clone()),
            other => panic!("only Retry events expected, got {other:?}"),
        })
        .collect();
    let cause = format!("cannot reach {base_url}/v1/messages (connection refused)");
    assert_eq!(
        messages,
        (1..=CONNECT_MAX_RETRIES)
            .map(|n| (n, CONNECT_MAX_RETRIES, None, cause.clone()))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(format!(
            "cannot reach {base_url} (connection refused) after 4 attempts; check ANTHROPIC_BASE_URL"
        ))
    );
    // The default connect schedule was waited (250 + 500 + 1000 ms, plus
    // jitter), and it is short.
    assert!(
        elapsed >= Duration::from_millis(1_700) && elapsed <= Duration::from_secs(10),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn exhausted_script_surfaces_as_a_clear_error() {
    let server = FakeAnthropic::start(vec![]);
    let client = client_with(&server, |c| c.retry.max_retries = 0);
    let (_, err) = run(&client, &request("go")).await;
    assert_eq!(
        err.map(|e| e.to_string()).as_deref(),
        Some(
            "API error (HTTP 500, api_error): orbit-test-support: script exhausted: request #1 has no scripted reply"
        )
    );
}
