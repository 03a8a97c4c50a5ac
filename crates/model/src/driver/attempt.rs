//! One attempt's request and what its response means.
//!
//! [`send`] posts the call's body with the client's headers ([`post`], the
//! non-streamed call's too), bounded by the idle timeout. A 2xx
//! `text/event-stream` (or any 2xx that is not JSON) answer becomes an
//! [`SseBody`]; anything else a [`Failure`]: a send that
//! failed before any response ([`crate::reach::send_error`]), or a status
//! whose body — read under the same idle timeout, empty when it cannot be
//! read, since the status alone decides what to do — the wire format turns
//! into its error ([`WireDecoder::api_error`]); a 2xx JSON body (a server
//! that ignored `stream: true`) is an error of its own. The server's
//! `retry-after(-ms)` and `x-should-retry` headers travel with the failure.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap};

use super::{Transport, WireDecoder};
use crate::ModelError;
use crate::body::SseBody;
use crate::reach::send_error;
use crate::retry::parse_retry_after;

/// Longest raw body quoted in an error message, in chars.
const MAX_ERROR_BODY_CHARS: usize = 500;

/// A failed attempt, with what the server said about retrying.
pub(super) struct Failure {
    pub error: ModelError,
    pub retry_after: Option<Duration>,
    /// The `x-should-retry` header, when present.
    pub should_retry: Option<bool>,
}

impl From<ModelError> for Failure {
    fn from(error: ModelError) -> Self {
        Self {
            error,
            retry_after: None,
            should_retry: None,
        }
    }
}

/// Posts `body` with the client's headers, then `headers`, the key
/// helper's key and the authorizer's headers: the response, or why there
/// is none (a send that failed, the idle timeout).
pub(super) async fn post(
    transport: &Transport,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<reqwest::Response, ModelError> {
    let url = &transport.endpoint.url;
    let mut keyed = HeaderMap::new();
    if let Some(helper) = transport.key_helper.get() {
        // Claude Code sends the helper's value both ways.
        let key = helper.key().await?;
        crate::headers::header(&mut keyed, "x-api-key", &key)?;
        crate::headers::header(&mut keyed, "authorization", &format!("Bearer {key}"))?;
    }
    if let Some(authorizer) = transport.authorizer.get() {
        let mut sent = transport.headers.clone();
        sent.extend(headers.clone());
        keyed.extend(authorizer.authorize(url, &sent, body).await?);
    }
    let send = transport
        .http
        .post(url)
        .headers(transport.headers.clone())
        .headers(headers.clone())
        .headers(keyed)
        .body(body.clone())
        .send();
    match tokio::time::timeout(transport.idle_timeout, send).await {
        Err(_) => Err(ModelError::IdleTimeout(transport.idle_timeout_ms())),
        Ok(Err(e)) => Err(send_error(&e, url)),
        Ok(Ok(r)) => Ok(r),
    }
}

/// Sends the request; a 2xx SSE response becomes an event stream.
pub(super) async fn send<D: WireDecoder>(
    transport: &Transport,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<SseBody, Failure> {
    let url = &transport.endpoint.url;
    let idle = transport.idle_timeout;
    let response = post(transport, headers, body).await?;
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.is_success() && !is_json {
        return Ok(SseBody::new(response));
    }
    // Reading the body consumes the response.
    let headers = response.headers().clone();
    let text = tokio::time::timeout(idle, response.text())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let error = if status.is_success() {
        ModelError::Api {
            status: status.as_u16(),
            error_type: None,
            message: format!(
                "expected an SSE stream (text/event-stream) but got JSON: {}",
                head(&text)
            ),
        }
    } else {
        D::api_error(status.as_u16(), &text, url)
    };
    let should_retry = match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    };
    Err(Failure {
        error,
        retry_after: parse_retry_after(&headers),
        should_retry,
    })
}

/// The start of a body for an error message: at most
/// [`MAX_ERROR_BODY_CHARS`] chars, `…` when cut.
pub(crate) fn head(text: &str) -> String {
    let mut s: String = text.chars().take(MAX_ERROR_BODY_CHARS).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
