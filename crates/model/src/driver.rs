//! The one attempt loop of a model call, whatever the wire format: connect
//! → stream → (fail → announce `Retry` → back off → connect again) until
//! the message's last event, a final error, or retries run out (L4).
//!
//! Data flow: a client serializes its request once and hands the body and
//! a fresh [`WireDecoder`] to `Transport::stream`. Each attempt waits
//! (briefly) for the previous call's drain (`body::DrainGate::wait`), sends the
//! body (`attempt`), resets the decoder, and feeds it every SSE event of
//! the response; the decoder appends `StreamEvent`s to the pending queue
//! the stream yields from. A failed attempt becomes a `Retry` event and a
//! backoff on the schedule of [`crate::RetryConfig::for_error`] (the short
//! connect schedule for a server that cannot be reached), or the final
//! error ([`ModelError::into_final`]).
//!
//! `Driver` is a small state machine polled through
//! `futures::stream::unfold`, so the returned stream owns everything and
//! dropping it cancels the request and any backoff sleep. Each await on the
//! network is bounded by the idle timeout (response headers, an error body,
//! every SSE event). At the message's last event the body goes to a bounded
//! background drain (`body::DrainGate::start`) before the last events are
//! yielded, so the pooled connection is reused by the next call even though
//! the engine drops the stream at `MessageStop`.
//!
//! What differs between providers is only the [`WireDecoder`]: how an SSE
//! event becomes `StreamEvent`s, whether a body that ends early is still a
//! whole message, and how an error body reads.

mod attempt;
mod json;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use eventsource_stream::Event;
use futures::StreamExt;
use orbit_protocol::StreamEvent;
use reqwest::header::HeaderMap;

pub(crate) use attempt::head;

use crate::body::{DrainGate, SseBody};
use crate::reach::Endpoint;
use crate::{EventStream, ModelError, RetryConfig};
use attempt::Failure;

/// The events a decoder produced, in the order the stream yields them.
pub(crate) type Events = VecDeque<StreamEvent>;

/// What the attempt loop does after a decoded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep reading the stream.
    Continue,
    /// The message is complete (`message_stop`, `[DONE]`): what is left of
    /// the body is drained in the background.
    Stop,
    /// The message is complete but the server is still generating what the
    /// client does not want (a second tool call in a one-call reply): the
    /// body is dropped, which closes the connection and so stops the
    /// server's generation (llama.cpp cancels a task whose client left).
    Cut,
}

/// One wire format's side of a call: SSE events in, `StreamEvent`s out.
/// One decoder serves every attempt of a call; [`Self::reset`] forgets the
/// previous attempt.
pub(crate) trait WireDecoder: Send + 'static {
    /// Decodes one SSE event, appending what it completes to `out`. On an
    /// error, what it appended is discarded (the attempt is void).
    fn decode(&mut self, event: &Event, out: &mut Events) -> Result<Step, ModelError>;

    /// The body ended cleanly before [`Step::Stop`]: appends the closing
    /// events when the message is whole anyway, else says why not
    /// ([`ModelError::StreamCut`]).
    fn end_of_body(&mut self, out: &mut Events) -> Result<(), ModelError>;

    /// Forgets the previous attempt; called when an attempt starts streaming.
    fn reset(&mut self);

    /// The error an error status means, from the server's body (`url`:
    /// where the request went, for hints).
    fn api_error(status: u16, body: &str, url: &str) -> ModelError;
}

/// What every call of one client shares: the pooled HTTP client, where
/// requests go and their headers, the retry policy, the idle timeout, and
/// the drain of the previous call. Built once per client.
#[derive(Debug)]
pub(crate) struct Transport {
    http: reqwest::Client,
    endpoint: Endpoint,
    headers: HeaderMap,
    retry: RetryConfig,
    idle_timeout: Duration,
    drain: DrainGate,
    /// `apiKeyHelper`: the key of every attempt (`x-api-key` and bearer).
    key_helper: std::sync::OnceLock<Arc<crate::key_helper::ApiKeyHelper>>,
    /// A cloud provider's credentials of every attempt (`crate::auth`).
    authorizer: std::sync::OnceLock<Arc<dyn crate::auth::Authorizer>>,
}

