//! [`SessionSpec`]: everything one session is made of — provider and
//! model, working directory and added directories, tools, permission rules
//! and mode, approver, hooks and their callbacks, MCP servers and the SDK
//! bridge, the sandbox launcher, the model profile, resume/fork and
//! persistence — and the one place that assembles it.
//!
//! Every front end goes through it: the `orbit` binary's setup (headless,
//! SDK and the terminal UI's sessions, `/clear` and `/resume` included),
//! [`crate::AgentBuilder`] and `orbit mcp serve`. Data flow:
//! `SessionSpec` → [`SessionSpec::build`] (provider client → profile's
//! tools and system prompt → session id → MCP manager → `EngineConfig` →
//! `QueryEngine::new`/`resume`) or [`SessionSpec::build_runner`] (the
//! tools alone, `ToolRunner`); both end in `crate::secure`, which applies the
//! security defaults to the session's tool context — no API key in the
//! tools' environment, WebFetch's allowed local hosts, the sandbox
//! launcher, the added directories — so no caller can forget one.

use std::path::PathBuf;
use std::sync::Arc;

use orbit_config::Env;
use orbit_engine::{EngineConfig, QueryEngine, SharedApprover, ToolRunner, ToolSearchMode};
use orbit_hooks::{HookCallbacks, HookSet};
use orbit_mcp::sdk_transport::SharedBridge;
use orbit_mcp::{McpManager, ServerConfig};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_session::LoadedSession;
use orbit_tool::{CommandLauncher, ToolRegistry};

use crate::Error;
use crate::parent::{AgentTools, ParentParts};
use crate::profile::{ModelProfile, ProfileOverrides};
use crate::provider::{LOCAL_PROVIDER, Provider};
use crate::secure::{secure, session_hooks, visible_env};
use crate::system_prompt::{InstructionAccess, SessionMemory};

/// How the system prompt is made: orbit's (with the project's instruction
/// files) unless replaced, plus an appended text.
#[derive(Debug, Clone, Default)]
pub struct PromptSpec {
    /// Replaces orbit's prompt (`--system-prompt`).
    pub replace: Option<String>,
    /// Appended to the prompt (`--append-system-prompt`).
    pub append: Option<String>,
    /// Whether the folder is trusted: an untrusted one's instruction files
    /// do not follow links out of the project.
    pub trusted: bool,
    /// No instruction file is read from under these (besides what the
    /// permission rules' Read denials cover).
    pub deny_paths: Vec<PathBuf>,
}

/// Everything one session is made of; [`SessionSpec::build`] assembles it.
/// [`SessionSpec::new`] fills every field with the library's default.
pub struct SessionSpec {
    /// Where the model runs; None = [`Provider::from_env`].
    pub provider: Option<Provider>,
    /// The model id; None = the provider's default.
    pub model: Option<String>,
    /// The session's working directory (canonical).
    pub cwd: PathBuf,
    /// Directories the tools may work in besides `cwd` (`--add-dir`).
    pub added_dirs: Vec<PathBuf>,
    /// Where orbit keeps session files (`$ORBIT_HOME`).
    pub data_dir: PathBuf,
    /// The session's environment: which variables the tools never see and
    /// which local hosts WebFetch may reach are decided from it.
    pub env: Env,
    /// Variables added to the environment of every process the session
    /// starts — Bash, hooks, stdio MCP servers (a server's own `env` wins):
    /// the settings files' `env`, as Claude Code gives it. The hidden
    /// secrets ([`orbit_config::tool_env_hidden`]) are left out.
    pub tool_env: Vec<(String, std::ffi::OsString)>,
    /// The session's id; None = the resumed session's (unless forked), else
    /// a new UUID.
    pub session_id: Option<String>,
    /// The session to go on with (read by `orbit_engine::load_transcript`).
    pub resume: Option<LoadedSession>,
    /// With `resume`: go on under a new id, the original left as it was.
    pub fork: bool,
    /// Record the session in its transcript.
    pub persist: bool,
    /// The tools (before the profile filters them and MCP adds its own);
    /// None = orbit's built-in tools.
    pub tools: Option<ToolRegistry>,
    /// Permission mode and rules.
    pub permissions: PermissionConfig,
    /// Where "always allow" answers are saved; None = this session only.
    pub rules_file: Option<PathBuf>,
    /// Who answers permission asks; None = an ask is a denial.
    pub approver: Option<SharedApprover>,
    /// The hooks (settings files', then an SDK's).
    pub hooks: HookSet,
    /// Who runs hooks of type `callback` (an SDK's control protocol).
    pub hook_callbacks: Option<Arc<dyn HookCallbacks>>,
    /// Told when each command hook starts (`--include-hook-events`).
    pub hook_observer: Option<Arc<dyn orbit_hooks::HookObserver>>,
    /// MCP servers, expanded; started by `build` (they connect in the
    /// background), so `build` must run inside a tokio runtime with servers.
    pub mcp_servers: Vec<(String, ServerConfig)>,
    /// How `{"type": "sdk"}` MCP servers are reached.
    pub sdk_bridge: Option<SharedBridge>,
    /// Runs every Bash command (the OS sandbox); None = unsandboxed.
    pub launcher: Option<CommandLauncher>,
    /// The model profile; None = the small one for the local provider.
    pub profile: Option<ModelProfile>,
    /// Values the user gave that win over the profile's.
    pub overrides: ProfileOverrides,
    /// How the system prompt is made.
    pub prompt: PromptSpec,
    /// The engine settings the spec does not own (thinking, fallback model,
    /// compaction, budgets, concurrency, structured output, tool search).
    /// `build` sets the rest: model, system prompt, permissions, approver,
    /// rules file, hooks, session id, cwd, data dir, persistence and the
    /// profile's settings.
    pub tuning: EngineConfig,
    /// Progress lines (the local model's first-use setup) and warnings
    /// (instruction files).
    pub log: Box<dyn FnMut(&str) + Send>,
    /// The model of the session's side requests (WebFetch's prompt,
    /// WebSearch, prompt hooks: `orbit_tool::side_query`) for the
    /// Anthropic provider (the resolved `ANTHROPIC_SMALL_FAST_MODEL`);
    /// None = the catalog's small fast model (other providers: the
    /// session's model).
    pub small_fast_model: Option<String>,
    /// The skills the `Skill` tool offers ([`SessionSpec::offer_skills`]);
    /// None = no `Skill` tool.
    pub(crate) skills: Option<orbit_commands::SkillSet>,
    /// The subagent types the `Agent` tool may start
    /// ([`SessionSpec::offer_agents`]); None = no `Agent` tool (the
    /// small-model profile never offers it).
    pub(crate) agents: Option<AgentTools>,
    /// The output style's name (`outputStyle`); None = `default`. It
    /// changes orbit's default system prompt only; a name no style has is
    /// one warning.
    pub output_style: Option<String>,
}

