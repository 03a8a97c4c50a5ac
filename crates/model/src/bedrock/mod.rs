//! Claude on Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK=1`): `POST
//! https://bedrock-runtime.<region>.amazonaws.com/model/<model id or
//! inference profile>/invoke-with-response-stream` (the base URL from
//! `ANTHROPIC_BEDROCK_BASE_URL` when set), the Messages body without
//! `model` and `stream`, with `anthropic_version: bedrock-2023-05-31` and
//! the betas in `anthropic_beta`, as Claude Code 2.1.332 sends it.
//!
//! Data flow: [`BedrockConfig::from_lookup`] reads the region
//! (`AWS_REGION`, else `AWS_DEFAULT_REGION`), the base URL, a bearer token
//! (`AWS_BEARER_TOKEN_BEDROCK`), the settings shared with Vertex
//! (`cloud::CloudCommon`) and snapshots the AWS credential variables
//! (`credentials`); [`BedrockClient::new`] fails at once without a region.
//! Each call maps the model to its Bedrock id through the catalog
//! (`catalog::bedrock_model_id`; a Bedrock id or ARN in `ANTHROPIC_MODEL`
//! is sent as is), and `crate::cloud` plans, writes and sends the body on
//! the driver. Every attempt is signed (`sign`: SigV4 with credentials
//! found on the first call, or the bearer token). The response is AWS
//! event-stream frames (`crate::eventstream`, below the driver's decoder)
//! whose `chunk` payloads `wire::BedrockDecoder` hands to the Messages
//! assembler, so events, usage and retries are the Anthropic client's.

mod aws;
mod credentials;
mod sign;
mod sso;
mod wire;

use std::sync::Arc;

use crate::cloud::{CapturedEnv, Cloud, CloudCalls, CloudCommon, percent_encode};
use crate::{Endpoint, EventStream, ModelClient, ModelError, ModelRequest};

/// Env var: a true value selects Bedrock.
pub const ENV_USE_BEDROCK: &str = "CLAUDE_CODE_USE_BEDROCK";
/// Env var: the base URL instead of the region's endpoint.
pub const ENV_BASE_URL: &str = "ANTHROPIC_BEDROCK_BASE_URL";
/// Env var: a Bedrock API key, sent as a bearer token instead of SigV4.
pub const ENV_BEARER_TOKEN: &str = "AWS_BEARER_TOKEN_BEDROCK";
/// Env var: a true value sends no credentials (a gateway signs).
pub const ENV_SKIP_AUTH: &str = "CLAUDE_CODE_SKIP_BEDROCK_AUTH";

/// How to reach Bedrock.
#[derive(Debug, Clone, PartialEq)]
pub struct BedrockConfig {
    /// The AWS region (`AWS_REGION`, else `AWS_DEFAULT_REGION`).
    pub region: Option<String>,
    /// `ANTHROPIC_BEDROCK_BASE_URL`; None = the region's endpoint.
    pub base_url: Option<String>,
    /// `AWS_BEARER_TOKEN_BEDROCK`.
    pub bearer_token: Option<String>,
    /// Send no credentials (`CLAUDE_CODE_SKIP_BEDROCK_AUTH`).
    pub skip_auth: bool,
    /// The AWS credential chain's variables.
    pub aws: CapturedEnv,
    /// Retries, idle timeout, custom headers and the request shape.
    pub common: CloudCommon,
}

impl BedrockConfig {
    /// Reads the variables through `lookup` (empty values are unset); the
    /// request shape is the Anthropic provider's.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        Self {
            region: get("AWS_REGION")
                .or_else(|| get("AWS_DEFAULT_REGION"))
                .map(|r| r.trim().to_string()),
            base_url: get(ENV_BASE_URL),
            bearer_token: get(ENV_BEARER_TOKEN),
            skip_auth: get(ENV_SKIP_AUTH).is_some_and(|v| crate::anthropic::env_truthy(&v)),
            aws: credentials::aws_env(&lookup),
            common: CloudCommon::from_lookup(&lookup),
        }
    }

    /// The base URL requests go under.
    fn base(&self, region: &str) -> String {
        match &self.base_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("https://bedrock-runtime.{region}.amazonaws.com"),
        }
    }
}

/// A [`ModelClient`] for Claude on Bedrock.
#[derive(Debug)]
pub struct BedrockClient {
    config: BedrockConfig,
    region: String,
    calls: CloudCalls,
}

impl BedrockClient {
    /// Validates the config (a region is needed) and builds the HTTP
    /// client; credentials are found on the first call.
    pub fn new(config: BedrockConfig) -> Result<Self, ModelError> {
        let Some(region) = config.region.clone() else {
            return Err(ModelError::Config(
                "Bedrock needs an AWS region: set AWS_REGION (e.g. us-east-1)".into(),
            ));
        };
        let auth = (!config.skip_auth).then(|| -> Arc<dyn crate::auth::Authorizer> {
            match &config.bearer_token {
                Some(token) => Arc::new(sign::BedrockAuth::Bearer(token.clone())),
                None => sign::BedrockAuth::sigv4(region.clone(), config.aws.clone()),
            }
        });
        let endpoint = Self::endpoint_of(&config, &region, "claude");
        let calls = config
            .common
            .calls("Bedrock", &config.base(&region), endpoint, &[], auth)?;
        Ok(Self {
            config,
            region,
            calls,
        })
    }

    fn endpoint_of(config: &BedrockConfig, region: &str, model_id: &str) -> Endpoint {
        let check = match &config.base_url {
            Some(_) => ENV_BASE_URL.to_string(),
            None => format!("AWS_REGION ({region})"),
        };
        let path = format!(
            "/model/{}/invoke-with-response-stream",
            percent_encode(model_id)
        );
        Endpoint::at(&config.base(region), &path, check)
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &BedrockConfig {
        &self.config
    }
}

impl ModelClient for BedrockClient {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        let id = crate::catalog::bedrock_model_id(&request.model);
        let endpoint = Self::endpoint_of(&self.config, &self.region, &id);
        self.calls.stream(
            request,
            &self.config.common.shape,
            endpoint,
            Cloud::Bedrock,
            wire::BedrockDecoder::default(),
        )
    }

    fn provider(&self) -> &str {
        "bedrock"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_is_required_and_urls_are_per_model() {
        let config = BedrockConfig::from_lookup(|_| None);
        let err = BedrockClient::new(config).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("Bedrock needs an AWS region: set AWS_REGION (e.g. us-east-1)")
        );
        let config =
            BedrockConfig::from_lookup(|n| (n == "AWS_DEFAULT_REGION").then(|| "eu-west-1".into()));
        let endpoint = BedrockClient::endpoint_of(
            &config,
            "eu-west-1",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        );
        assert_eq!(
            endpoint.url,
            "https://bedrock-runtime.eu-west-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"
        );
        assert!(BedrockClient::new(config).is_ok());
    }
}
