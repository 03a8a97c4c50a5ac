//! What the cloud providers' clients (Bedrock, Vertex AI) share: the
//! Messages request shape sent to a per-model URL.
//!
//! Data flow: a cloud client's `stream` names the model's URL and the
//! body's target; [`CloudCalls::stream`] plans the request as the
//! Anthropic client does (`anthropic::shape::Plan`: thinking, effort,
//! betas), writes the body for that target
//! (`anthropic::request::build_body_for`, prompt-cache markers and the
//! reused prefix bytes included), and sends it on the transport of that
//! URL — one per URL, sharing the client's connection pool and
//! credentials (`driver::Transport::at`) — with the given decoder.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use reqwest::header::HeaderMap;

use crate::anthropic::RequestShape;
use crate::anthropic::request::{BodyFor, build_body_for};
use crate::anthropic::shape::Plan;
use crate::driver::{self, Transport, WireDecoder, header};
use crate::prefix::PrefixCache;
use crate::{Endpoint, EventStream, ModelError, ModelRequest};

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
        let plan = Plan::of(request, shape);
        let betas = plan.beta_header();
        let mut headers = HeaderMap::new();
        if let Err(e) = header(&mut headers, "anthropic-beta", &betas) {
            return driver::failed(e);
        }
        let listed: Vec<String> = betas
            .split(',')
            .filter(|b| !b.is_empty())
            .map(String::from)
            .collect();
        let target = match cloud {
            Cloud::Bedrock => BodyFor::Bedrock(&listed),
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
