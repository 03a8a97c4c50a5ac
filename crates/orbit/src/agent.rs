//! [`Agent`] and its [`AgentBuilder`]: one coding-agent session — a model
//! provider, tools, a permission policy, a system prompt (with the
//! project's CLAUDE.md / AGENTS.md) and a working directory — over the
//! engine's `QueryEngine`.
//!
//! Data flow: `AgentBuilder::build` → provider client + tool registry +
//! `EngineConfig` → `QueryEngine`. [`Agent::run`] submits a prompt and
//! returns the engine's event stream (it ends with one
//! `EngineEvent::Result`); [`Agent::ask`] drives that stream to the end and
//! returns the result.

use std::path::PathBuf;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use orbit_engine::{AbortHandle, Approver, EngineConfig, QueryEngine, SharedApprover};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::{EngineEvent, Message, TerminalResult};
use orbit_tool::{Tool, ToolRegistry, TypedTool, typed};

use crate::provider::{LOCAL_PROVIDER, Provider};
use crate::{Error, system_prompt};

/// The model used with the Anthropic API when none is set.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// The model used with an OpenAI-compatible API when none is set.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";

/// Builds an [`Agent`]. Every setting has a default: the provider from the
/// environment, the current directory, orbit's built-in tools, the default
/// permission mode with no one to ask (what is not allowed is denied and
/// reported in `permission_denials`), and orbit's system prompt.
pub struct AgentBuilder {
    provider: Option<Provider>,
    model: Option<String>,
    cwd: Option<PathBuf>,
    tools: ToolRegistry,
    permissions: PermissionConfig,
    approver: Option<SharedApprover>,
    system_prompt: Option<String>,
    append_system_prompt: Option<String>,
    max_turns: Option<u32>,
    max_budget_usd: Option<f64>,
    data_dir: Option<PathBuf>,
    log: Box<dyn FnMut(&str) + Send>,
}

impl Default for AgentBuilder {
    fn default() -> Self {
        Self {
            provider: None,
            model: None,
            cwd: None,
            tools: orbit_tools::builtin::default_tools(),
            permissions: PermissionConfig {
                mode: PermissionMode::Default,
                headless: true,
                home: std::env::var_os("HOME").map(PathBuf::from),
                ..PermissionConfig::default()
            },
            approver: None,
            system_prompt: None,
            append_system_prompt: None,
            max_turns: None,
            max_budget_usd: None,
            data_dir: None,
            log: Box::new(|line| eprintln!("orbit: {line}")),
        }
    }
}

impl AgentBuilder {
    /// Where the model runs (default: [`Provider::from_env`]).
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The model id (default: per provider).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The session's working directory (default: the current directory).
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Adds a tool (replacing a tool of the same name).
    pub fn tool<T: TypedTool>(mut self, tool: T) -> Self {
        self.tools.register(typed(tool));
        self
    }

    /// Adds an already erased tool (e.g. one an MCP client made).
    pub fn tool_dyn(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.register(tool);
        self
    }

