//! WebFetch's HTTP side: one GET with manual redirect handling and a body cap.
//!
//! Flow: [`Fetcher::fetch`] sends a GET with automatic redirects off → a
//! 3xx to the same host (modulo a leading `www.`, same scheme and port) is
//! followed, at most [`MAX_REDIRECTS`] hops → a 3xx to another host stops
//! with [`FetchOutcome::CrossHostRedirect`] so the model can decide → a
//! final response is read chunk by chunk up to the byte cap (the rest is
//! never downloaded) → [`FetchOutcome::Page`]. The whole exchange runs under
//! one overall timeout. No request reaches a local address unless its host
//! is allowed (`super::guard`: every hop's IP literal is checked, host
//! names are resolved and checked by the client's resolver, which connects
//! to the very addresses it checked).
//!
//! Proxies: the clients honour `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (as
//! the model client does). A proxied request is resolved by the proxy, not
//! by the client's resolver, so every hop's host name is first resolved and
//! checked here ([`GuardedResolver::check_name`]): a name of a local address,
//! or one orbit cannot resolve, is refused before anything is sent.
//!
//! TLS is lazy: no client exists until the first fetch, and an `http://`
//! fetch gets a client without a trust store (nothing under `/etc/ssl` is
//! read); the `https://` client loads the store once, on the first
//! `https://` fetch.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use orbit_tool::texts::tools::web_fetch as texts;
use reqwest::{StatusCode, Url};

use super::guard::{GuardedResolver, check_url_host};

/// Same-host redirects followed before giving up.
pub(crate) const MAX_REDIRECTS: usize = 10;
/// Default time for the whole fetch, connect included.
pub(crate) const WEB_FETCH_TIMEOUT_MS: u64 = 30_000;
/// Default download cap; bytes past it are not read.
pub(crate) const WEB_FETCH_MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
const USER_AGENT: &str = concat!("orbit/", env!("CARGO_PKG_VERSION"), " (WebFetch)");

/// What a fetch produced.
#[derive(Debug)]
pub(crate) enum FetchOutcome {
    Page(Page),
    CrossHostRedirect { target: Url, status: StatusCode },
}

/// A final (non-redirect) response.
#[derive(Debug)]
pub(crate) struct Page {
    pub url: Url,
    pub status: StatusCode,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// True when the body was cut at the byte cap.
    pub truncated: bool,
}

/// Errors the model sees as the tool result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("{}", texts::timed_out(.url, *.secs))]
    Timeout { url: Url, secs: f64 },
    #[error("{}", texts::too_many_redirects(MAX_REDIRECTS, .0))]
    TooManyRedirects(Url),
    #[error("{}", texts::bad_redirect(.0))]
    BadRedirect(Url),
    #[error("{}", texts::fetch_failed(.url, .message))]
    Http { url: Url, message: String },
    #[error("{}", texts::client_failed(.0))]
    Client(String),
    /// The host is an address WebFetch may not reach (the text says which).
    #[error("{0}")]
    Refused(String),
}

/// A client built on first use (`Err`: why it could not be built).
type LazyClient = Arc<OnceLock<Result<reqwest::Client, String>>>;

/// WebFetch's HTTP clients, configured for WebFetch and built on first use:
/// one without a trust store for `http://`, one with it for `https://`.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    plain: LazyClient,
    tls: LazyClient,
    resolver: Arc<GuardedResolver>,
    timeout: Duration,
    max_body_bytes: usize,
}

impl Fetcher {
    /// A fetcher; no client is built (and no certificate read) yet.
    pub(crate) fn new(timeout: Duration, max_body_bytes: usize) -> Result<Self, FetchError> {
        Ok(Self {
            plain: LazyClient::default(),
            tls: LazyClient::default(),
            resolver: Arc::new(GuardedResolver::default()),
            timeout,
            max_body_bytes,
        })
    }

    /// The client for a fetch starting at `url` (redirects keep the scheme).
    fn client(&self, url: &Url) -> Result<&reqwest::Client, FetchError> {
        let with_tls = url.scheme() == "https" || http_proxy_is_https();
        let cell = if with_tls { &self.tls } else { &self.plain };
        cell.get_or_init(|| self.build_client(with_tls))
            .as_ref()
            .map_err(|e| FetchError::Client(e.clone()))
    }

