//! What the cloud providers' clients (Bedrock, Vertex AI) share: their
//! request settings ([`CloudCommon`]) and the calls a client builds from
//! them (`CloudCommon::calls`: URL check, headers, transport,
//! credentials), the snapshot of their credential variables
//! ([`CapturedEnv`]), error bodies with a hint, and the Messages request
//! shape sent to a per-model URL.
//!
//! Data flow: a cloud client's `stream` names the model's URL and the
//! body's target; `CloudCalls::stream` plans the request as the
//! Anthropic client does (`anthropic::shape::Plan`: thinking, effort,
//! betas; no `context_management`, as Claude Code on the clouds), writes the body for that target
//! (`anthropic::request::build_body_for`, prompt-cache markers and the
//! reused prefix bytes included), and sends it on the transport of that
//! URL — one per URL, sharing the client's connection pool and
//! credentials (`driver::Transport::at`) — with the given decoder.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use eventsource_stream::Event;
use reqwest::header::HeaderMap;

use crate::anthropic::request::{BodyFor, build_body_for};
use crate::anthropic::shape::Plan;
use crate::anthropic::sse::Assembler;
use crate::anthropic::{AnthropicConfig, ENV_CUSTOM_HEADERS, RequestShape, parse_custom_headers};
use crate::auth::Authorizer;
use crate::driver::{self, Transport, WireDecoder};
use crate::driver::{Events, Step, head};
use crate::headers::header;
use crate::prefix::PrefixCache;
use crate::{Endpoint, EventStream, ModelError, ModelRequest, RetryConfig};

/// The variables a credentials search reads, captured when the client was
/// built (so the search, run on the first request, sees the session's
/// environment). `Debug` shows only which are set.
#[derive(Clone, Default, PartialEq)]
pub struct CapturedEnv {
    vars: Vec<(String, String)>,
}

impl std::fmt::Debug for CapturedEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.vars.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("CapturedEnv").field("set", &names).finish()
    }
}

impl CapturedEnv {
    /// `names` from `lookup` (empty values are unset).
    pub fn of(names: &[&str], lookup: impl Fn(&str) -> Option<String>) -> Self {
        let vars = names
            .iter()
            .filter_map(|name| {
                let value = lookup(name).filter(|v| !v.trim().is_empty())?;
                Some((name.to_string(), value))
            })
            .collect();
        Self { vars }
    }

    /// A captured variable's value.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The request settings every cloud client takes from the Anthropic
/// provider's variables.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudCommon {
    /// Retry schedule of failed calls.
    pub retry: RetryConfig,
    /// A response with no event for this long is abandoned, in milliseconds.
    pub idle_timeout_ms: u64,
    /// More headers for every request (`ANTHROPIC_CUSTOM_HEADERS`).
    pub extra_headers: Vec<(String, String)>,
    /// Thinking, effort, prompt caching and betas of every request.
    pub shape: RequestShape,
}

impl CloudCommon {
    /// Reads the Anthropic provider's variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let anthropic = AnthropicConfig::from_lookup(&lookup);
        Self {
            retry: anthropic.retry,
            idle_timeout_ms: anthropic.idle_timeout_ms,
            extra_headers: lookup(ENV_CUSTOM_HEADERS)
                .map(|text| parse_custom_headers(&text))
                .unwrap_or_default(),
            shape: anthropic.shape,
        }
    }

    /// Every request's headers: JSON in and out, then the custom ones.
    pub(crate) fn headers(&self) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        header(&mut headers, "content-type", "application/json")?;
        header(&mut headers, "accept", "application/json")?;
        for (name, value) in &self.extra_headers {
            header(&mut headers, name, value)?;
        }
        Ok(headers)
    }

    /// A cloud client's calls: `base` checked as a URL (`provider` names
    /// it in the error), a transport to `endpoint` with every request's
    /// headers plus `extra_headers`, these retries and idle timeout, and
    /// `auth` authorizing every attempt (None: no credentials are sent).
    pub(crate) fn calls(
        &self,
        provider: &str,
        base: &str,
        endpoint: Endpoint,
        extra_headers: &[(&str, &str)],
        auth: Option<Arc<dyn Authorizer>>,
    ) -> Result<CloudCalls, ModelError> {
        reqwest::Url::parse(base)
            .map_err(|e| ModelError::Config(format!("invalid {provider} URL `{base}`: {e}")))?;
        let mut headers = self.headers()?;
        for (name, value) in extra_headers {
            header(&mut headers, name, value)?;
        }
        let transport = Transport::new(endpoint, headers, &self.retry, self.idle_timeout_ms)?;
        if let Some(auth) = auth {
            transport.set_authorizer(auth);
        }
        Ok(CloudCalls::new(transport))
    }
}

