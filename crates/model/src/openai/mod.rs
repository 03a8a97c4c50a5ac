//! OpenAI-compatible chat completions client (OpenAI, llama.cpp's
//! llama-server, Ollama, vLLM, LM Studio, OpenRouter).
//!
//! Data flow: [`OpenAiClient::stream`] serializes the request once
//! (`request::build_body`; the messages the previous request sent are not
//! converted again, `crate::prefix`) → `POST {base}/chat/completions` with
//! `stream: true` and `stream_options.include_usage` → SSE `data:` chunks →
//! `chunks::ChunkAssembler` → normalized
//! [`StreamEvent`](orbit_protocol::StreamEvent)s, identical in shape to the
//! Anthropic client's. The shared attempt loop
//! (`crate::driver`, with this format's decoder side in `wire`) retries
//! transient failures (429, 5xx, connection errors, a cut stream, a
//! malformed chunk, an idle stream) with [`crate::RetryConfig`]'s backoff,
//! honouring `retry-after`, announcing each with `StreamEvent::Retry`; 400,
//! 401, 403 and 404 end the call at once with the server's own message. A
//! server that cannot be reached gets the short connect schedule and a final
//! `cannot reach … ; check OPENAI_BASE_URL` ([`OpenAiConfig::base_url_check`]).
//! Tool-call ids are the client's own (`chunks::fresh_call_id`), never the
//! server's, which compatible servers repeat.
//!
//! Fenced-JSON recovery (`fenced`) is a per-client switch
//! ([`OpenAiConfig::fenced_tool_recovery`]): on for the local llama.cpp
//! profile, off by default.

mod chunks;
mod fenced;
mod progress;
mod request;
mod wire;

use std::sync::Arc;

use bytes::Bytes;
use reqwest::header::HeaderMap;

use crate::driver::Transport;
use crate::headers::header;
use crate::prefix::PrefixCache;
use crate::{Endpoint, EventStream, ModelClient, ModelError, ModelRequest, RetryConfig};

/// The public OpenAI API, used when `OPENAI_BASE_URL` is unset.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Env var: base URL including the version segment (`…/v1`).
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";
/// What [`OpenAiConfig::local`] clients name when their server cannot be
/// reached (its URL comes from the local server, not from the environment).
pub(crate) const LOCAL_BASE_URL_CHECK: &str = "the local model server (orbit local status)";
/// Env var: API key, sent as `Authorization: Bearer` (optional for local servers).
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
/// A response with no SSE event for this long is abandoned (and retried),
/// in milliseconds. Generous: a local server on two cores may spend a
/// minute on a long prompt before its first token.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 300_000;

/// Connection settings and behaviour switches.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiConfig {
    /// Base URL including `/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`; local servers need none.
    pub api_key: Option<String>,
    /// Retry schedule of failed calls.
    pub retry: RetryConfig,
    /// Turn fenced ```json {"name": …, "arguments": …}``` blocks naming an
    /// offered tool into tool calls (see `fenced`). Off by default.
    pub fenced_tool_recovery: bool,
    /// Send llama.cpp's `cache_prompt: true` (the slot keeps the prompt in
    /// its KV cache, so the next turn evaluates only the new suffix). On
    /// for [`Self::local`]; other servers may reject unknown fields.
    pub cache_prompt: bool,
    /// Ask llama.cpp for its prompt progress (`return_progress: true`) and
    /// report what the server does (reading the prompt, generating) to
    /// [`crate::activity`]. On for [`Self::local`]; other servers may
    /// reject unknown fields.
    pub report_activity: bool,
    /// A response with no SSE event for this long is abandoned (and retried), in milliseconds.
    pub idle_timeout_ms: u64,
    /// Where `base_url` came from, named when the server cannot be reached
    /// (`… ; check OPENAI_BASE_URL`): [`ENV_BASE_URL`] by default,
    /// `LOCAL_BASE_URL_CHECK` for [`Self::local`].
    pub base_url_check: String,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            base_url: OPENAI_DEFAULT_BASE_URL.to_string(),
            api_key: None,
            retry: RetryConfig::default(),
            fenced_tool_recovery: false,
            cache_prompt: false,
            report_activity: false,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
            base_url_check: ENV_BASE_URL.to_string(),
        }
    }
}

