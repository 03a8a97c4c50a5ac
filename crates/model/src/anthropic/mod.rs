//! The Anthropic Messages API client (`POST {base}/v1/messages`, `stream: true`).
//!
//! Data flow: [`AnthropicClient::stream`] serializes the request
//! (`request::build_body`, prompt-cache markers included; the bytes of
//! messages the previous request sent are reused, `crate::prefix`) once, then the
//! shared driver (`crate::driver`) sends it and turns the SSE response
//! into `StreamEvent`s via `sse::Assembler` (its decoder side is in
//! `wire`), retrying transient failures. The reqwest client is built once
//! per `AnthropicClient` so connections are pooled and reused between turns.
//!
//! Configuration comes from [`AnthropicConfig`]; [`AnthropicConfig::from_env`]
//! reads `ANTHROPIC_API_KEY` (→ `x-api-key`), `ANTHROPIC_AUTH_TOKEN`
//! (→ `Authorization: Bearer`), `ANTHROPIC_BASE_URL`, `ORBIT_MAX_RETRIES`,
//! `ORBIT_RETRY_BASE_DELAY_MS` and `ORBIT_IDLE_TIMEOUT_MS`, and Claude
//! Code's request variables: `ANTHROPIC_BETAS` (more `anthropic-beta`
//! values), `ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines),
//! `DISABLE_PROMPT_CACHING` and `CLAUDE_CODE_EFFORT_LEVEL`. What a request
//! carries per model (thinking, effort, context management, betas) is
//! [`RequestShape`] applied to the model's catalog row (`shape`).

pub(crate) mod request;
pub(crate) mod shape;
pub(crate) mod sse;
mod wire;

pub use shape::{
    CLAUDE_CODE_BETA, CONTEXT_1M_BETA, RequestShape, ThinkingDisplay, parse_custom_headers,
    split_betas,
};

use std::sync::Arc;

use bytes::Bytes;
use reqwest::header::HeaderMap;

use crate::driver::{self, Transport};
use crate::headers::header;
use crate::prefix::PrefixCache;
use crate::{Endpoint, EventStream, ModelClient, ModelError, ModelRequest, RetryConfig};

/// Env var: the base URL (without `/v1/messages`); named in the error when
/// the server cannot be reached.
pub const ENV_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// Where requests go when `ANTHROPIC_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header value.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Abandon an attempt after this long without any SSE event, in milliseconds.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 90_000;
/// Env var overriding [`AnthropicConfig::idle_timeout_ms`].
pub const ENV_IDLE_TIMEOUT_MS: &str = "ORBIT_IDLE_TIMEOUT_MS";
/// Env var: more `anthropic-beta` values, comma-separated.
pub const ENV_BETAS: &str = "ANTHROPIC_BETAS";
/// Env var: more headers, one `Name: value` per line.
pub const ENV_CUSTOM_HEADERS: &str = "ANTHROPIC_CUSTOM_HEADERS";
/// Env var: a true value (`1`, `true`, `yes`, `on`) sends no `cache_control`.
pub const ENV_DISABLE_PROMPT_CACHING: &str = "DISABLE_PROMPT_CACHING";
/// Env var: the effort level (`low` … `max`, `auto`).
pub const ENV_EFFORT_LEVEL: &str = "CLAUDE_CODE_EFFORT_LEVEL";

/// Whether an environment value is true as Claude Code reads it.
pub fn env_truthy(value: &str) -> bool {
    ["1", "true", "yes", "on"]
        .iter()
        .any(|t| value.trim().eq_ignore_ascii_case(t))
}

/// How to reach the API.
#[derive(Debug, Clone, PartialEq)]
pub struct AnthropicConfig {
    /// Without the `/v1/messages` suffix; a trailing `/` is ignored.
    pub base_url: String,
    /// Sent as `x-api-key`.
    pub api_key: Option<String>,
    /// Sent as `Authorization: Bearer …`.
    pub auth_token: Option<String>,
    /// Retry schedule of failed calls.
    pub retry: RetryConfig,
    /// A response with no SSE event for this long is abandoned (and retried), in milliseconds.
    pub idle_timeout_ms: u64,
    /// More headers for every request (`ANTHROPIC_CUSTOM_HEADERS`).
    pub extra_headers: Vec<(String, String)>,
    /// Thinking, effort, prompt caching and betas of every request.
    pub shape: RequestShape,
}

impl Default for AnthropicConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: None,
            auth_token: None,
            retry: RetryConfig::default(),
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
            extra_headers: Vec::new(),
            shape: RequestShape::default(),
        }
    }
}

impl AnthropicConfig {
    /// [`Self::from_env`] with an injectable variable lookup.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        Self {
            base_url: get(ENV_BASE_URL).unwrap_or_else(|| DEFAULT_BASE_URL.into()),
            api_key: get("ANTHROPIC_API_KEY"),
            auth_token: get("ANTHROPIC_AUTH_TOKEN"),
            retry: RetryConfig::from_lookup(&lookup),
            idle_timeout_ms: crate::idle_timeout_from(&lookup, DEFAULT_IDLE_TIMEOUT_MS),
            extra_headers: get(ENV_CUSTOM_HEADERS)
                .map(|text| parse_custom_headers(&text))
                .unwrap_or_default(),
            shape: RequestShape {
                effort: get(ENV_EFFORT_LEVEL).and_then(|v| crate::catalog::EffortChoice::parse(&v)),
                prompt_caching: !get(ENV_DISABLE_PROMPT_CACHING).is_some_and(|v| env_truthy(&v)),
                betas: get(ENV_BETAS).map(|v| split_betas(&v)).unwrap_or_default(),
                ..RequestShape::default()
            },
        }
    }

    /// Reads the process environment (see the module docs). Empty values
    /// count as unset.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Where requests go, for "cannot reach" errors.
    pub(crate) fn endpoint(&self) -> Endpoint {
        Endpoint::at(&self.base_url, "/v1/messages", ENV_BASE_URL)
    }
}

