//! AWS credentials for Bedrock, found the way the AWS SDKs look for them,
//! in order: the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`); the profile `AWS_PROFILE` (else `default`) of
//! `~/.aws/credentials` and `~/.aws/config` (`AWS_SHARED_CREDENTIALS_FILE`,
//! `AWS_CONFIG_FILE`), static keys, an SSO login (`sso`) or its
//! `credential_process`; the
//! container credentials endpoint (`AWS_CONTAINER_CREDENTIALS_FULL_URI` /
//! `_RELATIVE_URI`); the EC2 instance metadata service (IMDSv2, unless
//! `AWS_EC2_METADATA_DISABLED=true`; `AWS_EC2_METADATA_SERVICE_ENDPOINT`
//! moves it), each HTTP source bounded by [`HTTP_SOURCE_TIMEOUT_MS`].
//!
//! Data flow: [`aws_env`] is the snapshot of the variables taken when the
//! client is built; [`resolve`] runs on the first request (never at start)
//! and its result is cached by the signer until shortly before it expires.
//! No secret is logged; an error names the sources tried.

use std::time::Duration;

use serde_json::Value;

use super::aws::{AwsCredentials, home_file, ini_section, key, parse_rfc3339, read_profile_file};
use crate::ModelError;
use crate::cloud::CapturedEnv;

/// Longest wait for one HTTP credentials source (container, IMDS), in milliseconds.
pub(crate) const HTTP_SOURCE_TIMEOUT_MS: u64 = 1_000;
/// Where IMDS answers when no endpoint is set.
const IMDS_ENDPOINT: &str = "http://169.254.169.254";
/// Where the ECS relative URI is resolved.
const CONTAINER_ENDPOINT: &str = "http://169.254.170.2";

/// The variables the chain reads.
pub(crate) const AWS_VARS: [&str; 14] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_EC2_METADATA_DISABLED",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT",
    "AWS_ENDPOINT_URL_SSO",
    "AWS_ENDPOINT_URL",
    "HOME",
];

/// The chain's variables from `lookup`.
pub(crate) fn aws_env(lookup: impl Fn(&str) -> Option<String>) -> CapturedEnv {
    CapturedEnv::of(&AWS_VARS, lookup)
}

/// The first credentials of the chain (see the module docs).
pub(crate) async fn resolve(env: &CapturedEnv) -> Result<AwsCredentials, ModelError> {
    if let (Some(id), Some(secret)) = (
        env.get("AWS_ACCESS_KEY_ID"),
        env.get("AWS_SECRET_ACCESS_KEY"),
    ) {
        return Ok(AwsCredentials {
            access_key_id: id.to_string(),
            secret_access_key: secret.to_string(),
            session_token: env.get("AWS_SESSION_TOKEN").map(String::from),
            expires: None,
        });
    }
    let profile = env.get("AWS_PROFILE").unwrap_or("default");
    if let Some(found) = from_profile(env, profile).await? {
        return Ok(found);
    }
    if let Some(found) = from_container(env).await? {
        return Ok(found);
    }
    let imds_off = env
        .get("AWS_EC2_METADATA_DISABLED")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if !imds_off && let Some(found) = from_imds(env).await {
        return Ok(found);
    }
    let named = if env.get("AWS_PROFILE").is_some() {
        format!(" (profile `{profile}` has no keys)")
    } else {
        String::new()
    };
    Err(ModelError::Config(format!(
        "no AWS credentials for Bedrock{named}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (~/.aws/credentials), or AWS_BEARER_TOKEN_BEDROCK"
    )))
}

fn static_keys(section: &[(String, String)]) -> Option<AwsCredentials> {
    Some(AwsCredentials {
        access_key_id: key(section, "aws_access_key_id")?.to_string(),
        secret_access_key: key(section, "aws_secret_access_key")?.to_string(),
        session_token: key(section, "aws_session_token").map(String::from),
        expires: None,
    })
}

async fn from_profile(
    env: &CapturedEnv,
    profile: &str,
) -> Result<Option<AwsCredentials>, ModelError> {
    let credentials = home_file(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials")
        .and_then(|p| read_profile_file(&p));
    if let Some(found) = credentials
        .as_deref()
        .and_then(|text| ini_section(text, profile))
        .and_then(|s| static_keys(&s))
    {
        return Ok(Some(found));
    }
    let config =
        home_file(env, "AWS_CONFIG_FILE", ".aws/config").and_then(|p| read_profile_file(&p));
    let header = if profile == "default" {
        "default".to_string()
    } else {
        format!("profile {profile}")
    };
    let Some(section) = config
        .as_deref()
        .and_then(|text| ini_section(text, &header))
    else {
        return Ok(None);
    };
    if let Some(found) = static_keys(&section) {
        return Ok(Some(found));
    }
    let config = config.as_deref().unwrap_or_default();
    if let Some(found) = super::sso::sso_credentials(env, profile, &section, config).await? {
        return Ok(Some(found));
    }
    match key(&section, "credential_process") {
        Some(command) => credential_process(command).await.map(Some),
        None => Ok(None),
    }
}

/// The JSON credentials of the container endpoint, IMDS and
/// `credential_process` (`AccessKeyId`, `SecretAccessKey`, `Token` or
/// `SessionToken`, `Expiration`).
fn from_json(v: &Value) -> Option<AwsCredentials> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    Some(AwsCredentials {
        access_key_id: text("AccessKeyId")?,
        secret_access_key: text("SecretAccessKey")?,
        session_token: text("Token").or_else(|| text("SessionToken")),
        expires: text("Expiration").and_then(|e| parse_rfc3339(&e)),
    })
}

