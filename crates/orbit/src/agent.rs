//! [`Agent`] and its [`AgentBuilder`]: one coding-agent session — a model
//! provider, tools, a permission policy, a system prompt (with the
//! project's CLAUDE.md / AGENTS.md) and a working directory — over the
//! engine's `QueryEngine`. The builder is here; the built session, which
//! an embedder drives, is `session`.
//!
//! Data flow: `AgentBuilder::build` → provider client + tool registry +
//! `EngineConfig` → `QueryEngine`. [`Agent::run`] submits a prompt and
//! returns the engine's event stream (it ends with one
//! `EngineEvent::Result`); [`Agent::ask`] drives that stream to the end and
//! returns the result.
//!
//! MCP servers ([`AgentBuilder::mcp_server`], [`AgentBuilder::mcp_config`])
//! are started by `build` and connect in the background (see
//! [`crate::mcp`]).
//!
//! Subagents ([`AgentBuilder::agent`], [`AgentBuilder::agents`]) are
//! offered through the `Agent` tool: each call is a session of its own,
//! built from this one's parts (see `crate::subagent`); several calls in
//! one reply run in parallel.
//!
//! Sessions are recorded in their transcript by default (as the CLI does);
//! [`AgentBuilder::resume`], [`AgentBuilder::continue_latest`] and
//! [`AgentBuilder::fork_session`] go on with an earlier one.

use std::path::PathBuf;
use std::sync::Arc;

use orbit_agents::{AgentDefinition, AgentSet};
use orbit_engine::{Approver, EngineConfig, SharedApprover, StructuredOutputSchema};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_session::LoadedSession;
use orbit_tool::{CommandLauncher, Tool, ToolRegistry, TypedTool, typed};

use crate::mcp::{McpSetup, ServerConfig};
use crate::profile::ProfileOverrides;
use crate::provider::Provider;
use crate::{Error, PromptSpec, SessionSpec};

mod session;

pub use session::Agent;

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
    json_schema: Option<StructuredOutputSchema>,
    log: Box<dyn FnMut(&str) + Send>,
    persist: bool,
    session_id: Option<String>,
    resume: Option<ResumeFrom>,
    fork: bool,
    launcher: Option<CommandLauncher>,
    mcp: McpSetup,
    /// The subagent types the `Agent` tool offers; None = no `Agent` tool.
    agents: Option<AgentSet>,
}

/// Which earlier session a builder continues.
enum ResumeFrom {
    Id(String),
    Latest,
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
            json_schema: None,
            log: Box::new(|line| eprintln!("orbit: {line}")),
            persist: true,
            session_id: None,
            resume: None,
            fork: false,
            launcher: None,
            mcp: McpSetup::default(),
            agents: None,
        }
    }
}

/// Builder methods that set the optional field of the same name, taking
/// the argument type given (`T`, or `impl Into<T>`).
macro_rules! optional_settings {
    ($($(#[$doc:meta])* $name:ident: $arg:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(mut self, $name: $arg) -> Self {
            self.$name = Some($name.into());
            self
        }
    )*};
}

/// Builder methods that add permission rules to the list of the same
/// purpose (`name => list field of PermissionConfig`).
macro_rules! rule_lists {
    ($($(#[$doc:meta])* $name:ident => $list:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(mut self, rules: impl IntoIterator<Item = impl Into<String>>) -> Self {
            self.permissions.$list.extend(rules.into_iter().map(Into::into));
            self
        }
    )*};
}

