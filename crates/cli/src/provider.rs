//! Builds the model provider that `orbit_config` chose for the run
//! ([`orbit_config::Config::provider`]; the precedence is documented
//! there and in the README's Configuration section).
//!
//! Every client is configured from the resolved environment
//! ([`orbit_config::Config::env`], the process environment plus the
//! settings' `env` maps) through orbit-model's `from_lookup` constructors.
//! Anthropic: `ANTHROPIC_BASE_URL` (default the public API), the key from
//! `ANTHROPIC_API_KEY` (`x-api-key`) or `ANTHROPIC_AUTH_TOKEN`
//! (`Authorization: Bearer`), plus the retry and idle-timeout knobs. Without
//! a credential the run stops before any request with one line saying what
//! to set.

use std::sync::Arc;

use anyhow::bail;
use orbit_config::{Config, ProviderKind, vars};
use orbit_model::ModelClient;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};

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

/// Builds the provider `config` chose.
pub fn select_provider(config: &Config) -> anyhow::Result<Arc<dyn ModelClient>> {
    match config.provider.value {
        ProviderKind::Anthropic => anthropic_client(config),
        ProviderKind::Openai => openai_client(config),
        ProviderKind::Local => crate::local::local_client(config),
    }
}

/// An OpenAI-compatible chat-completions client (`OPENAI_BASE_URL`,
/// `OPENAI_API_KEY`, `ORBIT_OPENAI_FENCED_TOOL_CALLS`).
fn openai_client(config: &Config) -> anyhow::Result<Arc<dyn ModelClient>> {
    use orbit_model::openai::{OpenAiClient, OpenAiConfig};
    let mut client_config = OpenAiConfig::from_lookup(config.env.lookup());
    if client_config.api_key.is_none() && !config.env.is_set(vars::OPENAI_BASE_URL) {
        bail!(
            "no API key: set OPENAI_API_KEY to use the OpenAI API, or OPENAI_BASE_URL to use a compatible server"
        );
    }
    client_config.fenced_tool_recovery = config.openai_fenced_tool_calls;
    Ok(Arc::new(OpenAiClient::new(client_config)?))
}

/// The model id sent: the one `orbit_config` resolved (flag > env >
/// settings > default, aliases resolved for anthropic), or for the local
/// provider the local model's name.
pub fn effective_model(config: &Config) -> String {
    match &config.model {
        Some(model) => model.value.clone(),
        None => orbit_local::MODEL_NAME.to_string(),
    }
}

/// The Anthropic Messages API client.
fn anthropic_client(config: &Config) -> anyhow::Result<Arc<dyn ModelClient>> {
    let client_config = AnthropicConfig::from_lookup(config.env.lookup());
    if client_config.api_key.is_none() && client_config.auth_token.is_none() {
        bail!(
            "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) to use the Anthropic API"
        );
    }
    if let Some(url) = config.env.get(vars::ANTHROPIC_BASE_URL) {
        check_base_url(url.trim())?;
    }
    Ok(Arc::new(AnthropicClient::new(client_config)?))
}

#[cfg(test)]
mod tests {
    use orbit_config::{MODEL_ALIASES, resolve_model_alias};

    use super::*;

    #[test]
    fn aliases_resolve_to_priced_ids() {
        for (alias, id) in MODEL_ALIASES {
            assert_eq!(resolve_model_alias(alias), id);
            assert!(orbit_model::pricing::model_price(id).is_some(), "{id}");
        }
        assert_eq!(resolve_model_alias("Opus"), "claude-opus-4-6");
        assert_eq!(resolve_model_alias("claude-3-5-haiku"), "claude-3-5-haiku");
    }

    #[test]
    fn base_url_schemes() {
        assert!(check_base_url("http://127.0.0.1:8080").is_ok());
        assert!(check_base_url("https://api.anthropic.com").is_ok());
        assert!(check_base_url("ftp://x").is_err());
        assert!(check_base_url("localhost:8080").is_err());
        assert!(check_base_url("http://").is_err());
    }
}