impl OpenAiConfig {
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY`, and the retry and idle-timeout
    /// env overrides (`ORBIT_MAX_RETRIES`, `ORBIT_RETRY_BASE_DELAY_MS`,
    /// `ORBIT_IDLE_TIMEOUT_MS`).
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] with an injectable variable lookup.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let nonempty = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        Self {
            base_url: nonempty(ENV_BASE_URL).unwrap_or_else(|| OPENAI_DEFAULT_BASE_URL.to_string()),
            api_key: nonempty(ENV_API_KEY),
            retry: RetryConfig::from_lookup(&lookup),
            idle_timeout_ms: crate::idle_timeout_from(&lookup, DEFAULT_IDLE_TIMEOUT_MS),
            ..Self::default()
        }
    }

    /// A client for a local OpenAI-compatible server at `base_url`
    /// (no key, fenced recovery, `cache_prompt` and activity reports on).
    pub fn local(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            fenced_tool_recovery: true,
            cache_prompt: true,
            report_activity: true,
            retry: RetryConfig::from_env(),
            idle_timeout_ms: crate::idle_timeout_from(
                |name| std::env::var(name).ok(),
                DEFAULT_IDLE_TIMEOUT_MS,
            ),
            base_url_check: LOCAL_BASE_URL_CHECK.to_string(),
            ..Self::default()
        }
    }

    /// The chat-completions endpoint.
    pub(crate) fn endpoint(&self) -> String {
        self.reach().url
    }

    /// Where requests go, for "cannot reach" errors.
    pub(crate) fn reach(&self) -> Endpoint {
        Endpoint::at(&self.base_url, "/chat/completions", &self.base_url_check)
    }
}

/// The OpenAI chat-completions provider.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    transport: Arc<Transport>,
    /// The bytes of the previous request's messages, for the next one.
    sent: PrefixCache,
}

impl OpenAiClient {
    /// Builds the client; fails only when the base URL is unusable, the API
    /// key cannot be sent as a header, or the HTTP client cannot be built.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let url = config.endpoint();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ModelError::Config(format!(
                "{ENV_BASE_URL} must be an http:// or https:// URL, got `{}`",
                config.base_url
            )));
        }
        let mut headers = HeaderMap::new();
        header(&mut headers, "content-type", "application/json")?;
        header(&mut headers, "accept", "text/event-stream")?;
        if let Some(key) = &config.api_key {
            header(&mut headers, "authorization", &format!("Bearer {key}"))?;
        }
        let transport = Transport::new(
            config.reach(),
            headers,
            &config.retry,
            config.idle_timeout_ms,
        )?;
        Ok(Self {
            config,
            transport,
            sent: PrefixCache::default(),
        })
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }
}

impl ModelClient for OpenAiClient {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        let extras = request::LlamaExtras {
            cache_prompt: self.config.cache_prompt,
            return_progress: self.config.report_activity,
        };
        let body = match request::build_body(request, extras, &self.sent) {
            Ok(body) => Bytes::from(body),
            Err(e) => {
                return crate::driver::failed(ModelError::Config(format!(
                    "cannot serialize the request: {e}"
                )));
            }
        };
        let recovery = self
            .config
            .fenced_tool_recovery
            .then(|| request.tools.iter().map(|t| t.name.clone()).collect());
        let assembler = chunks::ChunkAssembler::new(recovery, request.one_tool_call);
        if self.config.report_activity {
            self.transport.stream(body, progress::Reporting(assembler))
        } else {
            self.transport.stream(body, assembler)
        }
    }

    fn provider(&self) -> &str {
        "openai"
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::test_env;

    #[test]
    fn config_from_env_lookup() {
        let c = OpenAiConfig::from_lookup(test_env::lookup(&[
            ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"),
            ("OPENAI_API_KEY", "sk-x"),
        ]));
        assert_eq!(c.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(c.api_key.as_deref(), Some("sk-x"));
        assert_eq!(
            (c.idle_timeout_ms, c.retry.max_retries),
            test_env::OVERRIDDEN
        );
        assert!(!c.fenced_tool_recovery);
        assert!(!c.cache_prompt);
        let d = OpenAiConfig::from_lookup(|_| None);
        assert_eq!(d.endpoint(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(d.idle_timeout_ms, DEFAULT_IDLE_TIMEOUT_MS);
        assert!(
            OpenAiClient::new(OpenAiConfig {
                base_url: "localhost:1".into(),
                ..OpenAiConfig::default()
            })
            .is_err()
        );
        let bad_key = OpenAiClient::new(OpenAiConfig {
            api_key: Some("sk\n".into()),
            ..OpenAiConfig::default()
        });
        assert_eq!(
            bad_key.err().map(|e| e.to_string()).as_deref(),
            Some("invalid value for header `authorization`")
        );
    }
}
