//! Faults only the Messages API has (the shared ones are in
//! `suite::faults`): a non-retryable `error` event, the 404 hint naming the
//! model and base URL, the fake server's exhausted script.

use orbit_test_support::{FakeAnthropic, Reply, Turn};

use super::{client, client_with, request, retries, run};

#[tokio::test]
async fn non_retryable_error_event_ends_the_stream() {
    let fault = Turn::new()
        .text("abc")
        .error_after(2, "invalid_request_error", "bad block");
    let server = FakeAnthropic::start(vec![Reply::turn(fault), Reply::text("not reached")]);
    let (events, err) = run(&client(&server), &request("go")).await;
    assert!(retries(&events).is_empty());
    assert_eq!(
        err.map(|e| e.to_string()).as_deref(),
        Some("API error in stream (invalid_request_error): bad block")
    );
    assert_eq!(server.request_count(), 1);
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