/// The name of the tool that starts subagents.
pub(crate) const AGENT_TOOL: &str = orbit_tools::builtin::agent::AGENT_TOOL_NAME;

/// What [`SessionSpec::build`] made.
pub struct BuiltSession {
    /// The session, new or resumed.
    pub engine: QueryEngine,
    /// The MCP servers' manager (also a source of the engine's tools),
    /// kept for the session.
    pub mcp: Option<Arc<McpManager>>,
    /// The tools' names when the session started (`system/init`).
    pub tool_names: Vec<String>,
}

impl SessionSpec {
    /// A spec for `cwd` (canonical) with every default: the provider from
    /// the environment, orbit's built-in tools, the default permission mode
    /// with no one to ask, no hooks, no MCP server, no sandbox launcher,
    /// orbit's system prompt, a new persisted session, progress to stderr.
    pub fn new(cwd: PathBuf, data_dir: PathBuf, env: Env) -> Self {
        let permissions = PermissionConfig {
            mode: PermissionMode::Default,
            headless: true,
            home: env.path(orbit_config::vars::HOME),
            ..PermissionConfig::default()
        };
        Self {
            provider: None,
            model: None,
            cwd,
            added_dirs: Vec::new(),
            data_dir,
            env,
            tool_env: Vec::new(),
            session_id: None,
            resume: None,
            fork: false,
            persist: true,
            tools: None,
            permissions,
            rules_file: None,
            approver: None,
            hooks: HookSet::default(),
            hook_callbacks: None,
            hook_observer: None,
            mcp_servers: Vec::new(),
            sdk_bridge: None,
            launcher: None,
            profile: None,
            overrides: ProfileOverrides::default(),
            prompt: PromptSpec::default(),
            tuning: EngineConfig::default(),
            log: Box::new(|line| eprintln!("orbit: {line}")),
            small_fast_model: None,
            skills: None,
            agents: None,
            output_style: None,
        }
    }

