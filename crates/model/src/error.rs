//! Errors a model call can end with, after retries.

use thiserror::Error;

#[derive(Debug, Clone, Error)]
pub enum ModelError {
    /// The API answered with an error status (not retried, or retries spent).
    #[error("API error (HTTP {status}{}): {message}", error_type.as_deref().map(|t| format!(", {t}")).unwrap_or_default())]
    Api {
        status: u16,
        error_type: Option<String>,
        message: String,
    },
    /// An `error` event arrived inside the stream.
    #[error("API error in stream ({error_type}): {message}")]
    StreamError { error_type: String, message: String },
    #[error("connection error: {0}")]
    Connection(String),
    #[error("the response stream ended before message_stop")]
    StreamCut,
    #[error("no stream event for {0} ms; the response was abandoned")]
    IdleTimeout(u64),
    #[error("malformed stream event: {0}")]
    Malformed(String),
    /// Misconfiguration detected before any request (no key, bad URL).
    #[error("{0}")]
    Config(String),
}

impl ModelError {
    /// Whether a fresh attempt may succeed (L4).
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Api { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            ModelError::StreamError { error_type, .. } => {
                matches!(
                    error_type.as_str(),
                    "overloaded_error" | "api_error" | "rate_limit_error"
                )
            }
            ModelError::Connection(_)
            | ModelError::StreamCut
            | ModelError::IdleTimeout(_)
            | ModelError::Malformed(_) => true,
            ModelError::Config(_) => false,
        }
    }

    /// HTTP status, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::Api { status, .. } => Some(*status),
            _ => None,
        }
    }
}
