//! The attempt loop of one Anthropic call: connect → stream → (fail →
//! announce `Retry` → back off → connect again) until `message_stop`, a
//! final error, or retries run out (L4).
//!
//! [`Driver`] is a small state machine polled through `futures::stream::unfold`,
//! so the returned stream owns everything and dropping it cancels the
//! request and any backoff sleep. Each await on the network is bounded by
//! the idle timeout (response headers and every SSE event; `ping` counts).
//! At `message_stop` the body goes to a bounded background drain
//! (`body::SseBody::drain_in_background`) before the last events are yielded,
//! so the pooled connection is reused by the next turn even though the
//! engine drops the stream at `message_stop`. A server that cannot be
//! reached is retried on the short connect schedule and reported as
//! `cannot reach … ; check ANTHROPIC_BASE_URL` ([`crate::reach`]).

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use eventsource_stream::EventStreamError;
use futures::StreamExt;
use orbit_protocol::StreamEvent;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::sse::{Assembler, Outcome};
use crate::body::SseBody;
use crate::reach::{Endpoint, error_chain, send_error};
use crate::{ModelError, RetryConfig, retry};

/// Longest raw error body quoted in an error message, in chars.
const MAX_ERROR_BODY_CHARS: usize = 500;

/// A failed attempt, with what the server said about retrying.
struct Failure {
    error: ModelError,
    retry_after: Option<Duration>,
    /// The `x-should-retry` header, when present.
    should_retry: Option<bool>,
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

enum Phase {
    Connect,
    Backoff(Duration),
    Streaming(SseBody, Box<Assembler>),
    Done,
}

/// The request of one call, sent again on every attempt. Kept apart from
/// the streaming state so `connect` borrows only `Sync` data.
struct Target {
    http: reqwest::Client,
    endpoint: Endpoint,
    headers: HeaderMap,
    body: Bytes,
    idle_timeout: Duration,
}

/// Everything one call needs; owned by the returned stream.
pub struct Driver {
    target: Target,
    retry: RetryConfig,
    retries: u32,
    phase: Phase,
    pending: VecDeque<StreamEvent>,
}

impl Driver {
    pub fn new(
        http: reqwest::Client,
        endpoint: Endpoint,
        headers: HeaderMap,
        body: Bytes,
        retry: RetryConfig,
        idle_timeout: Duration,
    ) -> Self {
        Self {
            target: Target {
                http,
                endpoint,
                headers,
                body,
                idle_timeout,
            },
            retry,
            retries: 0,
            phase: Phase::Connect,
            pending: VecDeque::new(),
        }
    }

    /// The driver as an event stream.
    pub fn into_stream(self) -> crate::EventStream {
        futures::stream::unfold(self, |mut d| async move {
            let item = d.next_item().await?;
            Some((item, d))
        })
        .boxed()
    }

    async fn next_item(&mut self) -> Option<Result<StreamEvent, ModelError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Backoff(delay) => {
                    tokio::time::sleep(delay).await;
                    self.phase = Phase::Connect;
                }
                Phase::Connect => match self.target.connect().await {
                    Ok(stream) => self.phase = Phase::Streaming(stream, Box::default()),
                    Err(failure) => {
                        if let Some(error) = self.fail(failure) {
                            return Some(Err(error));
                        }
                    }
                },
                Phase::Streaming(mut stream, mut assembler) => {
                    let idle = self.target.idle_timeout;
                    let step = match tokio::time::timeout(idle, stream.next()).await {
                        Err(_) => Err(ModelError::IdleTimeout(self.target.idle_timeout_ms())),
                        Ok(None) => Err(ModelError::StreamCut),
                        Ok(Some(Err(EventStreamError::Transport(e)))) => {
                            Err(ModelError::Connection(error_chain(&e)))
                        }
                        Ok(Some(Err(e))) => Err(ModelError::Malformed(e.to_string())),
                        Ok(Some(Ok(event))) => assembler.handle(&event.event, &event.data),
                    };
                    match step {
                        Ok(outcome) => {
                            self.pending.extend(assembler.take_events());
                            match outcome {
                                Outcome::Continue => {
                                    self.phase = Phase::Streaming(stream, assembler);
                                }
                                // Done; the caller may drop us at MessageStop.
                                Outcome::Stop => stream.drain_in_background(),
                            }
                        }
                        Err(error) => {
                            if let Some(error) = self.fail(error.into()) {
                                return Some(Err(error));
                            }
                        }
                    }
                }
            }
        }
    }

    /// Schedules a retry (queueing the `Retry` event) or returns the final error.
    fn fail(&mut self, failure: Failure) -> Option<ModelError> {
        let retryable = failure
            .should_retry
            .unwrap_or_else(|| failure.error.is_retryable());
        let schedule = self.retry.for_error(&failure.error);
        if !retryable || self.retries >= schedule.max_retries {
            self.phase = Phase::Done;
            let attempts = self.retries + 1;
            return Some(failure.error.into_final(attempts, &self.target.endpoint));
        }
        self.retries += 1;
        let delay = schedule.delay(self.retries, failure.retry_after);
        tracing::debug!(attempt = self.retries, ?delay, error = %failure.error, "retrying model call");
        self.pending.push_back(StreamEvent::Retry {
            attempt: self.retries,
            max_retries: schedule.max_retries,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error_status: failure.error.status(),
            message: failure.error.to_string(),
        });
        self.phase = Phase::Backoff(delay);
        None
    }
}