    fn build_client(&self, with_tls: bool) -> Result<reqwest::Client, String> {
        // reqwest is built without a default crypto provider; the first
        // installer wins, later calls are no-ops.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let builder = reqwest::Client::builder()
            .dns_resolver(Arc::clone(&self.resolver))
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.timeout)
            .timeout(self.timeout)
            .user_agent(USER_AGENT);
        let builder = if with_tls {
            orbit_model::tls::with_tls_settings(builder)
        } else {
            builder.tls_certs_only(std::iter::empty::<reqwest::Certificate>())
        };
        builder.build().map_err(|e| e.to_string())
    }

    /// Fetches `url`; hosts in `allowed_hosts` may be local addresses
    /// (see `super::guard`).
    pub(crate) async fn fetch(
        &self,
        url: Url,
        allowed_hosts: Vec<String>,
    ) -> Result<FetchOutcome, FetchError> {
        self.resolver.set_allowed(allowed_hosts.clone());
        let secs = self.timeout.as_secs_f64();
        let fetch = self.fetch_inner(url.clone(), &allowed_hosts);
        match tokio::time::timeout(self.timeout, fetch).await {
            Ok(r) => r,
            Err(_) => Err(FetchError::Timeout { url, secs }),
        }
    }

    async fn fetch_inner(
        &self,
        original: Url,
        allowed_hosts: &[String],
    ) -> Result<FetchOutcome, FetchError> {
        let mut current = original.clone();
        for _ in 0..=MAX_REDIRECTS {
            // Every hop: an IP literal here, a host name in the resolver.
            if let Some(refusal) = check_url_host(&current, allowed_hosts) {
                return Err(FetchError::Refused(refusal));
            }
            // A proxy would resolve the name itself: check it here first.
            self.resolver
                .check_name(&current)
                .await
                .map_err(FetchError::Refused)?;
            let response = self
                .client(&original)?
                .get(current.clone())
                .header(reqwest::header::ACCEPT, "text/markdown, text/html, */*")
                .send()
                .await
                .map_err(|e| self.http_error(&current, e))?;
            let status = response.status();
            if status.is_redirection() {
                let target = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|loc| current.join(loc).ok())
                    .ok_or_else(|| FetchError::BadRedirect(current.clone()))?;
                if !is_permitted_redirect(&current, &target) {
                    return Ok(FetchOutcome::CrossHostRedirect { target, status });
                }
                current = target;
                continue;
            }
            let content_type = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let (body, truncated) = self.read_capped(response, &current).await?;
            return Ok(FetchOutcome::Page(Page {
                url: current,
                status,
                content_type,
                body,
                truncated,
            }));
        }
        Err(FetchError::TooManyRedirects(original))
    }

    async fn read_capped(
        &self,
        mut response: reqwest::Response,
        url: &Url,
    ) -> Result<(Vec<u8>, bool), FetchError> {
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.http_error(url, e))?
        {
            let room = self.max_body_bytes - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                // Dropping the response closes the connection: nothing more is read.
                return Ok((body, true));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((body, false))
    }

    fn http_error(&self, url: &Url, e: reqwest::Error) -> FetchError {
        if e.is_timeout() {
            return FetchError::Timeout {
                url: url.clone(),
                secs: self.timeout.as_secs_f64(),
            };
        }
        // The source chain says what actually failed (refused, DNS, TLS).
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message = format!("{message}: {s}");
            source = s.source();
        }
        FetchError::Http {
            url: url.clone(),
            message,
        }
    }
}

/// Whether plain `http://` requests go through an `https://` proxy (then
/// even they need the trust store).
fn http_proxy_is_https() -> bool {
    ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .any(|v| v.trim().to_ascii_lowercase().starts_with("https://"))
}

/// Claude Code's rule: same scheme and port, same host ignoring a leading
/// `www.`, and no credentials smuggled into the target.
pub(crate) fn is_permitted_redirect(from: &Url, to: &Url) -> bool {
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_ascii_lowercase();
    from.scheme() == to.scheme()
        && from.port_or_known_default() == to.port_or_known_default()
        && to.username().is_empty()
        && to.password().is_none()
        && match (from.host_str(), to.host_str()) {
            (Some(a), Some(b)) => strip(a) == strip(b),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// Same scheme, port and host (a leading `www.` aside) is followed;
    /// another host, scheme or port, or credentials in the target, is not.
    #[test]
    fn redirect_rule() {
        let followed = [
            ("https://a.com/x", "https://a.com/y"),
            ("https://a.com/x", "https://www.a.com/y"),
        ];
        let refused = [
            ("https://a.com/x", "https://b.com/y"),
            ("http://a.com/x", "https://a.com/y"),
            ("http://a.com:81/", "http://a.com:82/"),
            ("http://a.com/", "http://u:p@a.com/"),
        ];
        let permitted = |(from, to): (&str, &str)| is_permitted_redirect(&url(from), &url(to));
        for pair in followed {
            assert!(permitted(pair), "{pair:?} is followed");
        }
        for pair in refused {
            assert!(!permitted(pair), "{pair:?} is refused");
        }
    }
}
