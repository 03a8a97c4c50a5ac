//! Google application default credentials for Vertex AI, as an
//! [`Authorizer`] adding `Authorization: Bearer <access token>`.
//!
//! Where the token comes from, in order: the JSON file of
//! `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's
//! `~/.config/gcloud/application_default_credentials.json` — a
//! `service_account` key (a JWT signed RS256 with its private key, with
//! `ring`, exchanged at its `token_uri`) or an `authorized_user` (its
//! refresh token exchanged at its `token_uri`, default Google's); else the
//! metadata server (`GCE_METADATA_HOST`, default `metadata.google.internal`,
//! bounded by [`METADATA_TIMEOUT_MS`]). The token is fetched on the first
//! request (never at start), cached until [`REFRESH_BEFORE_EXPIRY_SECS`]
//! before it expires, and fetched again after a 401. No token or key is
//! logged; errors name the source that failed.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use futures::future::BoxFuture;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::ModelError;
use crate::auth::Authorizer;
use crate::cloud::{CapturedEnv, percent_encode};

/// The OAuth scope Vertex AI needs.
const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Google's token endpoint, when a credentials file names none.
const GOOGLE_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// A token is fetched again this long before it expires, in seconds.
const REFRESH_BEFORE_EXPIRY_SECS: u64 = 300;
/// Lifetime asked for a service account's JWT, in seconds.
const JWT_LIFETIME_SECS: u64 = 3_600;
/// Longest wait for the metadata server or a token endpoint, in milliseconds.
pub(crate) const METADATA_TIMEOUT_MS: u64 = 1_000;
/// Longest wait for a token endpoint, in milliseconds.
const TOKEN_TIMEOUT_MS: u64 = 30_000;
/// Largest credentials file read, in bytes.
const MAX_CREDENTIALS_FILE_BYTES: usize = 256 * 1024;

/// The variables the credentials search reads.
pub(crate) const GOOGLE_VARS: [&str; 3] = [
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GCE_METADATA_HOST",
    "HOME",
];

/// Vertex's bearer tokens, cached.
#[derive(Debug)]
pub(crate) struct GoogleAuth {
    env: CapturedEnv,
    cached: Mutex<Option<(String, Instant)>>,
}

impl GoogleAuth {
    pub(crate) fn new(env: CapturedEnv) -> Self {
        Self {
            env,
            cached: Mutex::new(None),
        }
    }

    async fn token(&self) -> Result<String, ModelError> {
        let mut slot = self.cached.lock().await;
        if let Some((token, good_until)) = slot.as_ref()
            && Instant::now() < *good_until
        {
            return Ok(token.clone());
        }
        let (token, lifetime) = fetch_token(&self.env).await?;
        let usable = lifetime.saturating_sub(Duration::from_secs(REFRESH_BEFORE_EXPIRY_SECS));
        *slot = Some((token.clone(), Instant::now() + usable));
        Ok(token)
    }
}

impl Authorizer for GoogleAuth {
    fn authorize<'a>(
        &'a self,
        _url: &'a str,
        _headers: &'a HeaderMap,
        _body: &'a Bytes,
    ) -> BoxFuture<'a, Result<HeaderMap, ModelError>> {
        Box::pin(async move { crate::headers::bearer(&self.token().await?) })
    }

    fn invalidate(&self) {
        if let Ok(mut slot) = self.cached.try_lock() {
            *slot = None;
        }
    }
}

fn failed(why: impl std::fmt::Display) -> ModelError {
    ModelError::Config(format!("Google credentials for Vertex AI: {why}"))
}

/// The credentials file to use: `GOOGLE_APPLICATION_CREDENTIALS` (which
/// must exist), else gcloud's, when it exists.
fn credentials_file(env: &CapturedEnv) -> Result<Option<(PathBuf, String)>, ModelError> {
    let (path, named) = match env.get("GOOGLE_APPLICATION_CREDENTIALS") {
        Some(path) => (PathBuf::from(path), true),
        None => match env.get("HOME") {
            Some(home) => (
                PathBuf::from(home).join(".config/gcloud/application_default_credentials.json"),
                false,
            ),
            None => return Ok(None),
        },
    };
    // Regular files only, capped (orbit_untrusted): a FIFO or device named
    // by the variable never blocks the request.
    let opts = orbit_untrusted::ReadOpts::user_file(MAX_CREDENTIALS_FILE_BYTES);
    match orbit_untrusted::read_untrusted(&path, &opts) {
        Ok(file) => Ok(Some((path, file.text()))),
        Err(_) if !named => Ok(None),
        Err(err) => Err(failed(format!(
            "GOOGLE_APPLICATION_CREDENTIALS names {}, which is not a readable file ({err})",
            path.display()
        ))),
    }
}