impl Target {
    fn idle_timeout_ms(&self) -> u64 {
        u64::try_from(self.idle_timeout.as_millis()).unwrap_or(u64::MAX)
    }

    /// Sends the request; a 2xx SSE response becomes an event stream.
    async fn connect(&self) -> Result<SseBody, Failure> {
        let url = &self.endpoint.url;
        let send = self
            .http
            .post(url)
            .headers(self.headers.clone())
            .body(self.body.clone())
            .send();
        let response = match tokio::time::timeout(self.idle_timeout, send).await {
            Err(_) => return Err(ModelError::IdleTimeout(self.idle_timeout_ms()).into()),
            Ok(Err(e)) => return Err(send_error(&e, url).into()),
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let is_json = headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if response.status().is_success() && !is_json {
            return Ok(SseBody::new(response));
        }
        let text = match tokio::time::timeout(self.idle_timeout, response.text()).await {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => return Err(ModelError::Connection(error_chain(&e)).into()),
            Err(_) => return Err(ModelError::IdleTimeout(self.idle_timeout_ms()).into()),
        };
        let error = if (200..300).contains(&status) {
            ModelError::Api {
                status,
                error_type: None,
                message: format!(
                    "expected an SSE stream (text/event-stream) but got JSON: {}",
                    head(&text)
                ),
            }
        } else {
            api_error(status, &text, url)
        };
        let should_retry = match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        };
        Err(Failure {
            error,
            retry_after: retry::parse_retry_after(&headers),
            should_retry,
        })
    }
}

fn head(text: &str) -> String {
    let mut s: String = text.chars().take(MAX_ERROR_BODY_CHARS).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

/// The API's error (its own `error.message`) plus a hint naming the likely
/// cause for statuses a retry cannot fix.
fn api_error(status: u16, text: &str, url: &str) -> ModelError {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let error = parsed.as_ref().map(|v| &v["error"]);
    let error_type = error.and_then(|e| e["type"].as_str()).map(String::from);
    let api_message = error
        .and_then(|e| e["message"].as_str())
        .map(String::from)
        .unwrap_or_else(|| {
            if text.trim().is_empty() {
                "(empty body)".into()
            } else {
                head(text)
            }
        });
    let hint = match status {
        401 => Some(
            "check the API key: ANTHROPIC_API_KEY (x-api-key) or ANTHROPIC_AUTH_TOKEN (bearer) was rejected"
                .to_string(),
        ),
        403 => Some("the API key lacks permission for this model or endpoint".to_string()),
        404 => Some(format!(
            "check the model name (--model / ANTHROPIC_MODEL) and ANTHROPIC_BASE_URL (request went to {url})"
        )),
        _ => None,
    };
    let message = match hint {
        Some(h) => format!("{api_message} ({h})"),
        None => api_message,
    };
    ModelError::Api {
        status,
        error_type,
        message,
    }
}