    /// Builds the session: the provider's client (the local model may be
    /// set up and started here), the profile's tools and system prompt,
    /// the MCP servers (connecting in the background), the engine, and the
    /// security defaults on its tools.
    pub fn build(mut self) -> Result<BuiltSession, Error> {
        orbit_model::tls::ensure_crypto_provider();
        let provider = self.provider.take().unwrap_or_else(Provider::from_env);
        let client = provider.client(&self.data_dir, &mut *self.log)?;
        let local = client.provider() == LOCAL_PROVIDER;
        let model = self
            .model
            .take()
            .unwrap_or_else(|| crate::provider::default_model(&provider, local));
        let profile = self.profile.unwrap_or_else(|| ModelProfile::new(local));
        let mut tools = self
            .tools
            .take()
            .unwrap_or_else(orbit_tools::builtin::default_tools);
        profile.retain_tools(&mut tools);
        let (system_prompt, memory) = self.system_prompt(profile);
        let styled = crate::system_prompt::StyledPrompt::new(
            system_prompt,
            self.output_style.take(),
            (&self.cwd, &self.env, self.prompt.trusted),
            &mut *self.log,
        );
        let system_prompt = styled.prompt();
        let turns_done = self.resume.as_ref().map_or(0, |loaded| loaded.turns);
        let session_id = match (self.session_id.take(), &self.resume) {
            (Some(id), _) => id,
            (None, Some(loaded)) if !self.fork => loaded.header.session_id.clone(),
            _ => uuid::Uuid::new_v4().to_string(),
        };
        let mcp = self.start_mcp(&session_id, &mut tools)?;
        let side = crate::side_query::session_side_query(
            &client,
            &model,
            self.small_fast_model.as_deref(),
        );
        crate::skills::add_skill_tool(self.skills.take(), &mut tools);
        let asking = crate::skills::take_asking_tools(&mut tools);
        let shared = Provider::Client(Arc::clone(&client));
        self.add_agent_tool(&shared, &model, &session_id, profile, &mut tools);
        // Not for subagents, and only with someone to ask.
        if self.approver.is_some() {
            asking.into_iter().for_each(|tool| tools.register(tool));
        }
        let tool_names = tools.names();
        let mut config = self.engine_config(session_id);
        // `prompt` hooks ask the session's small fast model.
        config.hooks = config
            .hooks
            .take()
            .map(|hooks| match hooks.has_prompt_hooks() {
                true => Arc::new((*hooks).clone().with_side_query(Arc::clone(&side))),
                false => hooks,
            });
        config.model = model;
        config.system_prompt = system_prompt;
        crate::system_prompt::add_plan_mode(&mut config);
        config.result_attachments = memory.attachments.clone();
        if config.persist_session {
            config.checkpoints = Some(orbit_checkpoint::Checkpointer::new(
                &config.data_dir,
                &config.cwd,
                &config.session_id,
            ));
        }
        profile.configure(&mut config, self.overrides, turns_done);
        self.tool_search(&mut config, profile);
        let engine = match self.resume {
            Some(loaded) => QueryEngine::resume(config, client, tools, loaded),
            None => QueryEngine::new(config, client, tools),
        };
        memory.share(engine.tool_context());
        memory.queue_loaded_hooks(
            engine.tool_context(),
            engine.config().hooks.as_deref(),
            self.env.path(orbit_config::vars::HOME).as_deref(),
        );
        styled.share(engine.tool_context());
        orbit_tool::side_query::install(engine.tool_context(), side);
        secure(
            engine.tool_context(),
            &self.env,
            self.launcher,
            self.added_dirs,
        );
        engine.tool_context().set_env_vars(self.tool_env);
        Ok(BuiltSession {
            engine,
            mcp,
            tool_names,
        })
    }

    /// The session's tools alone, for running calls one at a time (`orbit
    /// mcp serve`): the same permission gate, hooks, result storage and
    /// security defaults as [`Self::build`]'s; no model, prompt, profile,
    /// transcript or MCP server.
    pub fn build_runner(mut self) -> ToolRunner {
        let session_id = self
            .session_id
            .take()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let tools = self
            .tools
            .take()
            .unwrap_or_else(orbit_tools::builtin::default_tools);
        let config = self.engine_config(session_id);
        let runner = ToolRunner::new(&config, tools);
        secure(
            runner.tool_context(),
            &self.env,
            self.launcher,
            self.added_dirs,
        );
        runner.tool_context().set_env_vars(self.tool_env);
        runner
    }

    /// Registers the `Agent` tool when the spec has agents and the profile
    /// offers it; its subagents get the tools as they are now (without
    /// `Agent`) and the rest of the parent's parts.
    fn add_agent_tool(
        &mut self,
        provider: &Provider,
        model: &str,
        session_id: &str,
        profile: ModelProfile,
        tools: &mut ToolRegistry,
    ) {
        tools.retain(|t| {
            t.name() != AGENT_TOOL
                && t.name() != orbit_tools::builtin::task_stop::TASK_STOP_TOOL_NAME
        });
        let Some(offered) = self.agents.take() else {
            return;
        };
        if profile == ModelProfile::new(true) {
            return;
        }
        let parent = ParentParts {
            provider: provider.clone(),
            model: model.to_string(),
            session_id: session_id.to_string(),
            cwd: self.cwd.clone(),
            added_dirs: self.added_dirs.clone(),
            data_dir: self.data_dir.clone(),
            env: self.env.clone(),
            tool_env: self.tool_env.clone(),
            permissions: self.permissions.clone(),
            rules_file: self.rules_file.clone(),
            approver: self.approver.clone(),
            hooks: self.hooks.clone(),
            hook_callbacks: self.hook_callbacks.clone(),
            launcher: self.launcher.clone(),
            profile,
            tuning: self.tuning.clone(),
            trusted: self.prompt.trusted,
            tools: tools.clone(),
        };
        let launcher = (offered.launch)(parent, offered.agents, offered.depth);
        tools.register(orbit_tool::typed(
            orbit_tools::builtin::agent::AgentTool::new(launcher),
        ));
        // Stops what `run_in_background` started.
        tools.register(orbit_tool::typed(
            orbit_tools::builtin::task_stop::TaskStopTool,
        ));
    }

