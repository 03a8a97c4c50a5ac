//! Where the model runs: [`Provider`] names a provider and builds its
//! [`ModelClient`]. [`Provider::from_env`] chooses like the `orbit` binary
//! does without flags: `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX`
//! → Claude on Bedrock / Vertex AI (`orbit_model::bedrock`,
//! `orbit_model::vertex`: the Anthropic request shape, cloud credentials
//! found on the first request), else an Anthropic key → the Anthropic API, else an OpenAI
//! key → an OpenAI-compatible API, else the local model (set up on first
//! use, see `orbit-local`).
//!
//! The Anthropic provider sends Claude Code 2.1.332's request shape
//! (`orbit_model::anthropic::RequestShape`): each model's thinking,
//! effort and context management from the catalog, plus what the
//! environment sets (`CLAUDE_CODE_EFFORT_LEVEL`, `ANTHROPIC_BETAS`,
//! `ANTHROPIC_CUSTOM_HEADERS`, `DISABLE_PROMPT_CACHING`); set
//! `AnthropicConfig::shape` to change it. The OpenAI-compatible and local
//! providers keep their own request defaults.
//!
//! A session without a model uses its provider's default: the catalog's
//! ([`DEFAULT_ANTHROPIC_MODEL`], [`DEFAULT_OPENAI_MODEL`]) or the local
//! model's name.

use std::path::Path;
use std::sync::Arc;

use orbit_local::{LOCAL_SEED, LocalPaths, LocalServer, ServerOptions, setup};
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig, env_truthy};
use orbit_model::bedrock::{BedrockClient, BedrockConfig, ENV_USE_BEDROCK};
use orbit_model::openai::{OpenAiClient, OpenAiConfig};
use orbit_model::vertex::{ENV_USE_VERTEX, VertexClient, VertexConfig};
use orbit_model::{EventStream, ModelClient, ModelRequest};

use crate::Error;

/// Provider name of the local model (what `ModelClient::provider` reports).
pub const LOCAL_PROVIDER: &str = "local";

/// The model used with the Anthropic API when none is set (the model
/// catalog's).
pub const DEFAULT_ANTHROPIC_MODEL: &str =
    orbit_model::catalog::default_model(orbit_model::catalog::Provider::Anthropic);
/// The model used with an OpenAI-compatible API when none is set (the
/// model catalog's).
pub const DEFAULT_OPENAI_MODEL: &str =
    orbit_model::catalog::default_model(orbit_model::catalog::Provider::OpenAi);

/// The model a session uses when none is set: the local model's name for
/// the local provider, else the provider's default.
pub(crate) fn default_model(provider: &Provider, local: bool) -> String {
    match provider {
        _ if local => orbit_local::MODEL_NAME.to_string(),
        Provider::OpenAi(_) => DEFAULT_OPENAI_MODEL.to_string(),
        _ => DEFAULT_ANTHROPIC_MODEL.to_string(),
    }
}

/// A model provider.
#[derive(Clone)]
pub enum Provider {
    /// The Anthropic Messages API.
    Anthropic(AnthropicConfig),
    /// Claude on Amazon Bedrock (SigV4-signed, AWS event-stream).
    Bedrock(BedrockConfig),
    /// Claude on Google Vertex AI (application default credentials).
    Vertex(VertexConfig),
    /// An OpenAI-compatible chat-completions API.
    OpenAi(OpenAiConfig),
    /// The local model: llama.cpp's llama-server with Qwen2.5-Coder, set up
    /// on first use (minutes, progress through `log`) and started per run
    /// unless `orbit local serve` keeps one warm.
    Local,
    /// Any client an embedder brings.
    Client(Arc<dyn ModelClient>),
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Provider::Anthropic(_) => "Anthropic",
            Provider::Bedrock(_) => "Bedrock",
            Provider::Vertex(_) => "Vertex",
            Provider::OpenAi(_) => "OpenAi",
            Provider::Local => "Local",
            Provider::Client(_) => "Client",
        };
        f.write_str(name)
    }
}

