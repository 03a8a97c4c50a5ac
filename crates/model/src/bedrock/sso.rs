//! AWS IAM Identity Center (SSO) credentials of a profile, as the AWS CLI
//! leaves them after `aws sso login`: the profile names an account and a
//! role, and an `sso_session` section (or, in the legacy form, its own
//! `sso_start_url`) with the portal's `sso_region`; the CLI's cached
//! access token is `~/.aws/sso/cache/<sha1 of the session name or start
//! URL>.json`. orbit trades that token for the role's temporary
//! credentials at the portal (`GET /federation/credentials`,
//! `AWS_ENDPOINT_URL_SSO` / `AWS_ENDPOINT_URL` move it) and never starts a
//! login itself: an expired or missing token is an error saying to run
//! `aws sso login`.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::aws::{AwsCredentials, ini_section, key, parse_rfc3339, read_profile_file, under_home};
use crate::ModelError;
use crate::cloud::{CapturedEnv, percent_encode};

/// Longest wait for the SSO portal, in milliseconds.
const PORTAL_TIMEOUT_MS: u64 = 10_000;

/// The profile's SSO credentials; None when the profile is not an SSO one.
pub(crate) async fn sso_credentials(
    env: &CapturedEnv,
    profile: &str,
    section: &[(String, String)],
    config_text: &str,
) -> Result<Option<AwsCredentials>, ModelError> {
    let (Some(account), Some(role)) = (
        key(section, "sso_account_id"),
        key(section, "sso_role_name"),
    ) else {
        return Ok(None);
    };
    let failed = |why: String| ModelError::Config(format!("AWS SSO profile `{profile}`: {why}"));
    let (cache_key, region) = match key(section, "sso_session") {
        Some(session) => {
            let block = ini_section(config_text, &format!("sso-session {session}"))
                .ok_or_else(|| failed(format!("no [sso-session {session}] section")))?;
            (
                session.to_string(),
                key(&block, "sso_region").map(String::from),
            )
        }
        None => (
            key(section, "sso_start_url")
                .ok_or_else(|| failed("no sso_session or sso_start_url".into()))?
                .to_string(),
            key(section, "sso_region").map(String::from),
        ),
    };
    let region = region.ok_or_else(|| failed("no sso_region".into()))?;
    let login = format!("run `aws sso login --profile {profile}`");
    let cache =
        cache_file(env, &cache_key).ok_or_else(|| failed(format!("no cached login: {login}")))?;
    let token: Value = read_profile_file(&cache)
        .and_then(|text| serde_json::from_str(&text).ok())
        .ok_or_else(|| failed(format!("no cached login: {login}")))?;
    let expired = token["expiresAt"]
        .as_str()
        .and_then(parse_rfc3339)
        .is_none_or(|at| at <= SystemTime::now());
    let access = token["accessToken"].as_str().filter(|_| !expired);
    let access = access.ok_or_else(|| failed(format!("the login has expired: {login}")))?;
    let base = env
        .get("AWS_ENDPOINT_URL_SSO")
        .or_else(|| env.get("AWS_ENDPOINT_URL"))
        .map(|url| url.trim_end_matches('/').to_string())
        .unwrap_or_else(|| format!("https://portal.sso.{region}.amazonaws.com"));
    let url = format!(
        "{base}/federation/credentials?account_id={}&role_name={}",
        percent_encode(account),
        percent_encode(role)
    );
    let response = crate::cloud::send_bounded(&url, PORTAL_TIMEOUT_MS, |http| {
        http.get(&url).header("x-amz-sso_bearer_token", access)
    })
    .await
    .map_err(failed)?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!(
            "the portal refused the login (HTTP {}): {login}",
            status.as_u16()
        )));
    }
    let body: Value = response.json().await.unwrap_or_default();
    let role = &body["roleCredentials"];
    let text = |k: &str| role[k].as_str().map(String::from);
    let expires = role["expiration"]
        .as_u64()
        .map(|ms| UNIX_EPOCH + Duration::from_millis(ms));
    match (text("accessKeyId"), text("secretAccessKey")) {
        (Some(access_key_id), Some(secret_access_key)) => Ok(Some(AwsCredentials {
            access_key_id,
            secret_access_key,
            session_token: text("sessionToken"),
            expires,
        })),
        _ => Err(failed("the portal's answer has no roleCredentials".into())),
    }
}

/// `~/.aws/sso/cache/<sha1 hex of key>.json`.
fn cache_file(env: &CapturedEnv, cache_key: &str) -> Option<PathBuf> {
    let digest = ring::digest::digest(
        &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
        cache_key.as_bytes(),
    );
    let name: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    under_home(env, &format!(".aws/sso/cache/{name}.json"))
}
