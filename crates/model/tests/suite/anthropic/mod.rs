//! The Anthropic client against `FakeAnthropic`: shared helpers.

mod faults;
mod request;
mod stream;

use std::time::Duration;

use futures::StreamExt;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_model::{ModelClient, ModelError, ModelRequest, RetryConfig};
use orbit_protocol::{Message, StreamEvent};
use orbit_test_support::FakeAnthropic;

/// Idle timeout of test clients, in milliseconds: long enough for a loaded
/// machine, short enough that a hang fails fast.
const TEST_IDLE_TIMEOUT_MS: u64 = 5_000;

/// A client for `server` with an API key, 1 ms backoff and 10 retries.
pub fn client(server: &FakeAnthropic) -> AnthropicClient {
    client_with(server, |_| {})
}

fn client_with(server: &FakeAnthropic, edit: impl FnOnce(&mut AnthropicConfig)) -> AnthropicClient {
    let mut config = AnthropicConfig {
        base_url: server.base_url(),
        api_key: Some("test-key".into()),
        retry: RetryConfig {
            base_delay_ms: 1,
            max_delay_ms: 4,
            ..RetryConfig::default()
        },
        idle_timeout_ms: TEST_IDLE_TIMEOUT_MS,
        ..AnthropicConfig::default()
    };
    edit(&mut config);
    AnthropicClient::new(config).unwrap()
}

pub fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text(prompt)],
        max_tokens: 1024,
        ..Default::default()
    }
}

/// Every event of one call, and the final error if the stream ended with one.
async fn run(
    client: &AnthropicClient,
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

/// The events after the last `Retry` (the attempt that counted).
fn last_attempt(events: &[StreamEvent]) -> &[StreamEvent] {
    let start = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::Retry { .. }))
        .map_or(0, |i| i + 1);
    &events[start..]
}

/// The `Retry` events, as (attempt, max_retries, error_status, delay).
fn retries(events: &[StreamEvent]) -> Vec<(u32, u32, Option<u16>, Duration)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retry {
                attempt,
                max_retries,
                error_status,
                delay_ms,
                ..
            } => Some((
                *attempt,
                *max_retries,
                *error_status,
                Duration::from_millis(*delay_ms),
            )),
            _ => None,
        })
        .collect()
}

/// The completed blocks of an attempt, with their invalid input.
fn completed(events: &[StreamEvent]) -> Vec<(orbit_protocol::ContentBlock, Option<String>)> {
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
