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
//! Proxies: `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`/`NO_PROXY` are honoured
//! (as the model client does). Through an `http://` proxy every hop is
//! tunnelled to the address orbit checked (`super::tunnel`: the host name
//! resolved and judged here, then `CONNECT <checked ip>:<port>`, TLS SNI
//! and `Host` still the name), so the proxy never resolves a name; a name
//! orbit cannot resolve is refused before anything is sent. Any other
//! proxy (`https://`, SOCKS) is left to the HTTP client, every hop's name
//! resolved and checked first ([`GuardedResolver::check_name`]).
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
use super::tunnel::{Relay, proxy_for};

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
        self.builder(with_tls).build().map_err(|e| e.to_string())
    }

    /// WebFetch's client settings: the guarded resolver, no automatic
    /// redirect, the overall timeout, the trust store only `with_tls`.
    fn builder(&self, with_tls: bool) -> reqwest::ClientBuilder {
        // reqwest is built without a default crypto provider; the first
        // installer wins, later calls are no-ops.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let builder = reqwest::Client::builder()
            .dns_resolver(Arc::clone(&self.resolver))
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.timeout)
            .timeout(self.timeout)
            .user_agent(USER_AGENT);
        if with_tls {
            orbit_model::tls::with_tls_settings(builder)
        } else {
            builder.tls_certs_only(std::iter::empty::<reqwest::Certificate>())
        }
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
            // Held until the body is read: a proxied hop's tunnel.
            let (response, _relay) = self.send(&original, &current).await?;
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

    /// Sends one hop's GET: through a tunnel to the checked address when
    /// an `http://` proxy applies, else with the session's client (the
    /// name checked first, for a proxy the client reaches itself).
    async fn send(
        &self,
        original: &Url,
        current: &Url,
    ) -> Result<(reqwest::Response, Option<Relay>), FetchError> {
        let accept = (reqwest::header::ACCEPT, "text/markdown, text/html, */*");
        let Some(proxy) = proxy_for(current) else {
            self.resolver
                .check_name(current)
                .await
                .map_err(FetchError::Refused)?;
            let response = self
                .client(original)?
                .get(current.clone())
                .header(accept.0, accept.1)
                .send()
                .await
                .map_err(|e| self.http_error(current, e))?;
            return Ok((response, None));
        };
        let addrs = self
            .resolver
            .checked_addrs(current)
            .await
            .map_err(FetchError::Refused)?;
        let relay = Relay::open(&proxy, &addrs)
            .await
            .map_err(|message| FetchError::Http {
                url: current.clone(),
                message,
            })?;
        let (client, url, host) = self.relay_client(current, relay.addr())?;
        let response = client
            .get(url)
            .header(accept.0, accept.1)
            .header(reqwest::header::HOST, host)
            .send()
            .await
            .map_err(|e| self.http_error(current, e))?;
        Ok((response, Some(relay)))
    }

    /// A client that reaches `url` at the relay `relay`, the URL it
    /// requests and the `Host` it sends (`url`'s authority). A host name
    /// is pointed at the relay (SNI and certificate checks stay the
    /// name's; the URL loses an explicit port, which would win over the
    /// override); an IP literal is replaced by the relay's address.
    fn relay_client(
        &self,
        url: &Url,
        relay: std::net::SocketAddr,
    ) -> Result<(reqwest::Client, Url, String), FetchError> {
        let host = url.host_str().unwrap_or_default().to_string();
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.clone(),
        };
        let mut target = url.clone();
        let is_ip = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok();
        let mut builder = self.builder(url.scheme() == "https").no_proxy();
        if is_ip {
            let moved = target
                .set_ip_host(relay.ip())
                .and_then(|()| target.set_port(Some(relay.port())));
            moved.map_err(|()| FetchError::Client(texts::invalid_url(url.as_str())))?;
        } else {
            let cleared = target.set_port(None);
            cleared.map_err(|()| FetchError::Client(texts::invalid_url(url.as_str())))?;
            builder = builder.resolve(&host, relay);
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Client(e.to_string()))?;
        Ok((client, target, authority))
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
    use crate::builtin::web_fetch::test_url;

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
        let permitted =
            |(from, to): (&str, &str)| is_permitted_redirect(&test_url(from), &test_url(to));
        for pair in followed {
            assert!(permitted(pair), "{pair:?} is followed");
        }
        for pair in refused {
            assert!(!permitted(pair), "{pair:?} is refused");
        }
    }
}
