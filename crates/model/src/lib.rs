//! Model clients: turn a [`ModelRequest`] into a stream of normalized
//! [`StreamEvent`]s, whatever the provider's wire format.
//!
//! Data flow: the engine builds a `ModelRequest` (system prompt, history, tool
//! specs) → a client serializes it to the provider's body → HTTP + SSE →
//! provider events → `StreamEvent`s (blocks assembled, tool input JSON parsed)
//! → the engine. Transient failures (429/529/5xx, connection errors, streams
//! cut before their end) are retried inside the client with backoff
//! ([`retry`]; a server that cannot be reached at all on a short schedule of
//! its own, see `reach`); each retry is announced with `StreamEvent::Retry`.
//! Errors that reach the engine are final. After the last event the rest
//! of the body is drained in the background (`body`), and the client's next
//! request briefly awaits that drain, so the pooled connection is reused.
//!
//! One attempt loop serves both wire formats (`driver`: connect, retry,
//! `Retry` events, idle timeout, drain); each format is a
//! `driver::WireDecoder` (SSE event → `StreamEvent`s, error bodies) plus
//! its request body, so a client is only its config, body and decoder.
//! Claude on Amazon Bedrock ([`bedrock`]) and Google Vertex AI
//! ([`vertex`]) are the Anthropic request shape on that same loop
//! ([`cloud`]): each attempt authorized per request (`auth`: SigV4, or a
//! bearer token), Bedrock's AWS event-stream frames (`eventstream`) read
//! below the decoder.
//!
//! Every fact about a model (window, output limit, price, aliases, each
//! provider's default) is in [`catalog`].
//!
//! This crate knows nothing of how tools behave: tools are just specs here.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod activity;
pub mod anthropic;
mod auth;
pub mod bedrock;
mod body;
pub mod catalog;
pub mod cloud;
mod driver;
mod error;
mod eventstream;
mod headers;
pub mod key_helper;
pub mod openai;
mod prefix;
pub mod pricing;
mod reach;
pub mod retry;
pub mod tls;
mod tolerant_json;
mod tool_input;
pub mod vertex;

use std::sync::Arc;

use futures::stream::BoxStream;
use orbit_protocol::{Message, StreamEvent};
use serde::Serialize;
use serde_json::Value;

pub use error::ModelError;
pub(crate) use reach::Endpoint;
pub use retry::RetryConfig;

/// A stream of events for one model call. Dropping it cancels the request.
pub type EventStream = BoxStream<'static, Result<StreamEvent, ModelError>>;

/// Everything a provider needs for one call.
#[derive(Debug, Clone, Default)]
pub struct ModelRequest {
    /// Model name, as the provider knows it.
    pub model: String,
    /// System prompt.
    pub system: String,
    /// The conversation so far. Each message is shared with whoever built
    /// the request (the engine's budgeted view of its history): a request
    /// copies no history, and a client re-serializes only the messages its
    /// previous request did not send (the same `Arc` is the same bytes).
    pub messages: Vec<Arc<Message>>,
    /// Tools offered to the model.
    pub tools: Vec<ToolSpec>,
    /// Most output tokens to generate.
    pub max_tokens: u32,
    /// Sampling temperature; None = the provider's default.
    pub temperature: Option<f32>,
    /// Sampling seed, for providers that take one (OpenAI-compatible servers,
    /// llama.cpp); ignored by the others.
    pub seed: Option<u64>,
    /// Extended thinking's token budget asked for (`--max-thinking-tokens`,
    /// `MAX_THINKING_TOKENS`). The Anthropic client sends it to models with
    /// budget thinking (`thinking: {type: enabled, budget_tokens}`); None or
    /// 0 = the model's default there (a budget of `max_tokens - 1`, as
    /// Claude Code), and models with adaptive thinking get
    /// `{type: adaptive}` whatever it says; whether thinking is on at all is
    /// the client's `RequestShape::thinking`. Other providers ignore it.
    pub thinking_budget: Option<u32>,
    /// At most one tool call per reply (the small-model profile): the
    /// OpenAI client sends `parallel_tool_calls: false` and ends the reply
    /// when a second call starts (`openai::chunks`). The Anthropic client
    /// ignores it.
    pub one_tool_call: bool,
}

/// `ORBIT_IDLE_TIMEOUT_MS` (read by every provider), else `default_ms`.
pub(crate) fn idle_timeout_from(lookup: impl Fn(&str) -> Option<String>, default_ms: u64) -> u64 {
    lookup(anthropic::ENV_IDLE_TIMEOUT_MS)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default_ms)
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the tool's input.
    pub input_schema: Value,
}

/// A provider. Implementations serialize the request before returning, so
/// the returned stream borrows nothing.
pub trait ModelClient: Send + Sync {
    /// Starts one model call (with retries inside).
    fn stream(&self, request: &ModelRequest) -> EventStream;

    /// Short provider name for logs and the init line (`anthropic`, `openai`).
    fn provider(&self) -> &str;

    /// Sends one request body as given, not streamed, and returns the
    /// response JSON: the Anthropic client's Messages request with server
    /// tools (WebSearch's `web_search_20250305`), whose blocks the event
    /// stream does not carry. Other providers: a [`ModelError::Config`].
    fn send_json(
        &self,
        body: Value,
    ) -> futures::future::BoxFuture<'static, Result<Value, ModelError>> {
        let _ = body;
        let error = ModelError::Config(format!(
            "the {} provider takes no raw Messages request",
            self.provider()
        ));
        Box::pin(async move { Err(error) })
    }
}

/// What the providers' config tests share.
#[cfg(test)]
pub(crate) mod test_env {
    /// The overrides every provider reads, as `(idle_timeout_ms, max_retries)`
    /// once [`lookup`] set them.
    pub(crate) const OVERRIDDEN: (u64, u32) = (250, 2);

    /// A variable lookup over `vars` plus `ORBIT_IDLE_TIMEOUT_MS` and
    /// `ORBIT_MAX_RETRIES` ([`OVERRIDDEN`]).
    pub(crate) fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let (idle_ms, retries) = OVERRIDDEN;
        let mut vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        vars.push(("ORBIT_IDLE_TIMEOUT_MS".into(), idle_ms.to_string()));
        vars.push(("ORBIT_MAX_RETRIES".into(), retries.to_string()));
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}
