//! orbit as a library: a coding agent — the model thinks, calls tools, sees
//! their results, thinks again — that a Rust program builds, prompts and
//! watches.
//!
//! ```no_run
//! # async fn demo() -> Result<(), orbit::Error> {
//! // The provider comes from the environment: an Anthropic or OpenAI key,
//! // else the local model (set up on first use).
//! let mut agent = orbit::Agent::builder().build()?;
//! let result = agent.ask("What does this repository do?").await?;
//! println!("{}", result.result);
//! # Ok(()) }
//! ```
//!
//! The pieces, each a crate of its own that this one re-exports:
//! - [`Agent`] / [`AgentBuilder`]: provider ([`Provider`]), tools,
//!   permission policy, system prompt (with the project's CLAUDE.md /
//!   AGENTS.md), working directory. What the agent does not cover (the
//!   engine's own calls, as the CLI makes them) starts from a
//!   [`SessionSpec`]: its `build` yields the [`QueryEngine`] itself.
//! - [`Agent::run`] streams [`EngineEvent`]s and ends with one
//!   [`EngineEvent::Result`] ([`TerminalResult`]); [`Agent::ask`] waits for
//!   it; [`Agent::abort_handle`] interrupts a turn.
//! - Sessions persist to `$ORBIT_HOME/projects/<cwd slug>/<id>.jsonl`;
//!   [`AgentBuilder::resume`] / [`AgentBuilder::continue_latest`] go on
//!   with one, [`AgentBuilder::fork_session`] branches it off.
//! - Subagents: [`AgentBuilder::agent`] offers an [`AgentDefinition`]
//!   (beside the built-in types) through the `Agent` tool; each call is a
//!   session of its own, several in one reply run in parallel, and the
//!   model sees only their answers (`examples/parallel_agents.rs`).
//! - Custom tools implement [`TypedTool`]: a typed input parsed once, the
//!   [`CallFacts`] of each call (what the permission gate and the executor
//!   decide by), business validation, then the call.
//!
//! A custom tool, and what the engine sees of a call:
//!
//! ```
//! use orbit::{
//!     CallContext, CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
//! };
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Input {
//!     /// Text to count words in
//!     text: String,
//! }
//!
//! struct WordCount;
//!
//! #[async_trait::async_trait]
//! impl TypedTool for WordCount {
//!     type Input = Input;
//!     type Plan = Input;
//!     fn info(&self) -> ToolInfo<'_> {
//!         ToolInfo::new("WordCount", "Counts the words of a text.")
//!             .with_result_limit(ResultLimit::PersistOver(1_000))
//!     }
//!     fn facts(&self, _: &Input, _: &ToolUseContext) -> CallFacts {
//!         CallFacts { read_only: true, concurrency_safe: true, ..CallFacts::default() }
//!     }
//!     async fn validate(&self, input: Input, _: &ToolUseContext) -> Result<Input, ToolError> {
//!         Ok(input)
//!     }
//!     async fn call(&self, input: Input, _: &ToolUseContext, _: &CallContext)
//!         -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text(input.text.split_whitespace().count().to_string()))
//!     }
//! }
//!
//! let tool = orbit::typed(WordCount);
//! let ctx = ToolUseContext::new("doc", std::env::temp_dir(), std::env::temp_dir());
//! let call = tool.parse(serde_json::json!({"text": "one two three"}), &ctx).unwrap();
//! assert!(call.facts().read_only);
//! assert_eq!(tool.input_schema()["required"], serde_json::json!(["text"]));
//! ```

#![deny(missing_docs)]

mod agent;
pub mod mcp;
mod parent;
pub mod profile;
pub mod provider;
mod secure;
pub mod side_query;
mod skills;
mod spec;
mod subagent;
mod system_prompt;

pub use agent::{Agent, AgentBuilder};
pub use orbit_agents::{AgentDefinition, AgentSet, AgentSource, AgentSources, ToolFilter};
pub use orbit_config::Env;
pub use orbit_engine::{
    AbortHandle, Approval, ApprovalRequest, Approver, CompactError, CompactionBoundary,
    EngineConfig, QueryEngine, SchemaError, SharedApprover, StructuredOutputSchema, ToolRunner,
};
pub use orbit_model::ModelClient;
pub use orbit_permissions::PermissionMode;
pub use orbit_protocol::{EngineEvent, Message, ResultSubtype, TerminalResult};
pub use orbit_tool::{
    CallContext, CallFacts, CommandLauncher, ResultLimit, Tool, ToolError, ToolInfo, ToolOutput,
    ToolRegistry, ToolUseContext, TypedTool, typed,
};
pub use provider::{DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, Provider};
pub use skills::offer_asking_tools;
pub use spec::{BuiltSession, PromptSpec, SessionSpec};
pub use subagent::{MAX_SUBAGENT_DEPTH, SUBAGENT_COST_KEY, SUBAGENT_EVENT_KEY};

/// Why an agent could not be built or run. Each variant keeps the error
/// it comes from as its [`std::error::Error::source`]; print the chain
/// (e.g. anyhow's `{:#}`) to see the whole reason.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The model client could not be configured (bad URL, no key).
    #[error(transparent)]
    Model(#[from] orbit_model::ModelError),
    /// The local model could not be set up or started.
    #[error("the local model could not be set up or started")]
    Local(#[from] orbit_local::LocalError),
    /// The working directory is unusable.
    #[error("cannot use the working directory {}", path.display())]
    Cwd {
        /// The directory (empty when the current one could not be read).
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The data directory could not be found (no `$ORBIT_HOME`, no `$HOME`).
    #[error("cannot find orbit's data directory")]
    DataDir(#[source] orbit_config::ConfigError),
    /// The turn's stream ended without a result (the engine was dropped).
    #[error("the agent ended without a result")]
    NoResult,
    /// A permission rule given to the builder does not parse.
    #[error(transparent)]
    Rule(#[from] orbit_permissions::RuleError),
    /// The session to resume does not exist (the message names it).
    #[error("{0}")]
    NoSession(String),
    /// A session transcript could not be read (damaged, newer format, I/O).
    #[error(transparent)]
    Session(#[from] orbit_session::SessionError),
    /// An MCP configuration file could not be read or is not an
    /// `mcpServers` document.
    #[error("MCP configuration {}", path.display())]
    McpFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: McpFileError,
    },
    /// MCP servers were given but there is no tokio runtime to run them on.
    #[error("MCP servers run on the tokio runtime: build the agent inside one")]
    NoRuntime,
}

/// Why an MCP configuration file was not used.
#[derive(Debug, thiserror::Error)]
pub enum McpFileError {
    /// It could not be read (missing, a device, over the size cap).
    #[error("cannot read it")]
    Read(#[from] orbit_untrusted::UntrustedError),
    /// It is not an `mcpServers` document.
    #[error("not an mcpServers document")]
    Parse(#[from] orbit_mcp::config::ConfigError),
}
