//! The Anthropic client against `FakeAnthropic`: shared helpers.

mod faults;
mod request;
mod stream;

use std::time::Duration;

use orbit_model::ModelRequest;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_protocol::{Message, StreamEvent};
use orbit_test_support::FakeAnthropic;

use super::completed_with_invalid_input as completed;
use super::{TEST_IDLE_TIMEOUT_MS, fast_retry, run};

/// A client for `server` with an API key, 1 ms backoff and 10 retries.
pub fn client(server: &FakeAnthropic) -> AnthropicClient {
    client_with(server, |_| {})
}

fn client_with(server: &FakeAnthropic, edit: impl FnOnce(&mut AnthropicConfig)) -> AnthropicClient {
    let mut config = AnthropicConfig {
        base_url: server.base_url(),
        api_key: Some("test-key".into()),
        retry: fast_retry(),
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