impl Transport {
    /// Builds the HTTP client for `endpoint` (see [`crate::tls`]).
    pub(crate) fn new(
        endpoint: Endpoint,
        headers: HeaderMap,
        retry: &RetryConfig,
        idle_timeout_ms: u64,
    ) -> Result<Arc<Self>, ModelError> {
        let http = crate::tls::http_client_builder_for(&endpoint.url)
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Arc::new(Self {
            http,
            endpoint,
            headers,
            retry: retry.clone(),
            idle_timeout: Duration::from_millis(idle_timeout_ms),
            drain: DrainGate::default(),
            key_helper: std::sync::OnceLock::new(),
            authorizer: std::sync::OnceLock::new(),
        }))
    }

    /// Authorizes every attempt with `authorizer` (set once, before any call).
    pub(crate) fn set_authorizer(&self, authorizer: Arc<dyn crate::auth::Authorizer>) {
        let _ = self.authorizer.set(authorizer);
    }

    /// This transport's connections, headers and credentials sending to
    /// another URL (a cloud provider's per-model path).
    pub(crate) fn at(&self, endpoint: Endpoint) -> Arc<Self> {
        Arc::new(Self {
            http: self.http.clone(),
            endpoint,
            headers: self.headers.clone(),
            retry: self.retry.clone(),
            idle_timeout: self.idle_timeout,
            drain: DrainGate::default(),
            key_helper: self.key_helper.clone(),
            authorizer: self.authorizer.clone(),
        })
    }

    /// Takes every attempt's key from `helper` (set once, before any call).
    pub(crate) fn set_key_helper(&self, helper: Arc<crate::key_helper::ApiKeyHelper>) {
        let _ = self.key_helper.set(helper);
    }

    fn idle_timeout_ms(&self) -> u64 {
        millis(self.idle_timeout)
    }

    /// One call: `body` sent on every attempt, `decoder` reading every
    /// response.
    pub(crate) fn stream<D: WireDecoder>(self: &Arc<Self>, body: Bytes, decoder: D) -> EventStream {
        self.stream_with(body, HeaderMap::new(), decoder)
    }

    /// [`Self::stream`] with `headers` added to the client's for this call
    /// (the Anthropic client's per-model `anthropic-beta`).
    pub(crate) fn stream_with<D: WireDecoder>(
        self: &Arc<Self>,
        body: Bytes,
        headers: HeaderMap,
        decoder: D,
    ) -> EventStream {
        let driver = Driver {
            transport: Arc::clone(self),
            headers,
            body,
            decoder,
            retries: 0,
            rekeyed: false,
            phase: Phase::Connect,
            pending: Events::new(),
        };
        futures::stream::unfold(driver, |mut d| async move {
            let item = d.next_item().await?;
            Some((item, d))
        })
        .boxed()
    }
}

/// A call that fails before any request (the request did not serialize).
pub(crate) fn failed(error: ModelError) -> EventStream {
    Box::pin(futures::stream::once(async move { Err(error) }))
}

enum Phase {
    Connect,
    Backoff(Duration),
    Streaming(SseBody),
    Done,
}

/// Everything one call needs; owned by the returned stream.
struct Driver<D> {
    transport: Arc<Transport>,
    /// This call's headers, besides the client's.
    headers: HeaderMap,
    body: Bytes,
    decoder: D,
    retries: u32,
    /// A 401 already made the key helper run again.
    rekeyed: bool,
    phase: Phase,
    pending: Events,
}

impl<D: WireDecoder> Driver<D> {
    async fn next_item(&mut self) -> Option<Result<StreamEvent, ModelError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            let failure = match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Backoff(delay) => {
                    tokio::time::sleep(delay).await;
                    self.phase = Phase::Connect;
                    continue;
                }
                Phase::Connect => {
                    self.transport.drain.wait().await;
                    match attempt::send::<D>(&self.transport, &self.headers, &self.body).await {
                        Ok(body) => {
                            self.decoder.reset();
                            self.phase = Phase::Streaming(body);
                            continue;
                        }
                        Err(failure) => failure,
                    }
                }
                Phase::Streaming(body) => match self.read(body).await {
                    Ok(()) => continue,
                    Err(error) => {
                        // Events of the failed event belong to a void attempt.
                        self.pending.clear();
                        Failure::from(error)
                    }
                },
            };
            if let Some(error) = self.fail(failure) {
                return Some(Err(error));
            }
        }
    }

    /// Reads one SSE event (or the end of the body) into `pending`; sets
    /// the next phase unless it fails.
    async fn read(&mut self, mut body: SseBody) -> Result<(), ModelError> {
        let next = tokio::time::timeout(self.transport.idle_timeout, body.next()).await;
        let event = match next {
            Err(_) => return Err(ModelError::IdleTimeout(self.transport.idle_timeout_ms())),
            // Read to its end: nothing to drain.
            Ok(None) => return self.decoder.end_of_body(&mut self.pending),
            Ok(Some(Err(e))) => return Err(e),
            Ok(Some(Ok(event))) => event,
        };
        match self.decoder.decode(&event, &mut self.pending)? {
            Step::Continue => self.phase = Phase::Streaming(body),
            // Done; the caller may drop us at MessageStop.
            Step::Stop => self.transport.drain.start(body),
            Step::Cut => drop(body),
        }
        Ok(())
    }

    /// Schedules a retry (queueing the `Retry` event) or returns the final error.
    fn fail(&mut self, failure: Failure) -> Option<ModelError> {
        // A refused helper key: run the helper again and retry once, now.
        if failure.error.status() == Some(401) && !self.rekeyed {
            if let Some(helper) = self.transport.key_helper.get() {
                helper.invalidate();
            }
            if let Some(authorizer) = self.transport.authorizer.get() {
                authorizer.invalidate();
            }
            if self.transport.key_helper.get().is_some()
                || self.transport.authorizer.get().is_some()
            {
                self.rekeyed = true;
                self.phase = Phase::Connect;
                return None;
            }
        }
        let retryable = failure
            .should_retry
            .unwrap_or_else(|| failure.error.is_retryable());
        let schedule = self.transport.retry.for_error(&failure.error);
        if !retryable || self.retries >= schedule.max_retries {
            self.phase = Phase::Done;
            let attempts = self.retries + 1;
            return Some(failure.error.into_final(attempts, &self.transport.endpoint));
        }
        self.retries += 1;
        let delay = schedule.delay(self.retries, failure.retry_after);
        tracing::debug!(
            attempt = self.retries,
            ?delay,
            error = %failure.error,
            "retrying model call"
        );
        self.pending.push_back(StreamEvent::Retry {
            attempt: self.retries,
            max_retries: schedule.max_retries,
            delay_ms: millis(delay),
            error_status: failure.error.status(),
            message: failure.error.to_string(),
        });
        self.phase = Phase::Backoff(delay);
        None
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