    /// Deferral (DESIGN §10): `ENABLE_TOOL_SEARCH` when set; else MCP
    /// tools are deferred (tuning's default, as in Claude Code 2.1.332),
    /// except for the small-model profile, which defers them only past the
    /// auto threshold of its small window.
    fn tool_search(&mut self, config: &mut EngineConfig, profile: ModelProfile) {
        let var = orbit_config::vars::ENABLE_TOOL_SEARCH;
        let set = self.env.get(var).map(|value| {
            let mode = ToolSearchMode::parse(value);
            if mode.is_none() {
                (self.log)(&format!(
                    "{var}={value} is not true, false, auto or auto:N; using the default"
                ));
            }
            mode
        });
        match set.flatten() {
            Some(mode) => config.tool_search = mode,
            None if profile == ModelProfile::new(true) => {
                config.tool_search = ToolSearchMode::profile_default(true);
            }
            None => {}
        }
    }

    /// The engine settings the spec owns, over `tuning`.
    fn engine_config(&mut self, session_id: String) -> EngineConfig {
        self.tool_env = visible_env(&self.env, std::mem::take(&mut self.tool_env));
        let hooks = session_hooks(
            std::mem::take(&mut self.hooks),
            self.hook_callbacks.take(),
            &self.cwd,
            self.tool_env.clone(),
            self.hook_observer.take(),
        );
        EngineConfig {
            permissions: std::mem::take(&mut self.permissions),
            approver: self.approver.take(),
            rules_file: self.rules_file.take(),
            hooks,
            session_id,
            cwd: self.cwd.clone(),
            data_dir: self.data_dir.clone(),
            persist_session: self.persist,
            ..std::mem::take(&mut self.tuning)
        }
    }

    /// The profile's system prompt and the session's memory; memory files
    /// are read as the folder's trust and the Read deny rules allow.
    fn system_prompt(&mut self, profile: ModelProfile) -> (String, SessionMemory) {
        let deny = crate::system_prompt::memory_deny(
            &self.permissions,
            &self.cwd,
            &self.prompt.deny_paths,
        );
        let sources = crate::system_prompt::memory_sources(&self.env, &self.cwd);
        let loaded = orbit_memory::LoadedMemory::default();
        let log = &mut self.log;
        let mut warn = |line: &str| log(line);
        let prompt = profile.system_prompt(
            &self.cwd,
            self.prompt.replace.as_deref(),
            self.prompt.append.as_deref(),
            &mut InstructionAccess {
                trusted: self.prompt.trusted,
                deny: &*deny,
                warn: &mut warn,
                sources: Some(&sources),
                loaded: Some(&loaded),
            },
        );
        let nested = self
            .prompt
            .replace
            .is_none()
            .then_some((sources, self.prompt.trusted, deny));
        (prompt, SessionMemory::new(loaded, nested))
    }

    /// Starts the MCP servers (None without any); their tools join the
    /// registry as they arrive.
    fn start_mcp(
        &mut self,
        session_id: &str,
        tools: &mut ToolRegistry,
    ) -> Result<Option<Arc<McpManager>>, Error> {
        if self.mcp_servers.is_empty() {
            return Ok(None);
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Error::NoRuntime);
        }
        let mut options = crate::mcp::options(&self.env, &self.data_dir, &self.cwd, session_id);
        options.sdk_bridge = self.sdk_bridge.take();
        // A stdio server's own `env` wins over the settings' `env`.
        let added = visible_env(&self.env, self.tool_env.clone());
        for (_, server) in &mut self.mcp_servers {
            if let ServerConfig::Stdio { env, .. } = server {
                for (name, value) in &added {
                    if let Some(value) = value.to_str() {
                        env.entry(name.clone()).or_insert_with(|| value.to_string());
                    }
                }
            }
        }
        let manager = McpManager::start(std::mem::take(&mut self.mcp_servers), options);
        tools.add_source(manager.clone());
        Ok(Some(manager))
    }
}
