//! The attempt loop of one chat-completions call: send, read SSE chunks
//! with an idle timeout, feed the [`ChunkAssembler`], and on a transient
//! failure announce `StreamEvent::Retry`, wait, and start over.
//!
//! It is a pull-based state machine driven by `futures::stream::unfold`, so
//! dropping the returned stream cancels the request wherever it is. The
//! one task it spawns is the bounded drain of a finished body
//! ([`SseBody::drain_in_background`], at `[DONE]`), so the pooled
//! connection is reused even though the engine drops the stream at
//! `MessageStop`. A server that cannot be reached is retried on the short
//! connect schedule and reported as `cannot reach … ; check
//! OPENAI_BASE_URL` (or what [`super::OpenAiConfig::base_url_check`] names).

use std::collections::VecDeque;
use std::time::Duration;

use eventsource_stream::EventStreamError;
use futures::StreamExt;
use orbit_protocol::StreamEvent;
use serde_json::Value;

use super::chunks::ChunkAssembler;
use crate::body::SseBody;
use crate::reach::{Endpoint, error_chain, send_error};
use crate::retry::parse_retry_after;
use crate::{EventStream, ModelError, RetryConfig};

/// Largest part of an error body quoted in an error message, in bytes.
const MAX_ERROR_BODY_BYTES: usize = 2_000;

/// Everything needed to (re)send one request.
pub(super) struct Driver {
    pub http: reqwest::Client,
    pub endpoint: Endpoint,
    pub api_key: Option<String>,
    pub body: String,
    pub retry: RetryConfig,
    pub idle_timeout: Duration,
    pub recovery: Option<Vec<String>>,
}

struct State {
    driver: Driver,
    retries: u32,
    pending: VecDeque<Result<StreamEvent, ModelError>>,
    sse: Option<SseBody>,
    assembler: Option<ChunkAssembler>,
    wait_before_send: Option<Duration>,
    done: bool,
}

impl Driver {
    pub fn into_stream(self) -> EventStream {
        let state = State {
            driver: self,
            retries: 0,
            pending: VecDeque::new(),
            sse: None,
            assembler: None,
            wait_before_send: None,
            done: false,
        };
        futures::stream::unfold(state, |mut st| async move {
            let item = st.next().await?;
            Some((item, st))
        })
        .boxed()
    }

    /// Sends the request; the SSE stream on a 2xx answer.
    async fn send(&self) -> Result<SseBody, (ModelError, Option<Duration>)> {
        let url = &self.endpoint.url;
        let mut req = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(self.body.clone());
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let response = match tokio::time::timeout(self.idle_timeout, req.send()).await {
            Err(_) => return Err((ModelError::IdleTimeout(millis(self.idle_timeout)), None)),
            Ok(Err(e)) => return Err((send_error(&e, url), None)),
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = parse_retry_after(response.headers());
            let text = tokio::time::timeout(self.idle_timeout, response.text())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            return Err((api_error(status.as_u16(), &text), retry_after));
        }
        Ok(SseBody::new(response))
    }
}

