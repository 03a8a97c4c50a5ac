//! Bedrock's request authorization ([`crate::auth::Authorizer`]): an
//! `AWS_BEARER_TOKEN_BEDROCK` bearer token as is, else a SigV4 signature
//! (service `bedrock`, the client's region) computed by the `aws-sigv4`
//! crate over the method, URL, the headers sent and the body, with
//! credentials from the chain (`credentials`), found on the first request
//! and cached until [`REFRESH_BEFORE_EXPIRY_SECS`] before they expire.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use bytes::Bytes;
use futures::future::BoxFuture;
use reqwest::header::HeaderMap;
use tokio::sync::Mutex;

use super::aws::AwsCredentials;
use super::credentials::resolve;
use crate::ModelError;
use crate::auth::Authorizer;
use crate::cloud::CapturedEnv;
use crate::headers::header;

/// Credentials are fetched again this long before they expire, in seconds.
const REFRESH_BEFORE_EXPIRY_SECS: u64 = 300;
/// The SigV4 service name of Bedrock's runtime API.
pub(crate) const SIGNING_SERVICE: &str = "bedrock";

/// How each Bedrock request is authorized.
#[derive(Debug)]
pub(crate) enum BedrockAuth {
    /// `Authorization: Bearer <AWS_BEARER_TOKEN_BEDROCK>`.
    Bearer(String),
    /// SigV4 with the chain's credentials.
    SigV4 {
        region: String,
        env: CapturedEnv,
        cached: Mutex<Option<AwsCredentials>>,
    },
}

impl BedrockAuth {
    /// SigV4 for `region` with credentials from `env`'s chain.
    pub(crate) fn sigv4(region: String, env: CapturedEnv) -> Arc<Self> {
        Arc::new(Self::SigV4 {
            region,
            env,
            cached: Mutex::new(None),
        })
    }

    async fn credentials(
        env: &CapturedEnv,
        cached: &Mutex<Option<AwsCredentials>>,
    ) -> Result<AwsCredentials, ModelError> {
        let mut slot = cached.lock().await;
        let fresh = |c: &AwsCredentials| {
            c.expires.is_none_or(|at| {
                at.duration_since(SystemTime::now())
                    .is_ok_and(|left| left > Duration::from_secs(REFRESH_BEFORE_EXPIRY_SECS))
            })
        };
        if let Some(found) = slot.as_ref().filter(|c| fresh(c)) {
            return Ok(found.clone());
        }
        let found = resolve(env).await?;
        *slot = Some(found.clone());
        Ok(found)
    }
}

/// The SigV4 headers (`authorization`, `x-amz-date`, and
/// `x-amz-security-token` for temporary credentials) of a POST.
pub(crate) fn sigv4_headers(
    credentials: &AwsCredentials,
    region: &str,
    url: &str,
    headers: &HeaderMap,
    body: &[u8],
    time: SystemTime,
) -> Result<HeaderMap, ModelError> {
    let failed = |e: &dyn std::fmt::Display| {
        ModelError::Config(format!("cannot sign the Bedrock request: {e}"))
    };
    let identity = Credentials::new(
        &credentials.access_key_id,
        &credentials.secret_access_key,
        credentials.session_token.clone(),
        credentials.expires,
        "orbit",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SIGNING_SERVICE)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| failed(&e))?
        .into();
    let signed: Vec<(&str, &str)> = headers
        .iter()
        .filter(|(name, _)| matches!(name.as_str(), "content-type" | "accept"))
        .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
        .collect();
    let request = SignableRequest::new("POST", url, signed.into_iter(), SignableBody::Bytes(body))
        .map_err(|e| failed(&e))?;
    let (instructions, _signature) = sign(request, &params).map_err(|e| failed(&e))?.into_parts();
    let mut out = HeaderMap::new();
    for (name, value) in instructions.headers() {
        header(&mut out, name, value)?;
    }
    Ok(out)
}

impl Authorizer for BedrockAuth {
    fn authorize<'a>(
        &'a self,
        url: &'a str,
        headers: &'a HeaderMap,
        body: &'a Bytes,
    ) -> BoxFuture<'a, Result<HeaderMap, ModelError>> {
        Box::pin(async move {
            match self {
                BedrockAuth::Bearer(token) => crate::headers::bearer(token),
                BedrockAuth::SigV4 {
                    region,
                    env,
                    cached,
                } => {
                    let credentials = Self::credentials(env, cached).await?;
                    sigv4_headers(&credentials, region, url, headers, body, SystemTime::now())
                }
            }
        })
    }

    fn invalidate(&self) {
        if let BedrockAuth::SigV4 { cached, .. } = self
            && let Ok(mut slot) = cached.try_lock()
        {
            *slot = None;
        }
    }
}