async fn credential_process(command: &str) -> Result<AwsCredentials, ModelError> {
    let failed = |why: String| ModelError::Config(format!("AWS credential_process failed: {why}"));
    let run = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .map_err(|_| failed("timed out".into()))?
        .map_err(|e| failed(e.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!("exit status {}", output.status)));
    }
    serde_json::from_slice(&output.stdout)
        .ok()
        .as_ref()
        .and_then(from_json)
        .ok_or_else(|| failed("its output has no AccessKeyId/SecretAccessKey".into()))
}

fn plain_http() -> Option<reqwest::Client> {
    crate::tls::http_client_builder_for("http://127.0.0.1")
        .no_proxy()
        .timeout(Duration::from_millis(HTTP_SOURCE_TIMEOUT_MS))
        .build()
        .ok()
}

async fn from_container(env: &CapturedEnv) -> Result<Option<AwsCredentials>, ModelError> {
    let url = match (
        env.get("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
        env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"),
    ) {
        (Some(full), _) => full.to_string(),
        (None, Some(relative)) => format!("{CONTAINER_ENDPOINT}{relative}"),
        (None, None) => return Ok(None),
    };
    let failed =
        |why: &str| ModelError::Config(format!("AWS container credentials ({url}): {why}"));
    let http = plain_http().ok_or_else(|| failed("no HTTP client"))?;
    let mut request = http.get(&url);
    if let Some(token) = env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN") {
        request = request.header("authorization", token);
    }
    let response = request
        .send()
        .await
        .map_err(|_| failed("cannot reach it"))?;
    let body: Value = response.json().await.map_err(|_| failed("not JSON"))?;
    from_json(&body)
        .map(Some)
        .ok_or_else(|| failed("no keys in its answer"))
}

/// A 2xx answer's text; None for anything else.
async fn text_of(request: reqwest::RequestBuilder) -> Option<String> {
    let response = request.send().await.ok()?.error_for_status().ok()?;
    response.text().await.ok()
}

async fn from_imds(env: &CapturedEnv) -> Option<AwsCredentials> {
    let base = env
        .get("AWS_EC2_METADATA_SERVICE_ENDPOINT")
        .unwrap_or(IMDS_ENDPOINT)
        .trim_end_matches('/')
        .to_string();
    let http = plain_http()?;
    let token = text_of(
        http.put(format!("{base}/latest/api/token"))
            .header("x-aws-ec2-metadata-token-ttl-seconds", "21600"),
    )
    .await?;
    let roles = format!("{base}/latest/meta-data/iam/security-credentials/");
    let get = |url: String| {
        http.get(url)
            .header("x-aws-ec2-metadata-token", token.clone())
    };
    let role = text_of(get(roles.clone())).await?;
    let role = role.lines().next()?.trim().to_string();
    let body: Value = get(format!("{roles}{role}"))
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    from_json(&body)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn env_keys_then_profile_files_then_a_one_line_error() {
        let dir = tempfile::tempdir().unwrap();
        let lookup = |vars: Vec<(&'static str, String)>| {
            aws_env(move |n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone()))
        };
        let home = dir.path().display().to_string();
        let env = lookup(vec![
            ("HOME", home.clone()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ]);
        let err = resolve(&env).await.unwrap_err().to_string();
        assert!(
            err.starts_with("no AWS credentials for Bedrock: set AWS_ACCESS_KEY_ID"),
            "{err}"
        );
        std::fs::create_dir_all(dir.path().join(".aws")).unwrap();
        std::fs::write(
            dir.path().join(".aws/credentials"),
            "[work]\naws_access_key_id=AK\naws_secret_access_key=SK\naws_session_token=T\n",
        )
        .unwrap();
        let env = lookup(vec![
            ("HOME", home),
            ("AWS_PROFILE", "work".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ]);
        let found = resolve(&env).await.unwrap();
        assert_eq!(
            (found.access_key_id.as_str(), found.session_token.as_deref()),
            ("AK", Some("T"))
        );
        let env = lookup(vec![
            ("AWS_ACCESS_KEY_ID", "E".into()),
            ("AWS_SECRET_ACCESS_KEY", "S".into()),
        ]);
        assert_eq!(resolve(&env).await.unwrap().access_key_id, "E");
    }
}
