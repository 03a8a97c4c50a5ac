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

/// Builds the provider for this run. The single decision point: see
/// [`resolve_kind`] for the precedence.
pub fn select_provider(args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    match resolve_kind(args)? {
        ProviderKind::Anthropic => anthropic_client(),
        ProviderKind::Openai => openai_client(),
        ProviderKind::Local => crate::local::local_client(),
    }
}

/// `--provider` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderKind {
    Anthropic,
    Openai,
    Local,
}

impl ProviderKind {
    fn parse(value: &str, origin: &str) -> anyhow::Result<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Self::Anthropic),
            "openai" => Ok(Self::Openai),
            "local" => Ok(Self::Local),
            other => {
                bail!("{origin}: unknown provider `{other}` (expected anthropic, openai or local)")
            }
        }
    }
}

/// Env var choosing the provider (like `--provider`, below it in precedence).
pub const ENV_PROVIDER: &str = "ORBIT_PROVIDER";
/// Env var switching fenced-JSON tool-call recovery on for `--provider openai`
/// (always on for `local`): `1` / `true`.
pub const ENV_OPENAI_FENCED_TOOLS: &str = "ORBIT_OPENAI_FENCED_TOOL_CALLS";
/// Model used with `--provider openai` when `--model` is not given.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";

/// Which provider runs: `--provider` > `ORBIT_PROVIDER` > credentials in the
/// environment (`ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` /
/// `ANTHROPIC_BASE_URL` → anthropic, else `OPENAI_API_KEY` /
/// `OPENAI_BASE_URL` → openai) > `provider` in `<data dir>/settings.json` >
/// the local model (nothing configured: orbit works offline).
pub fn resolve_kind(args: &Args) -> anyhow::Result<ProviderKind> {
    if let Some(kind) = args.provider {
        return Ok(kind);
    }
    if let Some(value) = env_nonempty(ENV_PROVIDER) {
        return ProviderKind::parse(&value, ENV_PROVIDER);
    }
    let any = |names: &[&str]| names.iter().any(|n| env_nonempty(n).is_some());
    if any(&[
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
    ]) {
        return Ok(ProviderKind::Anthropic);
    }
    if any(&["OPENAI_API_KEY", "OPENAI_BASE_URL"]) {
        return Ok(ProviderKind::Openai);
    }
    let data_dir = orbit_local::data_dir();
    if let Some(value) = orbit_local::settings::configured_provider(&data_dir) {
        let origin = data_dir.join(orbit_local::settings::SETTINGS_FILE);
        return ProviderKind::parse(&value, &origin.display().to_string());
    }
    Ok(ProviderKind::Local)
}

/// An OpenAI-compatible chat-completions client configured from the
/// environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`).
fn openai_client() -> anyhow::Result<Arc<dyn ModelClient>> {
    use orbit_model::openai::{ENV_BASE_URL, OpenAiClient, OpenAiConfig};
    let mut config = OpenAiConfig::from_env();
    if config.api_key.is_none() && env_nonempty(ENV_BASE_URL).is_none() {
        bail!(
            "no API key: set OPENAI_API_KEY to use the OpenAI API, or OPENAI_BASE_URL to use a compatible server"
        );
    }
    config.fenced_tool_recovery = env_nonempty(ENV_OPENAI_FENCED_TOOLS)
        .is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"));
    Ok(Arc::new(OpenAiClient::new(config)?))
}

/// The model id sent for `provider` (the name `ModelClient::provider`
/// returns): local → the local model's name; openai → `--model` unless it
/// is still the Anthropic default, else `OPENAI_MODEL` or
/// [`DEFAULT_OPENAI_MODEL`]; anthropic → `--model` with
/// [`MODEL_ALIASES`] resolved.
pub fn effective_model(args: &Args, provider: &str) -> String {
    match provider {
        crate::local::LOCAL_PROVIDER => orbit_local::MODEL_NAME.to_string(),
        "openai" if args.model == crate::args::DEFAULT_MODEL => {
            env_nonempty("OPENAI_MODEL").unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_string())
        }
        "openai" => args.model.clone(),
        _ => resolve_model_alias(&args.model).to_string(),
    }
}

/// `--model` / `ANTHROPIC_MODEL` aliases of the Anthropic provider → the
/// current model id of each family (ids `orbit_model::pricing` prices).
pub const MODEL_ALIASES: [(&str, &str); 3] = [
    ("sonnet", "claude-sonnet-4-5"),
    ("opus", "claude-opus-4-6"),
    ("haiku", "claude-haiku-4-5"),
];

/// The model id for an alias (ASCII case-insensitive); other names as given.
pub fn resolve_model_alias(model: &str) -> &str {
    let name = model.trim();
    MODEL_ALIASES
        .iter()
        .find(|(alias, _)| name.eq_ignore_ascii_case(alias))
        .map_or(model, |(_, id)| id)
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
    } else if env_nonempty("OPENAI_API_KEY").is_some() {
        "OPENAI_API_KEY"
    } else {
        "none"
    }
}

#[cfg(test)]
mod tests {
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