impl AgentBuilder {
    optional_settings! {
        /// Where the model runs (default: [`Provider::from_env`]).
        provider: Provider;
        /// The model id (default: per provider).
        model: impl Into<String>;
        /// The session's working directory (default: the current directory).
        cwd: impl Into<PathBuf>;
        /// Replaces the default system prompt.
        system_prompt: impl Into<String>;
        /// Appends to the system prompt (default or replaced).
        append_system_prompt: impl Into<String>;
        /// Stop after this many model calls (result `error_max_turns`).
        max_turns: u32;
        /// Stop once the session cost more than this (result `error_max_budget_usd`).
        max_budget_usd: f64;
        /// Where orbit keeps session files (default: `$ORBIT_HOME`, else `~/.orbit`).
        data_dir: impl Into<PathBuf>;
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

    /// Adds an MCP server: its tools become `mcp__NAME__TOOL` (see
    /// [`crate::mcp`]). `${VAR}` and `${VAR:-default}` in it are expanded
    /// when the agent is built, which must happen inside a tokio runtime.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), orbit::Error> {
    /// use orbit::mcp::ServerConfig;
    /// let mut agent = orbit::Agent::builder()
    ///     .mcp_server(
    ///         "fs",
    ///         ServerConfig::Stdio {
    ///             command: "mcp-server-filesystem".into(),
    ///             args: vec![".".into()],
    ///             env: Default::default(),
    ///         },
    ///     )
    ///     .allow(["mcp__fs"])
    ///     .build()?;
    /// let result = agent.ask("List the files with the fs server.").await?;
    /// # Ok(()) }
    /// ```
    pub fn mcp_server(mut self, name: impl Into<String>, config: ServerConfig) -> Self {
        self.mcp.servers.push((name.into(), config));
        self
    }

    /// Adds every server of a file shaped like Claude Code's `.mcp.json`
    /// (`{"mcpServers": {NAME: {"command", "args", "env"} | {"type": "http",
    /// "url", "headers"}}}`), read when the agent is built. A server named
    /// by [`Self::mcp_server`] or an earlier file wins over one of the same
    /// name. The library reads no `.mcp.json` by itself: pass the project's
    /// when you trust it.
    pub fn mcp_config(mut self, path: impl Into<PathBuf>) -> Self {
        self.mcp.files.push(path.into());
        self
    }

    /// Offers `definition` as a subagent type of the `Agent` tool, beside
    /// the built-in ones (general-purpose, Explore, Plan); a definition of
    /// the same name replaces the earlier one. Without any, the agent has
    /// no `Agent` tool. A subagent runs with this agent's provider,
    /// permission rules and mode, approver and launcher (never more rights),
    /// its own history and the definition's prompt, tools and model; the
    /// model sees only its final answer. Not offered with the small-model
    /// profile (one call per reply).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), orbit::Error> {
    /// use orbit::{AgentDefinition, ToolFilter};
    /// let searcher = AgentDefinition {
    ///     tools: ToolFilter::Only(vec!["Grep".into(), "Glob".into(), "Read".into()]),
    ///     ..AgentDefinition::new("searcher", "Finds code", "You search code and report file:line.")
    /// };
    /// let mut agent = orbit::Agent::builder().agent(searcher).build()?;
    /// let result = agent.ask("Use two searcher agents in parallel: ...").await?;
    /// # Ok(()) }
    /// ```
    pub fn agent(mut self, definition: AgentDefinition) -> Self {
        self.agents
            .get_or_insert_with(AgentSet::builtin)
            .insert(definition);
        self
    }

    /// Offers exactly this set of subagent types (e.g. an
    /// [`AgentSet::load`] of the user's and project's agent folders, or
    /// [`AgentSet::builtin`]); later [`Self::agent`] calls add to it.
    pub fn agents(mut self, agents: AgentSet) -> Self {
        self.agents = Some(agents);
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

    rule_lists! {
        /// Rules allowed without asking, in Claude Code's syntax
        /// (`"Edit"`, `"Bash(cargo test:*)"`).
        allow => allowed_tools;
        /// Rules always denied (deny beats allow, in every mode).
        deny => disallowed_tools;
        /// Rules that always ask, even in `bypassPermissions` (same syntax).
        ask => ask_tools;
    }

    /// Who answers permission asks (a prompt, an SDK's `can_use_tool`).
    /// Without one, what needs asking is denied and reported in
    /// `permission_denials`.
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(SharedApprover(Arc::new(approver)));
        self
    }

    /// Runs every Bash command through `launcher`, e.g. the `orbit`
    /// binary's OS sandbox helper (`program: "/usr/bin/orbit"`, `args:
    /// ["sandbox", "--mode", "workspace-write", "--"]`; see
    /// `orbit_sandbox::SandboxPolicy::to_args`). Without one — the default
    /// for the library, unlike the CLI — commands run unsandboxed.
    pub fn command_launcher(mut self, launcher: CommandLauncher) -> Self {
        self.launcher = Some(launcher);
        self
    }

    /// Every answer must match this schema: the model answers through a
    /// `StructuredOutput` tool and the result carries the value as
    /// `structured_output` (build it with [`StructuredOutputSchema::new`]).
    pub fn json_schema(mut self, schema: StructuredOutputSchema) -> Self {
        self.json_schema = Some(schema);
        self
    }

    /// Whether the session is recorded in its transcript,
    /// `<data dir>/projects/<cwd slug>/<session id>.jsonl` (default true, as
    /// the CLI). Without it the session cannot be resumed.
    pub fn persist_session(mut self, persist: bool) -> Self {
        self.persist = persist;
        self
    }

    /// The id of the new session (default: a fresh UUID; with
    /// [`Self::fork_session`], the fork's id).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Goes on with the session `id` of this working directory: its
    /// history, frozen result-budget decisions, cost and turn count (limits
    /// count the whole session). A crash's leftovers are repaired and
    /// reported through [`Self::log`].
    ///
    /// ```no_run
    /// # async fn demo(id: &str) -> Result<(), orbit::Error> {
    /// let mut agent = orbit::Agent::builder().resume(id).build()?;
    /// let result = agent.ask("Go on where you stopped.").await?;
    /// # Ok(()) }
    /// ```
    pub fn resume(mut self, id: impl Into<String>) -> Self {
        self.resume = Some(ResumeFrom::Id(id.into()));
        self
    }

    /// Goes on with the most recent session of this working directory
    /// (`orbit -c`).
    pub fn continue_latest(mut self) -> Self {
        self.resume = Some(ResumeFrom::Latest);
        self
    }

    /// With [`Self::resume`] / [`Self::continue_latest`]: go on in a new
    /// session (a new id, its own transcript), leaving the original as it was.
    pub fn fork_session(mut self) -> Self {
        self.fork = true;
        self
    }

    /// Where progress lines go (default: stderr with an `orbit: ` prefix).
    pub fn log(mut self, log: impl FnMut(&str) + Send + 'static) -> Self {
        self.log = Box::new(log);
        self
    }

    /// Builds the agent: starts the provider's client (the local model may
    /// be set up and started here), reads the project's instruction files
    /// and starts the MCP servers (they connect in the background; with
    /// servers, call it inside a tokio runtime).
    pub fn build(mut self) -> Result<Agent, Error> {
        let cwd = match self.cwd.take() {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|source| Error::Cwd {
                path: PathBuf::new(),
                source,
            })?,
        };
        let cwd = cwd
            .canonicalize()
            .map_err(|source| Error::Cwd { path: cwd, source })?;
        let env = orbit_config::Env::from_process();
        let data_dir = match self.data_dir.take() {
            Some(dir) => dir,
            None => orbit_config::data_dir(&env).map_err(Error::DataDir)?,
        };
        orbit_permissions::Policy::check(&self.permissions, &cwd)?;
        let resume = self.load_resumed(&data_dir, &cwd)?;
        let mcp_servers = std::mem::take(&mut self.mcp).resolve(&env, &mut *self.log)?;
        let mut spec = SessionSpec::new(cwd, data_dir, env);
        spec.provider = self.provider;
        spec.model = self.model;
        spec.session_id = self.session_id;
        spec.resume = resume;
        spec.fork = self.fork;
        spec.persist = self.persist;
        spec.tools = Some(self.tools);
        spec.permissions = self.permissions;
        spec.approver = self.approver;
        spec.mcp_servers = mcp_servers;
        spec.launcher = self.launcher;
        if let Some(agents) = self.agents {
            spec.offer_agents(agents);
        }
        // The library knows no folder trust: links out of the project are
        // not followed; the agent's Read deny rules apply to the targets.
        spec.prompt = PromptSpec {
            replace: self.system_prompt,
            append: self.append_system_prompt,
            ..PromptSpec::default()
        };
        spec.overrides = ProfileOverrides {
            max_turns: self.max_turns,
            max_tokens: None,
        };
        spec.tuning = EngineConfig {
            max_budget_usd: self.max_budget_usd,
            structured_output: self.json_schema,
            ..EngineConfig::default()
        };
        spec.log = self.log;
        let built = spec.build()?;
        Ok(Agent::new(built.engine, built.mcp))
    }

    /// The transcript to resume, read and repaired (repairs are logged).
    fn load_resumed(
        &mut self,
        data_dir: &std::path::Path,
        cwd: &std::path::Path,
    ) -> Result<Option<LoadedSession>, Error> {
        let id = match self.resume.take() {
            None => return Ok(None),
            Some(ResumeFrom::Id(id)) => id,
            Some(ResumeFrom::Latest) => orbit_session::latest(data_dir, cwd)?.ok_or_else(|| {
                Error::NoSession(format!("no session to continue in {}", cwd.display()))
            })?,
        };
        let path = orbit_session::transcript_path(data_dir, cwd, &id);
        if !path.is_file() {
            return Err(Error::NoSession(format!(
                "no session {id} in {}",
                cwd.display()
            )));
        }
        let loaded = orbit_engine::load_transcript(&path)?;
        for repair in &loaded.repairs {
            (self.log)(&format!("session {id}: {repair}"));
        }
        Ok(Some(loaded))
    }
}
