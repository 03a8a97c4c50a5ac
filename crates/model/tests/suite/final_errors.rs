//! What ends a model call at once, on both wire formats: client errors
//! (the server's message, plus a hint where the Anthropic client adds one),
//! `x-should-retry: false`, and an unreachable server after the short
//! connect schedule, reported in one line naming what to check.

use std::time::{Duration, Instant};

use orbit_model::retry::CONNECT_MAX_RETRIES;
use orbit_model::{ModelClient, ModelError, RetryConfig};
use orbit_model::{anthropic::AnthropicConfig, openai::OpenAiConfig};
use orbit_protocol::StreamEvent;
use orbit_test_support::{Completion, FakeServer, ReplyOf, Turn};

use super::wire::{Wire, client};
use super::{closed_port, retries, run};

/// 400/401/403/404: one request, no `Retry`, the server's message (plus a
/// hint where the Anthropic client adds one), well under a second.
async fn fail_at_once<W: Wire>(cases: &[(u16, &str, &str, &str)]) {
    for &(status, kind, api_message, want) in cases {
        let server = FakeServer::<W>::start(vec![
            ReplyOf::api_error(status, kind, api_message),
            W::good(),
        ]);
        let started = Instant::now();
        let (events, err) = run(&client(&server), &W::request("go")).await;
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(events.is_empty(), "{events:?}");
        match err {
            Some(ModelError::Api {
                status: s,
                error_type,
                message,
            }) => assert_eq!(
                (s, error_type.as_deref(), message.as_str()),
                (status, Some(kind), want)
            ),
            other => panic!("{status}: {other:?}"),
        }
        assert_eq!(server.request_count(), 1, "{status} must not be retried");
    }
}

#[tokio::test]
async fn client_errors_fail_at_once_with_the_servers_message() {
    fail_at_once::<Turn>(&[
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
    ])
    .await;
    let openai = [
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
    ];
    let openai: Vec<_> = openai.map(|(s, k, m)| (s, k, m, m)).to_vec();
    fail_at_once::<Completion>(&openai).await;
}

/// One driver, one policy (issue 10 item 5): `x-should-retry: false` is
/// obeyed on every wire (the OpenAI SDKs honour it too), whatever the status.
async fn told_not_to_retry<W: Wire>() {
    for (status, kind) in [(529, "overloaded_error"), (500, W::SERVER_ERROR_TYPE)] {
        let server = FakeServer::<W>::start(vec![
            ReplyOf::api_error(status, kind, "down").header("x-should-retry", "false"),
            W::good(),
        ]);
        let (events, err) = run(&client(&server), &W::request("go")).await;
        assert!(retries(&events).is_empty(), "{events:?}");
        assert!(
            matches!(err, Some(ModelError::Api { status: s, .. }) if s == status),
            "{err:?}"
        );
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn x_should_retry_false_is_obeyed() {
    told_not_to_retry::<Turn>().await;
    told_not_to_retry::<Completion>().await;
}

/// Item 12: a refused connection is retried on the short connect schedule
/// with a one-line `Retry` per attempt naming the cause, and reported in
/// one line naming what to check, within `within` (at least `waited`).
async fn unreachable<W: Wire>(
    client: &dyn ModelClient,
    base_url: &str,
    check: &str,
    attempts: u32,
    waited: Duration,
    within: Duration,
) {
    let started = Instant::now();
    let (events, err) = run(client, &W::request("go")).await;
    let elapsed = started.elapsed();
    assert!(
        events
            .iter()
            .all(|e| matches!(e, StreamEvent::Retry { .. })),
        "only Retry events expected: {events:?}"
    );
    let cause = format!(
        "cannot reach {base_url}{} (connection refused)",
        W::ENDPOINT
    );
    let retried: Vec<_> = retries(&events)
        .into_iter()
        .map(|r| (r.attempt, r.max_retries, r.status, r.message))
        .collect();
    let retries = attempts - 1;
    assert_eq!(
        retried,
        (1..=retries)
            .map(|n| (n, retries, None, cause.clone()))
            .collect::<Vec<_>>(),
        "{check}"
    );
    let plural = if attempts == 1 { "" } else { "s" };
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(format!(
            "cannot reach {base_url} (connection refused) after {attempts} attempt{plural}; check {check}"
        ))
    );
    assert!(
        elapsed >= waited && elapsed <= within,
        "{check}: {elapsed:?}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_reported_within_seconds_naming_what_to_check() {
    // The real default connect schedule: 250 + 500 + 1000 ms plus jitter.
    let base_url = format!("http://127.0.0.1:{}", closed_port());
    let anthropic = Turn::client_from(AnthropicConfig {
        base_url: base_url.clone(),
        api_key: Some("test-key".into()),
        ..AnthropicConfig::default()
    });
    let attempts = CONNECT_MAX_RETRIES + 1;
    unreachable::<Turn>(
        &anthropic,
        &base_url,
        "ANTHROPIC_BASE_URL",
        attempts,
        Duration::from_millis(1_700),
        Duration::from_secs(10),
    )
    .await;
    // The tests' fast backoff: `OPENAI_BASE_URL`, or for the local profile
    // its server (whose URL is not from the environment); no retries
    // configured: one attempt, said so.
    let base_url = format!("http://127.0.0.1:{}/v1", closed_port());
    let fast = RetryConfig {
        base_delay_ms: 1,
        max_delay_ms: 4,
        ..RetryConfig::default()
    };
    let none = RetryConfig {
        max_retries: 0,
        ..RetryConfig::default()
    };
    let cases = [
        (
            OpenAiConfig::from_lookup(|_| None),
            fast.clone(),
            "OPENAI_BASE_URL",
            attempts,
        ),
        (
            OpenAiConfig::local(base_url.clone()),
            fast,
            "the local model server (orbit local status)",
            attempts,
        ),
        (OpenAiConfig::default(), none, "OPENAI_BASE_URL", 1),
    ];
    for (config, retry, check, attempts) in cases {
        let client = Completion::client_from(OpenAiConfig {
            base_url: base_url.clone(),
            retry,
            ..config
        });
        unreachable::<Completion>(
            &client,
            &base_url,
            check,
            attempts,
            Duration::ZERO,
            Duration::from_secs(2),
        )
        .await;
    }
}
