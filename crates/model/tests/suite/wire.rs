//! The two wire formats as the shared tests drive them. Each fake server's
//! message type ([`Turn`] for the Messages API, [`Completion`] for chat
//! completions) is a [`Wire`]: it names its client and config, builds a
//! test client for its fake server and a request, and gives the whole
//! message a recovering call ends with. A test written once over `W: Wire`
//! runs against both real clients.

use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_model::openai::{OpenAiClient, OpenAiConfig};
use orbit_model::{ModelClient, ModelRequest, RetryConfig};
use orbit_test_support::{Completion, Dialect, FakeServer, ReplyOf, Turn};
use serde_json::json;

use super::{TEST_IDLE_TIMEOUT_MS, anthropic, fast_retry, openai};

/// A wire format under test, implemented by its fake server's message type.
pub trait Wire: Dialect + 'static {
    /// The client's settings.
    type Config;
    /// The real client of this format.
    type Client: ModelClient;
    /// The path a request goes to, after the base URL.
    const ENDPOINT: &'static str;

    /// A client for `server`: its base URL, a test API key, the tests'
    /// retry schedule ([`fast_retry`]) and idle timeout, then `edit`.
    fn client_with(server: &FakeServer<Self>, edit: impl FnOnce(&mut Self::Config))
    -> Self::Client;

    /// The client for `config`.
    fn client_from(config: Self::Config) -> Self::Client;

    /// The retry schedule and idle timeout of `config`, which shared tests
    /// change.
    fn retry_and_idle(config: &mut Self::Config) -> (&mut RetryConfig, &mut u64);

    /// A one-prompt request for this format's model.
    fn request(prompt: &str) -> ModelRequest;

    /// A whole message: the text "recovered" and one Read call.
    fn good() -> ReplyOf<Self>;
}

/// Implements [`Wire`] for a message type whose config has the fields
/// `base_url`, `api_key`, `retry` and `idle_timeout_ms` (both do).
macro_rules! wire {
    ($message:ty, $config:ident, $client:ident, $endpoint:literal, $request:path, $good:expr) => {
        impl Wire for $message {
            type Config = $config;
            type Client = $client;
            const ENDPOINT: &'static str = $endpoint;

            fn client_with(server: &FakeServer<Self>, edit: impl FnOnce(&mut $config)) -> $client {
                let mut config = $config {
                    base_url: server.base_url(),
                    api_key: Some("test-key".into()),
                    retry: fast_retry(),
                    idle_timeout_ms: TEST_IDLE_TIMEOUT_MS,
                    ..$config::default()
                };
                edit(&mut config);
                Self::client_from(config)
            }

            fn client_from(config: $config) -> $client {
                $client::new(config).unwrap()
            }

            fn retry_and_idle(config: &mut $config) -> (&mut RetryConfig, &mut u64) {
                (&mut config.retry, &mut config.idle_timeout_ms)
            }

            fn request(prompt: &str) -> ModelRequest {
                $request(prompt)
            }

            fn good() -> ReplyOf<Self> {
                ReplyOf::stream($good)
            }
        }
    };
}

wire!(
    Turn,
    AnthropicConfig,
    AnthropicClient,
    "/v1/messages",
    anthropic::request,
    Turn::new()
        .text("recovered")
        .tool_use("toolu_9", "Read", json!({"file_path": "x"}))
        .usage(50, 9)
);
wire!(
    Completion,
    OpenAiConfig,
    OpenAiClient,
    "/chat/completions",
    openai::request,
    Completion::new()
        .text("recovered")
        .tool_call("call_9", "Read", json!({"file_path": "x"}))
);

/// A test client for `server` ([`Wire::client_with`] without edits).
pub fn client<W: Wire>(server: &FakeServer<W>) -> W::Client {
    W::client_with(server, |_| {})
}

/// [`Wire::client_with`].
pub fn client_with<W: Wire>(
    server: &FakeServer<W>,
    edit: impl FnOnce(&mut W::Config),
) -> W::Client {
    W::client_with(server, edit)
}
