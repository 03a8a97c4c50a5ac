//! Chooses and builds the model provider for a run from flags and the
//! environment. [`select_provider`] is the one place that decides; new
//! providers (OpenAI-compatible, a local llama.cpp runtime) are added there.
//!
//! Anthropic: `ANTHROPIC_BASE_URL` (default the public API), the key from
//! `ANTHROPIC_API_KEY` (`x-api-key`) or `ANTHROPIC_AUTH_TOKEN` (`Authorization:
//! Bearer`); retry and idle-timeout knobs are read by
//! `orbit_model::anthropic::AnthropicConfig::from_env`. Without a credential
//! the run stops before any request with one line saying what to set.

use std::sync::Arc;

use anyhow::bail;
use orbit_model::ModelClient;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};

use crate::args::Args;

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// A base URL must be http(s) with a host; anything else fails before any request.
fn check_base_url(url: &str) -> anyhow::Result<()> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(()),
        _ => {
            bail!("ANTHROPIC_BASE_URL must be an http:// or https:// URL with a host, got `{url}`")
        }
    }
}

/// Builds the provider for this run. The single decision point: flags such
/// as `--provider` and a local runtime extend this function.
pub fn select_provider(_args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    anthropic_client()
}

/// The Anthropic Messages API client configured from the environment.
fn anthropic_client() -> anyhow::Result<Arc<dyn ModelClient>> {
    let config = AnthropicConfig::from_env();
    if config.api_key.is_none() && config.auth_token.is_none() {
        bail!(
            "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) to use the Anthropic API"
        );
    }
    if let Some(url) = env_nonempty("ANTHROPIC_BASE_URL") {
        check_base_url(url.trim())?;
    }
    Ok(Arc::new(AnthropicClient::new(config)?))
}

/// What the init line reports as `apiKeySource` (Claude Code's spelling).
pub fn api_key_source(_args: &Args) -> &'static str {
    if env_nonempty("ANTHROPIC_API_KEY").is_some() {
        "ANTHROPIC_API_KEY"
    } else if env_nonempty("ANTHROPIC_AUTH_TOKEN").is_some() {
        "ANTHROPIC_AUTH_TOKEN"
    } else {
        "none"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_schemes() {
        assert!(check_base_url("http://127.0.0.1:8080").is_ok());
        assert!(check_base_url("https://api.anthropic.com").is_ok());
        assert!(check_base_url("ftp://x").is_err());
        assert!(check_base_url("localhost:8080").is_err());
        assert!(check_base_url("http://").is_err());
    }
}