impl State {
    async fn next(&mut self) -> Option<Result<StreamEvent, ModelError>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            let Some(sse) = self.sse.as_mut() else {
                if let Some(wait) = self.wait_before_send.take() {
                    tokio::time::sleep(wait).await;
                }
                match self.driver.send().await {
                    Ok(stream) => {
                        self.sse = Some(stream);
                        self.assembler = Some(ChunkAssembler::new(self.driver.recovery.clone()));
                    }
                    Err((err, retry_after)) => self.fail(err, retry_after),
                }
                continue;
            };
            let next = tokio::time::timeout(self.driver.idle_timeout, sse.next()).await;
            match next {
                Err(_) => self.fail(
                    ModelError::IdleTimeout(millis(self.driver.idle_timeout)),
                    None,
                ),
                Ok(None) => {
                    // A clean end without `[DONE]` is fine once the choice finished.
                    if self
                        .assembler
                        .as_ref()
                        .is_some_and(ChunkAssembler::saw_finish)
                    {
                        self.sse = None; // read to its end: nothing to drain
                        self.finish();
                    } else {
                        self.fail(ModelError::StreamCut, None);
                    }
                }
                // The connection broke mid-body (a cut chunked stream).
                Ok(Some(Err(EventStreamError::Transport(e)))) => {
                    self.fail(ModelError::Connection(error_chain(&e)), None)
                }
                Ok(Some(Err(e))) => self.fail(ModelError::Malformed(e.to_string()), None),
                Ok(Some(Ok(event))) => self.on_event(&event.data),
            }
        }
    }

    fn on_event(&mut self, data: &str) {
        let data = data.trim();
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            self.finish();
            return;
        }
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                let shown: String = data.chars().take(200).collect();
                return self.fail(ModelError::Malformed(format!("{e}: {shown}")), None);
            }
        };
        let Some(assembler) = self.assembler.as_mut() else {
            return;
        };
        match assembler.feed(&chunk) {
            Ok(events) => self.pending.extend(events.into_iter().map(Ok)),
            Err(e) => self.fail(e, None),
        }
    }

    /// The closing events; the rest of the body is drained in the
    /// background, since the caller may drop the stream at `MessageStop`.
    fn finish(&mut self) {
        if let Some(assembler) = self.assembler.as_mut() {
            self.pending.extend(assembler.finish().into_iter().map(Ok));
        }
        if let Some(body) = self.sse.take() {
            body.drain_in_background();
        }
        self.done = true;
    }

    /// Retries a transient failure (queueing a `Retry` event) or ends the
    /// call with the error.
    fn fail(&mut self, err: ModelError, retry_after: Option<Duration>) {
        self.sse = None;
        self.assembler = None;
        let schedule = self.driver.retry.for_error(&err);
        if err.is_retryable() && self.retries < schedule.max_retries {
            self.retries += 1;
            let delay = schedule.delay(self.retries, retry_after);
            self.pending.push_back(Ok(StreamEvent::Retry {
                attempt: self.retries,
                max_retries: schedule.max_retries,
                delay_ms: millis(delay),
                error_status: err.status(),
                message: err.to_string(),
            }));
            self.wait_before_send = Some(delay);
        } else {
            let attempts = self.retries + 1;
            self.pending
                .push_back(Err(err.into_final(attempts, &self.driver.endpoint)));
            self.done = true;
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// An error status with the server's own message: `{"error": {"message",
/// "type"}}` (OpenAI, llama.cpp), `{"error": "…"}`, `{"message": "…"}`, or
/// the raw body.
fn api_error(status: u16, body: &str) -> ModelError {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let err = &parsed["error"];
    let message = err["message"]
        .as_str()
        .or_else(|| err.as_str())
        .or_else(|| parsed["message"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| {
            let mut cut = body.trim().len().min(MAX_ERROR_BODY_BYTES);
            while !body.trim().is_char_boundary(cut) {
                cut -= 1;
            }
            let raw = &body.trim()[..cut];
            if raw.is_empty() {
                format!("HTTP {status} with an empty body")
            } else {
                raw.to_string()
            }
        });
    let error_type = err["type"]
        .as_str()
        .or_else(|| err["code"].as_str())
        .map(str::to_string);
    ModelError::Api {
        status,
        error_type,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_error_bodies() {
        let e = api_error(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        );
        assert_eq!(
            e.to_string(),
            "API error (HTTP 401, invalid_request_error): Incorrect API key provided"
        );
        let e = api_error(404, r#"{"error":"model not found"}"#);
        assert_eq!(e.to_string(), "API error (HTTP 404): model not found");
        let e = api_error(502, "bad gateway");
        assert_eq!(e.to_string(), "API error (HTTP 502): bad gateway");
        let e = api_error(500, "");
        assert_eq!(
            e.to_string(),
            "API error (HTTP 500): HTTP 500 with an empty body"
        );
    }
}
