//! Errors a model call can end with, after retries.

use thiserror::Error;

use crate::reach::Endpoint;

/// Why a model call failed.
#[derive(Debug, Clone, Error)]
pub enum ModelError {
    /// The API answered with an error status (not retried, or retries spent).
    #[error("API error (HTTP {status}{}): {message}", error_type.as_deref().map(|t| format!(", {t}")).unwrap_or_default())]
    Api {
        /// HTTP status.
        status: u16,
        /// The API's error type (e.g. `overloaded_error`), when given.
        error_type: Option<String>,
        /// The API's error message.
        message: String,
    },
    /// An `error` event arrived inside the stream.
    #[error("API error in stream ({error_type}): {message}")]
    StreamError {
        /// The API's error type.
        error_type: String,
        /// The API's error message.
        message: String,
    },
    /// A transport error after the connection was made (reset, body cut).
    #[error("connection error: {0}")]
    Connection(String),
    /// This attempt could not reach the server (connection refused, DNS
    /// lookup failed, connect timeout, TLS handshake); retried on the short
    /// connect schedule (`crate::RetryConfig::for_connect`). Its text is
    /// the `Retry` event's message.
    #[error("cannot reach {url} ({cause})")]
    Connect {
        /// The URL that was tried.
        url: String,
        /// The transport's description of the failure.
        cause: String,
    },
    /// No attempt reached the server: the final form of [`Self::Connect`]
    /// (`Self::into_final`), one line naming the cause and what to check.
    #[error("cannot reach {base_url} ({cause}) after {attempts} attempt{}; check {check}", if *attempts == 1 { "" } else { "s" })]
    Unreachable {
        /// The configured base URL.
        base_url: String,
        /// The transport's description of the last failure.
        cause: String,
        /// Attempts made.
        attempts: u32,
        /// What to check, e.g. `ANTHROPIC_BASE_URL`.
        check: String,
    },
    /// The stream ended before `message_stop`.
    #[error("the response stream ended before message_stop")]
    StreamCut,
    /// No stream event arrived for this many milliseconds.
    #[error("no stream event for {0} ms; the response was abandoned")]
    IdleTimeout(u64),
    /// A stream event could not be decoded; the text says what was wrong.
    #[error("malformed stream event: {0}")]
    Malformed(String),
    /// Misconfiguration detected before any request (no key, bad URL).
    #[error("{0}")]
    Config(String),
}

impl ModelError {
    /// Whether a fresh attempt may succeed (L4).
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            ModelError::Api { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            ModelError::StreamError { error_type, .. } => {
                matches!(
                    error_type.as_str(),
                    "overloaded_error" | "api_error" | "rate_limit_error"
                )
            }
            ModelError::Connection(_)
            | ModelError::Connect { .. }
            | ModelError::StreamCut
            | ModelError::IdleTimeout(_)
            | ModelError::Malformed(_) => true,
            ModelError::Config(_) | ModelError::Unreachable { .. } => false,
        }
    }

    /// Whether the API said the model is overloaded (HTTP 529 or an
    /// `overloaded_error`), the retries spent: `--fallback-model`'s trigger.
    pub fn is_overloaded(&self) -> bool {
        match self {
            ModelError::Api {
                status, error_type, ..
            } => *status == 529 || error_type.as_deref() == Some("overloaded_error"),
            ModelError::StreamError { error_type, .. } => error_type == "overloaded_error",
            _ => false,
        }
    }

    /// Whether the server refused the request because the prompt does not
    /// fit the model's context window (L4: compact and retry once).
    /// Recognized: Anthropic's 400 `prompt is too long: N tokens > M
    /// maximum`; llama.cpp's 400 `exceed_context_size_error` (`request (N
    /// tokens) exceeds the available context size (M tokens), try
    /// increasing it`); OpenAI's `context_length_exceeded` (`This model's
    /// maximum context length is …`).
    pub fn is_prompt_too_long(&self) -> bool {
        let (error_type, message) = match self {
            ModelError::Api {
                status: 400 | 413,
                error_type,
                message,
            } => (error_type.as_deref().unwrap_or_default(), message.as_str()),
            ModelError::StreamError {
                error_type,
                message,
            } => (error_type.as_str(), message.as_str()),
            _ => return false,
        };
        let message = message.to_ascii_lowercase();
        matches!(
            error_type,
            "exceed_context_size_error" | "context_length_exceeded"
        ) || [
            "prompt is too long",
            "exceeds the available context size",
            "maximum context length",
            "larger than the max context size",
        ]
        .iter()
        .any(|needle| message.contains(needle))
    }

    /// Whether this attempt failed to reach the server at all.
    pub(crate) fn is_connect(&self) -> bool {
        matches!(self, ModelError::Connect { .. })
    }

    /// The error that ends a call after `attempts` attempts: a connect
    /// failure becomes [`Self::Unreachable`] naming `endpoint`'s base URL
    /// and what to check; any other error is returned as it is.
    pub(crate) fn into_final(self, attempts: u32, endpoint: &Endpoint) -> ModelError {
        match self {
            ModelError::Connect { cause, .. } => ModelError::Unreachable {
                base_url: endpoint.base_url.clone(),
                cause,
                attempts,
                check: endpoint.check.clone(),
            },
            other => other,
        }
    }

    /// HTTP status, when there was one.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            ModelError::Api { status, .. } => Some(*status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(status: u16, error_type: Option<&str>, message: &str) -> ModelError {
        ModelError::Api {
            status,
            error_type: error_type.map(str::to_string),
            message: message.to_string(),
        }
    }

    #[test]
    fn prompt_too_long_is_recognized_per_provider() {
        let cases = [
            (
                api(
                    400,
                    Some("invalid_request_error"),
                    "prompt is too long: 212345 tokens > 200000 maximum",
                ),
                true,
            ),
            (
                api(
                    400,
                    Some("exceed_context_size_error"),
                    "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it",
                ),
                true,
            ),
            (
                api(
                    400,
                    Some("invalid_request_error"),
                    "This model's maximum context length is 128000 tokens.",
                ),
                true,
            ),
            (
                ModelError::StreamError {
                    error_type: "exceed_context_size_error".into(),
                    message: "x".into(),
                },
                true,
            ),
            (
                api(400, Some("invalid_request_error"), "bad tool name"),
                false,
            ),
            (api(500, None, "prompt is too long"), false),
            (ModelError::StreamCut, false),
        ];
        for (error, expected) in cases {
            assert_eq!(error.is_prompt_too_long(), expected, "{error}");
        }
    }
}
