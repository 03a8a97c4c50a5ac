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
/// `CLAUDE_CODE_CLIENT_CERT` and `CLAUDE_CODE_CLIENT_KEY`; a key that is
/// an encrypted PKCS#8 block (`BEGIN ENCRYPTED PRIVATE KEY`, as `openssl
/// pkcs8 -topk8` writes it: PBES2 with PBKDF2 or scrypt and AES-CBC) is
/// decrypted with `CLAUDE_CODE_CLIENT_KEY_PASSPHRASE` ([`decrypt_key_pem`]).
/// None when unset; an unusable pair (a wrong passphrase) is reported and
/// unused.
pub fn client_identity() -> Option<reqwest::Identity> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let (cert, key) = (
        var("CLAUDE_CODE_CLIENT_CERT")?,
        var("CLAUDE_CODE_CLIENT_KEY")?,
    );
    let passphrase = std::env::var("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE").ok();
    let loaded = std::fs::read(&cert)
        .map_err(|e| e.to_string())
        .and_then(|mut pem| {
            let key = std::fs::read(&key).map_err(|e| e.to_string())?;
            pem.push(b'\n');
            pem.extend(decrypt_key_pem(&key, passphrase.as_deref())?);
            Ok(pem)
        })
        .and_then(|pem| reqwest::Identity::from_pem(&pem).map_err(|e| e.to_string()));
    match loaded {
        Ok(identity) => Some(identity),
        Err(e) => {
            tracing::warn!("ignoring CLAUDE_CODE_CLIENT_CERT/CLAUDE_CODE_CLIENT_KEY: {e}");
            None
        }
    }
}

/// The PEM label of an encrypted PKCS#8 key.
const ENCRYPTED_KEY_LABEL: &str = "ENCRYPTED PRIVATE KEY";

/// A client key file as the TLS stack reads it: an encrypted PKCS#8 key
/// decrypted with `passphrase` to an unencrypted PKCS#8 PEM; any other key
/// as it is (a passphrase it does not need is ignored). An encrypted key
/// without a passphrase, or a passphrase that does not open it, is an
/// error naming `CLAUDE_CODE_CLIENT_KEY_PASSPHRASE`.
pub fn decrypt_key_pem(pem: &[u8], passphrase: Option<&str>) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(pem);
    let Some(start) = text.find(&format!("-----BEGIN {ENCRYPTED_KEY_LABEL}-----")) else {
        return Ok(pem.to_vec());
    };
    let Some(passphrase) = passphrase else {
        return Err("the client key is encrypted: set CLAUDE_CODE_CLIENT_KEY_PASSPHRASE".into());
    };
    let (label, der) = pkcs8::der::pem::decode_vec(text[start..].as_bytes())
        .map_err(|e| format!("the encrypted client key is not PEM: {e}"))?;
    if label != ENCRYPTED_KEY_LABEL {
        return Err(format!("unexpected PEM block {label} in the client key"));
    }
    let info = pkcs8::EncryptedPrivateKeyInfo::try_from(der.as_slice())
        .map_err(|e| format!("the encrypted client key is not PKCS#8: {e}"))?;
    let key = info.decrypt(passphrase).map_err(|_| {
        "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE does not decrypt the client key".to_string()
    })?;
    let pem = key
        .to_pem("PRIVATE KEY", pkcs8::LineEnding::LF)
        .map_err(|e| e.to_string())?;
    Ok(pem.as_bytes().to_vec())
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
    fn encrypted_pkcs8_keys_are_decrypted_with_the_passphrase() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let script = "set -e
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out plain.key 2>/dev/null
openssl pkcs8 -topk8 -in plain.key -out enc.key -v2 aes-256-cbc -passout pass:s3cret 2>/dev/null";
        let made = std::process::Command::new("sh")
            .args(["-c", script])
            .current_dir(dir.path())
            .status();
        assert!(made.is_ok_and(|s| s.success()));
        let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap_or_default();
        let (plain, encrypted) = (read("plain.key"), read("enc.key"));
        let opened = decrypt_key_pem(&encrypted, Some("s3cret"));
        let der = |pem: &[u8]| pkcs8::der::pem::decode_vec(pem).map(|(_, der)| der).ok();
        assert_eq!(opened.as_deref().ok().and_then(der), der(&plain));
        assert_eq!(
            decrypt_key_pem(&encrypted, Some("wrong")),
            Err("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE does not decrypt the client key".into())
        );
        assert_eq!(
            decrypt_key_pem(&encrypted, None),
            Err("the client key is encrypted: set CLAUDE_CODE_CLIENT_KEY_PASSPHRASE".into())
        );
        assert_eq!(
            decrypt_key_pem(&plain, Some("unused")).as_deref(),
            Ok(plain.as_slice())
        );
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
