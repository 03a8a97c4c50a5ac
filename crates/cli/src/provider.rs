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
//! to set. The request shape Claude Code sends (thinking, effort, context
//! management, betas, custom headers, prompt caching) is provider-level:
//! [`request_shape`] fills the Anthropic client's `RequestShape` from the
//! resolved configuration and the flags; the OpenAI-compatible and local
//! providers keep their own defaults and say once what they ignore
//! ([`ignored_note`]).

use std::sync::Arc;

use anyhow::bail;
use orbit_config::{Config, ProviderKind, vars};
use orbit_model::ModelClient;
use orbit_model::anthropic::{
    AnthropicClient, AnthropicConfig, RequestShape, ThinkingDisplay, split_betas,
};
use orbit_model::key_helper::{API_KEY_HELPER_TIMEOUT_MS, API_KEY_HELPER_TTL_MS, ApiKeyHelper};

use crate::args::{Args, OutputFormat};

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

/// Builds the provider `config` chose; `args` give the request flags
/// (`--effort`, `--betas`, thinking, the output format).
pub fn select_provider(config: &Config, args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    if let Some(note) = ignored_note(config, args) {
        crate::term_safe::eprintln_safe!("{note}");
    }
    match config.provider.value {
        ProviderKind::Anthropic => anthropic_client(config, args),
        ProviderKind::Openai => openai_client(config),
        ProviderKind::Local => crate::local::local_client(config),
    }
}

/// The Anthropic request settings a non-Anthropic provider ignores, in one
/// line (None when none is set or the provider is Anthropic).
pub fn ignored_note(config: &Config, args: &Args) -> Option<String> {
    if config.provider.value == ProviderKind::Anthropic {
        return None;
    }
    let env = |name: &'static str| config.env.is_set(name).then_some(name);
    let flag = |name: &'static str, given: bool| given.then_some(name);
    let ignored: Vec<&str> = [
        flag("--effort", args.sdk.effort.is_some()),
        env(vars::CLAUDE_CODE_EFFORT_LEVEL),
        flag("--betas", args.sdk.betas.is_some()),
        env(vars::ANTHROPIC_BETAS),
        env(vars::ANTHROPIC_CUSTOM_HEADERS),
        env(vars::DISABLE_PROMPT_CACHING),
        env(vars::CLAUDE_CODE_MAX_OUTPUT_TOKENS),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!ignored.is_empty()).then(|| {
        format!(
            "orbit: note: the {} provider ignores {} (Anthropic API settings)",
            config.provider.value.name(),
            ignored.join(", ")
        )
    })
}

/// Whether the flags or `MAX_THINKING_TOKENS` turn thinking off
/// (`--thinking disabled`, a budget of 0), or settings
/// `alwaysThinkingEnabled: false` does.
fn thinking_off(config: &Config, args: &Args) -> bool {
    let zero = |text: &str| text.trim().parse::<u32>().ok() == Some(0);
    !config.thinking_enabled
        || args.sdk.thinking.as_deref() == Some("disabled")
        || args.sdk.max_thinking_tokens == Some(0)
        || (args.sdk.max_thinking_tokens.is_none()
            && config.env.get(vars::MAX_THINKING_TOKENS).is_some_and(zero))
}

/// The Anthropic client's request settings: the environment's (betas,
/// prompt caching) as `AnthropicConfig::from_lookup` read them, then the
/// resolved effort, thinking on/off, `--betas`, and `updates` thinking
/// display where thinking is shown (stream-json output, the terminal UI),
/// else `omitted` (as Claude Code's `-p`).
pub fn request_shape(config: &Config, args: &Args, from_env: RequestShape) -> RequestShape {
    let mut shape = from_env;
    shape.effort = config.effort.as_ref().map(|e| e.value);
    shape.thinking = !thinking_off(config, args);
    let shown = args.output_format == OutputFormat::StreamJson
        || (args.print.is_none() && !args.sdk.stream_input());
    shape.thinking_display = if shown {
        ThinkingDisplay::Updates
    } else {
        ThinkingDisplay::Omitted
    };
    for beta in args
        .sdk
        .betas
        .as_deref()
        .map(split_betas)
        .unwrap_or_default()
    {
        if !shape.betas.contains(&beta) {
            shape.betas.push(beta);
        }
    }
    shape
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

/// Claude on Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK`): the Anthropic
/// request shape, the region and AWS credentials from the resolved
/// environment (`orbit_model::bedrock`).
fn bedrock_client(config: &Config, args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    use orbit_model::bedrock::{BedrockClient, BedrockConfig};
    let mut client_config = BedrockConfig::from_lookup(config.env.lookup());
    let common = &mut client_config.common;
    common.shape = request_shape(config, args, std::mem::take(&mut common.shape));
    Ok(Arc::new(BedrockClient::new(client_config)?))
}

/// Claude on Google Vertex AI (`CLAUDE_CODE_USE_VERTEX`): the Anthropic
/// request shape, the project, regions and Google credentials from the
/// resolved environment (`orbit_model::vertex`).
fn vertex_client(config: &Config, args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    use orbit_model::vertex::{VertexClient, VertexConfig};
    let mut client_config = VertexConfig::from_lookup(config.env.lookup());
    let common = &mut client_config.common;
    common.shape = request_shape(config, args, std::mem::take(&mut common.shape));
    Ok(Arc::new(VertexClient::new(client_config)?))
}

/// The Anthropic Messages API client, or Claude on a cloud provider when
/// `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX` is set.
fn anthropic_client(config: &Config, args: &Args) -> anyhow::Result<Arc<dyn ModelClient>> {
    match vars::cloud_provider_var(|name| config.env.get(name)) {
        Some(vars::CLAUDE_CODE_USE_BEDROCK) => return bedrock_client(config, args),
        Some(_) => return vertex_client(config, args),
        None => {}
    }
    let mut client_config = AnthropicConfig::from_lookup(config.env.lookup());
    client_config.shape = request_shape(config, args, client_config.shape);
    if let Some(url) = config.env.get(vars::ANTHROPIC_BASE_URL) {
        check_base_url(url.trim())?;
    }
    if let Some(helper) = &config.api_key_helper {
        let ms = |name: &str, default: u64| {
            config
                .env
                .get(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(default)
        };
        let helper = ApiKeyHelper::new(
            helper.value.clone(),
            ms(
                vars::CLAUDE_CODE_API_KEY_HELPER_TTL_MS,
                API_KEY_HELPER_TTL_MS,
            ),
            ms(
                vars::ORBIT_API_KEY_HELPER_TIMEOUT_MS,
                API_KEY_HELPER_TIMEOUT_MS,
            ),
        );
        let client = AnthropicClient::with_key_helper(client_config, Arc::new(helper))?;
        return Ok(Arc::new(client));
    }
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
        assert_eq!(resolve_model_alias("Opus"), "claude-opus-5-5");
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
