//! TLS setup shared by every HTTP client of orbit.
//!
//! reqwest is built with `rustls-no-provider` (ring instead of aws-lc saves
//! a lot of build time), so rustls' process-wide crypto provider must be
//! installed before the first client is built, or building it panics.
//! `http_client_builder` does that once and is the only way this crate
//! (and the OpenAI client) should make a `reqwest::ClientBuilder`.
//!
//! Trust store: a client for an `https://` base loads the system store when
//! it is built (`SSL_CERT_FILE`/`SSL_CERT_DIR` replace it, read by
//! rustls-native-certs); [`extra_ca_certs`] adds the certificates of
//! `NODE_EXTRA_CA_CERTS` (as Node does for Claude Code), and
//! [`client_identity`] the mutual-TLS certificate of
//! `CLAUDE_CODE_CLIENT_CERT`/`CLAUDE_CODE_CLIENT_KEY`. A client for a plain
//! `http://` base reads no certificate at all.

use std::sync::Once;
use std::time::Duration;

/// How long establishing a TCP (+TLS) connection may take, in milliseconds.
/// A connect timeout is retried on the short connect schedule
/// ([`crate::RetryConfig::for_connect`]), so an unreachable host is reported
/// within a minute.
pub(crate) const CONNECT_TIMEOUT_MS: u64 = 10_000;

static INSTALL: Once = Once::new();

/// Installs rustls' ring crypto provider once per process. Another
/// provider installed earlier (e.g. by an embedding program) is kept.
pub fn ensure_crypto_provider() {
    INSTALL.call_once(|| {
        // Err means a provider is already installed: fine, reqwest uses it.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest builder with the crypto provider installed and orbit's
/// defaults: connect timeout, TCP_NODELAY, user agent.
pub(crate) fn http_client_builder() -> reqwest::ClientBuilder {
    ensure_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_millis(CONNECT_TIMEOUT_MS))
        .tcp_nodelay(true)
        .user_agent(concat!("orbit/", env!("CARGO_PKG_VERSION")))
}

/// [`http_client_builder`] for a client that only ever talks to
/// `base_url`. For a plain `http://` base (a local llama-server, a test
/// server) the system trust store is not loaded: that costs ≈ 9 ms of
/// start-up and such a client never makes a TLS connection.
pub(crate) fn http_client_builder_for(base_url: &str) -> reqwest::ClientBuilder {
    let builder = http_client_builder();
    if is_plain_http(base_url) {
        builder.tls_certs_only(std::iter::empty::<reqwest::Certificate>())
    } else {
        with_tls_settings(builder)
    }
}

/// The certificates of the PEM file `NODE_EXTRA_CA_CERTS` names, added to
/// the trust store of `https://` clients (WebFetch's too). An unreadable or
/// malformed file is reported once per client and adds nothing.
pub fn extra_ca_certs() -> Vec<reqwest::Certificate> {
    let Some(path) = std::env::var_os("NODE_EXTRA_CA_CERTS").filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let loaded = std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|pem| reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| e.to_string()));
    match loaded {
        Ok(certs) => certs,
        Err(e) => {
            tracing::warn!(
                "ignoring NODE_EXTRA_CA_CERTS {}: {e}",
                std::path::Path::new(&path).display()
            );
            Vec::new()
        }
    }
}

/// The client certificate for mutual TLS: the PEM files
/// `CLAUDE_CODE_CLIENT_CERT` and `CLAUDE_CODE_CLIENT_KEY` (the key
/// unencrypted: `CLAUDE_CODE_CLIENT_KEY_PASSPHRASE` is not supported yet
/// and says so). None when unset; an unusable pair is reported and unused.
pub fn client_identity() -> Option<reqwest::Identity> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let (cert, key) = (
        var("CLAUDE_CODE_CLIENT_CERT")?,
        var("CLAUDE_CODE_CLIENT_KEY")?,
    );
    if var("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE").is_some() {
        tracing::warn!(
            "ignoring CLAUDE_CODE_CLIENT_CERT: encrypted client keys (CLAUDE_CODE_CLIENT_KEY_PASSPHRASE) are not supported yet"
        );
        return None;
    }
    let loaded = std::fs::read(&cert)
        .and_then(|mut pem| {
            pem.push(b'\n');
            pem.extend(std::fs::read(&key)?);
            Ok(pem)
        })
        .map_err(|e| e.to_string())
        .and_then(|pem| reqwest::Identity::from_pem(&pem).map_err(|e| e.to_string()));
    match loaded {
        Ok(identity) => Some(identity),
        Err(e) => {
            tracing::warn!("ignoring CLAUDE_CODE_CLIENT_CERT/CLAUDE_CODE_CLIENT_KEY: {e}");
            None
        }
    }
}

/// `builder` with [`extra_ca_certs`] and [`client_identity`]: what every
/// `https://` client of orbit gets.
pub fn with_tls_settings(builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
    let builder = builder.tls_certs_merge(extra_ca_certs());
    match client_identity() {
        Some(identity) => builder.identity(identity),
        None => builder,
    }
}

fn is_plain_http(base_url: &str) -> bool {
    base_url
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_skips_the_trust_store() {
        assert!(is_plain_http("http://127.0.0.1:8080"));
        assert!(is_plain_http("HTTP://localhost"));
        assert!(!is_plain_http("https://api.anthropic.com"));
        assert!(!is_plain_http("http"));
        let client = http_client_builder_for("http://127.0.0.1:1").build();
        assert!(client.is_ok(), "{client:?}");
    }

    #[test]
    fn https_client_builds_with_ring_provider() {
        let client = http_client_builder().build();
        assert!(client.is_ok(), "{client:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        // Building a request for an https URL exercises nothing on the network.
        let req = client.map(|c| c.post("https://api.anthropic.com/v1/messages").build());
        assert!(matches!(req, Ok(Ok(_))));
        ensure_crypto_provider(); // idempotent
    }
}