/// A token and how long it lives.
async fn fetch_token(env: &CapturedEnv) -> Result<(String, Duration), ModelError> {
    if let Some((path, text)) = credentials_file(env)? {
        let key: Value = serde_json::from_str(&text)
            .map_err(|e| failed(format!("{} is not JSON: {e}", path.display())))?;
        let field = |name: &str| key.get(name).and_then(Value::as_str);
        let token_uri = field("token_uri").unwrap_or(GOOGLE_TOKEN_URI);
        let form = match field("type") {
            Some("service_account") => {
                let email =
                    field("client_email").ok_or_else(|| failed("the key has no client_email"))?;
                let pem =
                    field("private_key").ok_or_else(|| failed("the key has no private_key"))?;
                let assertion = signed_jwt(email, token_uri, pem)?;
                vec![
                    (
                        "grant_type",
                        "urn:ietf:params:oauth:grant-type:jwt-bearer".to_string(),
                    ),
                    ("assertion", assertion),
                ]
            }
            Some("authorized_user") => {
                let get = |name: &str| {
                    field(name)
                        .map(String::from)
                        .ok_or_else(|| failed(format!("{} has no {name}", path.display())))
                };
                vec![
                    ("grant_type", "refresh_token".to_string()),
                    ("client_id", get("client_id")?),
                    ("client_secret", get("client_secret")?),
                    ("refresh_token", get("refresh_token")?),
                ]
            }
            other => {
                return Err(failed(format!(
                    "{}: credentials of type {} are not supported (service_account, authorized_user)",
                    path.display(),
                    other.unwrap_or("(none)")
                )));
            }
        };
        return exchange(token_uri, &form).await;
    }
    metadata_token(env).await.ok_or_else(|| {
        ModelError::Config(
            "no Google credentials for Vertex AI: set GOOGLE_APPLICATION_CREDENTIALS to a key file, or run `gcloud auth application-default login`".into(),
        )
    })
}

fn form_encode(form: &[(&str, String)]) -> String {
    form.iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Posts the form to the token endpoint; its `access_token` and `expires_in`.
async fn exchange(
    token_uri: &str,
    form: &[(&str, String)],
) -> Result<(String, Duration), ModelError> {
    let response = crate::cloud::send_bounded(token_uri, TOKEN_TIMEOUT_MS, |http| {
        http.post(token_uri)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_encode(form))
    })
    .await
    .map_err(failed)?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or_default();
    if !status.is_success() {
        let why = body
            .get("error_description")
            .or_else(|| body.get("error"))
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        return Err(failed(format!(
            "{token_uri} refused the credentials (HTTP {}): {why}",
            status.as_u16()
        )));
    }
    token_of(&body).ok_or_else(|| failed(format!("{token_uri} gave no access_token")))
}

fn token_of(body: &Value) -> Option<(String, Duration)> {
    let token = body.get("access_token")?.as_str()?.to_string();
    let secs = body
        .get("expires_in")
        .and_then(Value::as_u64)
        .unwrap_or(JWT_LIFETIME_SECS);
    Some((token, Duration::from_secs(secs)))
}

/// A service account's JWT for the token endpoint, signed RS256.
fn signed_jwt(email: &str, token_uri: &str, pem: &str) -> Result<String, ModelError> {
    let der: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = STANDARD
        .decode(der.trim())
        .map_err(|_| failed("the key's private_key is not PEM"))?;
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der).map_err(|e| {
        failed(format!(
            "the key's private_key is not an RSA PKCS#8 key ({e})"
        ))
    })?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let header = URL_SAFE_NO_PAD.encode(json!({"alg": "RS256", "typ": "JWT"}).to_string());
    let claims = URL_SAFE_NO_PAD.encode(
        json!({
            "iss": email,
            "scope": CLOUD_PLATFORM_SCOPE,
            "aud": token_uri,
            "iat": now,
            "exp": now + JWT_LIFETIME_SECS,
        })
        .to_string(),
    );
    let message = format!("{header}.{claims}");
    let mut signature = vec![0u8; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        message.as_bytes(),
        &mut signature,
    )
    .map_err(|_| failed("cannot sign the JWT"))?;
    Ok(format!("{message}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// The metadata server's token (on Google Cloud), None off it.
async fn metadata_token(env: &CapturedEnv) -> Option<(String, Duration)> {
    let host = env
        .get("GCE_METADATA_HOST")
        .unwrap_or("metadata.google.internal");
    let url = format!("http://{host}/computeMetadata/v1/instance/service-accounts/default/token");
    let http = crate::tls::http_client_builder_for(&url)
        .no_proxy()
        .timeout(Duration::from_millis(METADATA_TIMEOUT_MS))
        .build()
        .ok()?;
    let response = http
        .get(&url)
        .header("metadata-flavor", "Google")
        .send()
        .await
        .ok()?;
    let body: Value = response.error_for_status().ok()?.json().await.ok()?;
    token_of(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_url_encoded() {
        let form = [
            ("grant_type", "urn:a b".to_string()),
            ("x", "1/2".to_string()),
        ];
        assert_eq!(form_encode(&form), "grant_type=urn%3Aa%20b&x=1%2F2");
    }
}