impl Provider {
    /// The provider the environment selects: `CLAUDE_CODE_USE_BEDROCK` →
    /// Bedrock, else `CLAUDE_CODE_USE_VERTEX` → Vertex AI, else `ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN` →
    /// Anthropic, else `OPENAI_API_KEY` → OpenAI, else the local model.
    pub fn from_env() -> Self {
        if std::env::var(ENV_USE_BEDROCK).is_ok_and(|v| env_truthy(&v)) {
            return Provider::Bedrock(BedrockConfig::from_lookup(|name| std::env::var(name).ok()));
        }
        if std::env::var(ENV_USE_VERTEX).is_ok_and(|v| env_truthy(&v)) {
            return Provider::Vertex(VertexConfig::from_lookup(|name| std::env::var(name).ok()));
        }
        let anthropic = AnthropicConfig::from_env();
        if anthropic.api_key.is_some() || anthropic.auth_token.is_some() {
            return Provider::Anthropic(anthropic);
        }
        let openai = OpenAiConfig::from_env();
        if openai.api_key.is_some() {
            return Provider::OpenAi(openai);
        }
        Provider::Local
    }

    /// Builds the client. `log` receives progress lines (the local model's
    /// first-use setup, kept in `<data_dir>/local`).
    pub fn client(
        &self,
        data_dir: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<Arc<dyn ModelClient>, Error> {
        Ok(match self {
            Provider::Anthropic(config) => Arc::new(AnthropicClient::new(config.clone())?),
            Provider::Bedrock(config) => Arc::new(BedrockClient::new(config.clone())?),
            Provider::Vertex(config) => Arc::new(VertexClient::new(config.clone())?),
            Provider::OpenAi(config) => Arc::new(OpenAiClient::new(config.clone())?),
            Provider::Local => local_client(data_dir, |name| std::env::var(name).ok(), log)?,
            Provider::Client(client) => Arc::clone(client),
        })
    }
}

/// The OpenAI client bound to a local llama-server it keeps alive.
struct LocalClient {
    inner: OpenAiClient,
    /// Held for its Drop: stops a private server / releases the lease.
    _server: LocalServer,
}

impl ModelClient for LocalClient {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        // Reproducible answers: greedy sampling with a fixed seed.
        let mut request = request.clone();
        request.temperature = Some(0.0);
        request.seed = Some(LOCAL_SEED);
        self.inner.stream(&request)
    }

    fn provider(&self) -> &str {
        LOCAL_PROVIDER
    }
}

/// Sets up (first use) and starts the local model kept in
/// `<data_dir>/local`; the client owns the server, so the server stops when
/// the client is dropped (unless it is the warm one of `orbit local serve`).
/// `lookup` gives the retry and idle-timeout settings (`ORBIT_*`
/// variables); the server's URL is the local one.
pub fn local_client(
    data_dir: &Path,
    lookup: impl Fn(&str) -> Option<String>,
    log: &mut dyn FnMut(&str),
) -> Result<Arc<dyn ModelClient>, Error> {
    let paths = LocalPaths::in_data_dir(data_dir);
    if !setup::is_complete(&paths) {
        log(
            "no API key set: using the local model (set ANTHROPIC_API_KEY or OPENAI_API_KEY to use an API)",
        );
        setup::run(&paths, &mut |line| log(line))?;
    }
    let server = LocalServer::acquire(&paths, &ServerOptions::default())?;
    let mut config = OpenAiConfig::local(server.openai_base_url());
    let tuned = OpenAiConfig::from_lookup(lookup);
    config.retry = tuned.retry;
    config.idle_timeout_ms = tuned.idle_timeout_ms;
    let inner = OpenAiClient::new(config)?;
    Ok(Arc::new(LocalClient {
        inner,
        _server: server,
    }))
}