/// A [`ModelClient`] for the Anthropic Messages API and compatible servers.
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    config: AnthropicConfig,
    transport: Arc<Transport>,
    /// The bytes of the previous request's messages, for the next one.
    sent: PrefixCache,
}

impl AnthropicClient {
    /// Validates the config and builds the HTTP client. Fails with one clear
    /// line when no credentials are configured or a header is invalid.
    pub fn new(config: AnthropicConfig) -> Result<Self, ModelError> {
        if config.api_key.is_none() && config.auth_token.is_none() {
            return Err(ModelError::Config(
                "no Anthropic credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)".into(),
            ));
        }
        Self::build(config)
    }

    /// A client whose key comes from `helper` (`apiKeyHelper`) before every
    /// attempt, sent as `x-api-key` and as a bearer token (as Claude Code
    /// does); a 401 runs the helper again and retries once.
    pub fn with_key_helper(
        mut config: AnthropicConfig,
        helper: Arc<crate::key_helper::ApiKeyHelper>,
    ) -> Result<Self, ModelError> {
        config.api_key = None;
        config.auth_token = None;
        let client = Self::build(config)?;
        client.transport.set_key_helper(helper);
        Ok(client)
    }

    fn build(config: AnthropicConfig) -> Result<Self, ModelError> {
        let endpoint = config.endpoint();
        reqwest::Url::parse(&endpoint.url).map_err(|e| {
            ModelError::Config(format!("invalid {ENV_BASE_URL} `{}`: {e}", config.base_url))
        })?;
        let mut headers = HeaderMap::new();
        let mut add = |name: &str, value: &str| header(&mut headers, name, value);
        add("anthropic-version", ANTHROPIC_VERSION)?;
        add("content-type", "application/json")?;
        add("accept", "text/event-stream")?;
        if let Some(key) = &config.api_key {
            add("x-api-key", key)?;
        }
        if let Some(token) = &config.auth_token {
            add("authorization", &format!("Bearer {token}"))?;
        }
        // A custom `anthropic-beta` joins each request's own betas.
        let mut extra_betas = Vec::new();
        for (name, value) in &config.extra_headers {
            if name.trim().eq_ignore_ascii_case("anthropic-beta") {
                extra_betas.extend(split_betas(value));
            } else {
                add(name, value)?;
            }
        }
        let transport = Transport::new(endpoint, headers, &config.retry, config.idle_timeout_ms)?;
        let mut config = config;
        for beta in extra_betas {
            if !config.shape.betas.contains(&beta) {
                config.shape.betas.push(beta);
            }
        }
        Ok(Self {
            config,
            transport,
            sent: PrefixCache::default(),
        })
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }
}

impl ModelClient for AnthropicClient {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        let plan = shape::Plan::of(request, &self.config.shape);
        let mut headers = HeaderMap::new();
        if let Err(e) = header(&mut headers, "anthropic-beta", &plan.beta_header()) {
            return driver::failed(e);
        }
        match request::build_body(request, &plan, &self.sent) {
            Ok(body) => {
                self.transport
                    .stream_with(Bytes::from(body), headers, sse::Assembler::new())
            }
            Err(e) => driver::failed(ModelError::Config(format!(
                "cannot serialize the request: {e}"
            ))),
        }
    }

    fn provider(&self) -> &str {
        "anthropic"
    }

    /// A Messages request with `stream: false` and the client's betas.
    fn send_json(
        &self,
        mut body: serde_json::Value,
    ) -> futures::future::BoxFuture<'static, Result<serde_json::Value, ModelError>> {
        body["stream"] = serde_json::Value::Bool(false);
        let mut headers = HeaderMap::new();
        let betas = self.config.shape.betas.join(",");
        let prepared = header(&mut headers, "accept", "application/json")
            .and_then(|()| match betas.is_empty() {
                true => Ok(()),
                false => header(&mut headers, "anthropic-beta", &betas),
            })
            .and_then(|()| {
                serde_json::to_vec(&body)
                    .map_err(|e| ModelError::Config(format!("cannot serialize the request: {e}")))
            });
        let transport = Arc::clone(&self.transport);
        Box::pin(async move {
            let body = Bytes::from(prepared?);
            transport.post_json::<sse::Assembler>(headers, body).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env;

    #[test]
    fn config_from_env_and_missing_credentials() {
        let c = AnthropicConfig::from_lookup(test_env::lookup(&[
            ("ANTHROPIC_API_KEY", "sk"),
            ("ANTHROPIC_AUTH_TOKEN", " "),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
        ]));
        assert_eq!(c.api_key.as_deref(), Some("sk"));
        assert_eq!(c.auth_token, None);
        assert_eq!(c.endpoint().url, "http://127.0.0.1:9/v1/messages");
        assert_eq!(
            (c.idle_timeout_ms, c.retry.max_retries),
            test_env::OVERRIDDEN
        );
        let d = AnthropicConfig::from_lookup(|_| None);
        assert_eq!(d.base_url, "https://api.anthropic.com");
        let err = AnthropicClient::new(d).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("no Anthropic credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)")
        );
    }

    #[test]
    fn https_base_url_builds() {
        let c = AnthropicConfig {
            api_key: Some("k".into()),
            ..Default::default()
        };
        let client = AnthropicClient::new(c);
        assert!(client.is_ok());
        let bad = AnthropicConfig {
            api_key: Some("k\n".into()),
            ..Default::default()
        };
        assert!(matches!(
            AnthropicClient::new(bad),
            Err(ModelError::Config(_))
        ));
    }
}