    /// Replaces the whole tool set (default: orbit's built-ins).
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// The permission mode (default: `Default`).
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permissions.mode = mode;
        self
    }

    /// Rules allowed without asking, in Claude Code's syntax
    /// (`"Edit"`, `"Bash(cargo test:*)"`).
    pub fn allow(mut self, rules: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.permissions
            .allowed_tools
            .extend(rules.into_iter().map(Into::into));
        self
    }

    /// Rules always denied (deny beats allow, in every mode).
    pub fn deny(mut self, rules: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.permissions
            .disallowed_tools
            .extend(rules.into_iter().map(Into::into));
        self
    }

    /// Rules that always ask, even in `bypassPermissions` (same syntax).
    pub fn ask(mut self, rules: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.permissions
            .ask_tools
            .extend(rules.into_iter().map(Into::into));
        self
    }

    /// Who answers permission asks (a prompt, an SDK's `can_use_tool`).
    /// Without one, what needs asking is denied and reported in
    /// `permission_denials`.
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(SharedApprover(Arc::new(approver)));
        self
    }

    /// Replaces the default system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Appends to the system prompt (default or replaced).
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// Stop after this many model calls (result `error_max_turns`).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Stop once the session cost more than this (result `error_max_budget_usd`).
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.max_budget_usd = Some(usd);
        self
    }

    /// Where orbit keeps session files (default: `$ORBIT_HOME`, else `~/.orbit`).
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// Where progress lines go (default: stderr with an `orbit: ` prefix).
    pub fn log(mut self, log: impl FnMut(&str) + Send + 'static) -> Self {
        self.log = Box::new(log);
        self
    }

    /// Builds the agent: starts the provider's client (the local model may
    /// be set up and started here) and reads the project's instruction
    /// files.
    pub fn build(mut self) -> Result<Agent, Error> {
        orbit_model::tls::ensure_crypto_provider();
        let cwd = match self.cwd.take() {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| Error::Cwd(e.to_string()))?,
        };
        let cwd = cwd
            .canonicalize()
            .map_err(|e| Error::Cwd(format!("{}: {e}", cwd.display())))?;
        let data_dir = match self.data_dir.take() {
            Some(dir) => dir,
            None => orbit_config::data_dir(&orbit_config::Env::from_process())
                .map_err(|e| Error::Cwd(e.to_string()))?,
        };
        orbit_permissions::Policy::check(&self.permissions, &cwd)?;
        let provider = self.provider.take().unwrap_or_else(Provider::from_env);
        let client = provider.client(&data_dir, &mut *self.log)?;
        let local = client.provider() == LOCAL_PROVIDER;
        let model = self.model.take().unwrap_or_else(|| match &provider {
            _ if local => orbit_local::MODEL_NAME.to_string(),
            Provider::OpenAi(_) => DEFAULT_OPENAI_MODEL.to_string(),
            _ => DEFAULT_ANTHROPIC_MODEL.to_string(),
        });
        if local {
            // The local profile: few tools, a short prompt (prompt size is
            // latency on a small model).
            self.tools
                .retain(|t| orbit_local::LOCAL_TOOLS.contains(&t.name()));
        }
        let replace = self.system_prompt.as_deref();
        let append = self.append_system_prompt.as_deref();
        let system_prompt = if local {
            system_prompt::build_local(&cwd, replace, append)
        } else {
            system_prompt::build(&cwd, replace, append)
        };
        let config = EngineConfig {
            model,
            system_prompt,
            // The small-model profile also stops a looping model and nudges
            // one that describes instead of acting (docs/LOCAL.md).
            max_turns: self
                .max_turns
                .or(local.then_some(orbit_local::SMALL_PROFILE_MAX_TURNS)),
            recovery_reminders: local,
            max_budget_usd: self.max_budget_usd,
            permissions: self.permissions,
            approver: self.approver,
            session_id: uuid::Uuid::new_v4().to_string(),
            cwd,
            data_dir,
            ..EngineConfig::default()
        };
        let engine = QueryEngine::new(config, client, self.tools);
        // Tools never see the API keys orbit holds (ORBIT_TOOLS_SEE_SECRETS
        // lets them), and WebFetch reaches local hosts only when allowed.
        let env = orbit_config::Env::from_process();
        engine
            .tool_context()
            .hide_env_vars(orbit_config::tool_env_hidden(&env));
        orbit_tools::builtin::web_fetch::guard::AllowedHosts::allow(
            engine.tool_context(),
            orbit_config::webfetch_allowed_hosts(&env),
        );
        Ok(Agent { engine })
    }
}

/// One coding-agent session. Prompts submitted one after another continue
/// the same conversation.
pub struct Agent {
    engine: QueryEngine,
}

impl Agent {
    /// A builder with every default (see [`AgentBuilder`]).
    pub fn builder() -> AgentBuilder {
        AgentBuilder::default()
    }

    /// Submits a prompt; the stream yields the turn's events (model stream,
    /// tool starts and results, messages) and ends with one
    /// `EngineEvent::Result`.
    pub fn run(&mut self, prompt: impl Into<String>) -> BoxStream<'_, EngineEvent> {
        self.engine.submit_message(prompt.into())
    }

    /// Submits a prompt and waits for its result.
    pub async fn ask(&mut self, prompt: impl Into<String>) -> Result<TerminalResult, Error> {
        let mut events = self.run(prompt);
        while let Some(event) = events.next().await {
            if let EngineEvent::Result(result) = event {
                return Ok(result);
            }
        }
        Err(Error::NoResult)
    }

    /// Interrupts the running turn (like Ctrl-C); callable from another task.
    pub fn abort_handle(&self) -> AbortHandle {
        self.engine.abort_handle()
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        self.engine.messages()
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.engine.session_id()
    }

    /// Cost of the session's model calls so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.engine.total_cost_usd()
    }

    /// The engine underneath, for what this facade does not cover.
    pub fn engine(&mut self) -> &mut QueryEngine {
        &mut self.engine
    }
}