/// Sends the request `build` makes on a client for `url` bounded by
/// `timeout_ms` (a credentials endpoint: a token URI, the SSO portal); a
/// failure before any answer as one line (`cannot reach URL (cause)`).
pub(crate) async fn send_bounded(
    url: &str,
    timeout_ms: u64,
    build: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, String> {
    let http = crate::tls::http_client_builder_for(url)
        .timeout(std::time::Duration::from_millis(timeout_ms))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    build(&http)
        .send()
        .await
        .map_err(|e| format!("cannot reach {url} ({})", crate::reach::error_chain(&e)))
}

/// RFC 3986 percent-encoding of everything but the unreserved characters
/// (a URL path segment, a form value).
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A cloud provider's error status as a [`ModelError::Api`]: its own
/// message (`message`, else the body's start) and the hint naming what to
/// check.
pub(crate) fn api_error_with_hint(
    status: u16,
    error_type: Option<String>,
    message: Option<String>,
    body: &str,
    hint: Option<String>,
) -> ModelError {
    let message = message.unwrap_or_else(|| {
        if body.trim().is_empty() {
            "(empty body)".into()
        } else {
            head(body)
        }
    });
    ModelError::Api {
        status,
        error_type,
        message: match hint {
            Some(h) => format!("{message} ({h})"),
            None => message,
        },
    }
}

/// A cloud client's calls: its base transport, one transport per URL, and
/// the bytes of its previous request's messages.
#[derive(Debug)]
pub(crate) struct CloudCalls {
    base: Arc<Transport>,
    by_url: Mutex<HashMap<String, Arc<Transport>>>,
    sent: PrefixCache,
}

/// Which provider a body is for, as [`CloudCalls::stream`] writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cloud {
    /// Bedrock: betas in the body too.
    Bedrock,
    /// Vertex AI.
    Vertex,
}

impl CloudCalls {
    pub(crate) fn new(base: Arc<Transport>) -> Self {
        Self {
            base,
            by_url: Mutex::new(HashMap::new()),
            sent: PrefixCache::default(),
        }
    }

    fn transport(&self, endpoint: Endpoint) -> Arc<Transport> {
        let mut map = self.by_url.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(
            map.entry(endpoint.url.clone())
                .or_insert_with(|| self.base.at(endpoint)),
        )
    }

    /// One call of `request` to `endpoint`, its body written for `cloud`.
    pub(crate) fn stream<D: WireDecoder>(
        &self,
        request: &ModelRequest,
        shape: &RequestShape,
        endpoint: Endpoint,
        cloud: Cloud,
        decoder: D,
    ) -> EventStream {
        let plan = Plan::of(request, shape).for_cloud();
        let mut headers = HeaderMap::new();
        if let Err(e) = header(&mut headers, "anthropic-beta", &plan.beta_header()) {
            return driver::failed(e);
        }
        let body_betas = plan.bedrock_body_betas();
        let target = match cloud {
            Cloud::Bedrock => BodyFor::Bedrock(&body_betas),
            Cloud::Vertex => BodyFor::Vertex,
        };
        match build_body_for(request, &plan, &self.sent, target) {
            Ok(body) => self
                .transport(endpoint)
                .stream_with(Bytes::from(body), headers, decoder),
            Err(e) => driver::failed(ModelError::Config(format!(
                "cannot serialize the request: {e}"
            ))),
        }
    }
}

/// What differs between the cloud providers' decoders: how a received
/// event carries a Messages streaming event, and how an error body reads.
pub(crate) trait CloudWire: Send + 'static {
    /// The Messages event (`event:` name, JSON text) `event` carries; None
    /// for an event to skip.
    fn messages_event(event: &Event) -> Result<Option<(String, String)>, ModelError>;

    /// The error an error status means (see `WireDecoder::api_error`).
    fn api_error(status: u16, body: &str, url: &str) -> ModelError;
}

/// A cloud provider's decoder: its events' Messages events to the
/// Anthropic client's assembler.
#[derive(Debug)]
pub(crate) struct CloudDecoder<W> {
    inner: Assembler,
    wire: std::marker::PhantomData<fn() -> W>,
}

impl<W> Default for CloudDecoder<W> {
    fn default() -> Self {
        Self {
            inner: Assembler::new(),
            wire: std::marker::PhantomData,
        }
    }
}

impl<W: CloudWire> WireDecoder for CloudDecoder<W> {
    fn decode(&mut self, event: &Event, out: &mut Events) -> Result<Step, ModelError> {
        let Some((name, data)) = W::messages_event(event)? else {
            return Ok(Step::Continue);
        };
        let step = self.inner.handle(&name, &data)?;
        out.extend(self.inner.take_events());
        Ok(step)
    }

    fn end_of_body(&mut self, _out: &mut Events) -> Result<(), ModelError> {
        Err(ModelError::StreamCut)
    }

    fn reset(&mut self) {
        *self = Self::default();
    }

    fn api_error(status: u16, body: &str, url: &str) -> ModelError {
        W::api_error(status, body, url)
    }
}
