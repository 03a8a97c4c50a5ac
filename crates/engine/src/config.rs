//! [`EngineConfig`]: everything that shapes a session, with its defaults
//! ([`CompactConfig`] for compaction among them). A leaf: the engine's
//! modules read a session's configuration from here, and nothing here
//! reads them back (the types it holds come from the leaf modules that
//! define them).

use std::path::PathBuf;
use std::sync::Arc;

use orbit_permissions::PermissionConfig;

use crate::approve::SharedApprover;
use crate::deferred::ToolSearchMode;
use crate::results::DEFAULT_PER_MESSAGE_BUDGET_CHARS;
use crate::structured::{DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, StructuredOutputSchema};

/// Default of `EngineConfig::repeated_tool_call_limit`.
pub const DEFAULT_REPEATED_TOOL_CALL_LIMIT: u32 = 5;
/// X2: default number of tools executing at once.
pub const DEFAULT_MAX_TOOL_USE_CONCURRENCY: usize = 10;
/// Default `max_tokens` of a model call (the model catalog's).
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = orbit_model::catalog::DEFAULT_MAX_OUTPUT_TOKENS;

/// Everything that shapes a session.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Model name sent with every request.
    pub model: String,
    /// System prompt sent with every request.
    pub system_prompt: String,
    /// `max_tokens` of each model call.
    pub max_tokens: u32,
    /// Sampling temperature; None = the provider's default.
    pub temperature: Option<f32>,
    /// Sampling seed for providers that take one (local models); None = random.
    pub seed: Option<u64>,
    /// Extended thinking's token budget for each model call of a turn
    /// (`--max-thinking-tokens`, `MAX_THINKING_TOKENS`); None = off. The
    /// thinking blocks the model returns stay in the history unchanged, so
    /// later requests send them back with their signatures.
    pub thinking_budget: Option<u32>,
    /// `--fallback-model`: the model used for the rest of the session once
    /// the main one is overloaded (529 after the retries); None = none.
    pub fallback_model: Option<String>,
    /// At most this many model calls per submitted prompt; None = no limit.
    pub max_turns: Option<u32>,
    /// The turn stops once the session's cost reaches this many US dollars (checked after each model call); None = no limit.
    pub max_budget_usd: Option<f64>,
    /// Permission mode and rules for tool calls.
    pub permissions: PermissionConfig,
    /// X2: `ORBIT_MAX_TOOL_USE_CONCURRENCY`, default 10.
    pub max_tool_use_concurrency: usize,
    /// The session's id, reported in events and used for per-session files.
    pub session_id: String,
    /// Working directory of the session's tools.
    pub cwd: PathBuf,
    /// `$ORBIT_HOME`, default `~/.orbit`.
    pub data_dir: PathBuf,
    /// R2: per-message budget over all tool_results of one user message, in chars.
    pub tool_result_budget_chars: usize,
    /// Who answers permission asks; None = headless (an ask is a denial).
    pub approver: Option<SharedApprover>,
    /// Where "always allow" answers are appended (the CLI: the project's
    /// file in the user's data directory, `orbit_config::saved_rules`);
    /// None = kept for the session only.
    pub rules_file: Option<PathBuf>,
    /// When and how the history is compacted (see `crate::compact`).
    pub compact: CompactConfig,
    /// `--json-schema`: the run must end with a `StructuredOutput` call
    /// matching this schema (see `crate::structured`).
    pub structured_output: Option<StructuredOutputSchema>,
    /// Attempts at valid structured output before
    /// `error_max_structured_output_retries` (`MAX_STRUCTURED_OUTPUT_RETRIES`).
    pub max_structured_output_retries: u32,
    /// The runaway-loop guard: the same call this many times in a row gets
    /// a reminder, twice as many ends the run; 0 = off.
    pub repeated_tool_call_limit: u32,
    /// Record the session in its transcript (`<data dir>/projects/<cwd
    /// slug>/<session id>.jsonl`) so it can be resumed. Default false.
    pub persist_session: bool,
    /// With `persist_session`: the transcript's file instead of
    /// `<data dir>/projects/<cwd slug>/<session id>.jsonl` (a subagent's
    /// sidechain beside its parent's transcript). Default None.
    pub transcript_path: Option<PathBuf>,
    /// Checks each reply that would end a prompt and may send a reminder
    /// instead (`ReplyCheck`; the small-model profile's recovery
    /// turns). Default None: no checks.
    pub reply_check: Option<Arc<dyn orbit_tool::reply_check::ReplyCheck>>,
    /// The small-model profile's one tool call per reply
    /// (`ModelRequest::one_tool_call`): a small model otherwise writes a
    /// chain of calls in one reply, each guessing the result of the one
    /// before. Default off.
    pub one_tool_call_per_reply: bool,
    /// How Read shows a file's lines (`orbit_tool::ReadView`; the
    /// small-model profile leaves out the empty line after a final
    /// newline). Default: Claude Code's.
    pub read_view: orbit_tool::ReadView,
    /// The session's hooks (`orbit-hooks`); None = no hooks.
    pub hooks: Option<Arc<orbit_hooks::Hooks>>,
    /// `ENABLE_TOOL_SEARCH`: when deferrable tools (MCP) are sent by name
    /// only and loaded with ToolSearch (see `crate::deferred`).
    pub tool_search: ToolSearchMode,
    /// Adds text to a finished call's result (`crate::ResultAttachments`;
    /// orbit's nested memory files). Default None: results as the tools
    /// made them.
    pub result_attachments: Option<Arc<dyn crate::attachments::ResultAttachments>>,
    /// Told before a prompt's writing calls (`crate::Checkpoints`: orbit's
    /// per-prompt snapshots for rewind). Default None.
    pub checkpoints: Option<Arc<dyn crate::checkpoint::Checkpoints>>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            model: String::new(),
            system_prompt: String::new(),
            max_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            temperature: None,
            seed: None,
            thinking_budget: None,
            fallback_model: None,
            max_turns: None,
            max_budget_usd: None,
            permissions: PermissionConfig::default(),
            max_tool_use_concurrency: DEFAULT_MAX_TOOL_USE_CONCURRENCY,
            session_id: String::new(),
            cwd: PathBuf::from("."),
            data_dir: PathBuf::from(".orbit"),
            tool_result_budget_chars: DEFAULT_PER_MESSAGE_BUDGET_CHARS,
            approver: None,
            rules_file: None,
            compact: CompactConfig::default(),
            structured_output: None,
            max_structured_output_retries: DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES,
            repeated_tool_call_limit: DEFAULT_REPEATED_TOOL_CALL_LIMIT,
            persist_session: false,
            transcript_path: None,
            reply_check: None,
            one_tool_call_per_reply: false,
            read_view: orbit_tool::ReadView::default(),
            hooks: None,
            tool_search: ToolSearchMode::default(),
            result_attachments: None,
            checkpoints: None,
        }
    }
}

/// A session's compaction settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactConfig {
    /// The model's context window in tokens (`ORBIT_CONTEXT_WINDOW`); None
    /// = `context_window_tokens` of the model (the model catalog).
    pub context_window: Option<u64>,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`: compact at this percentage of the
    /// usable window, if that is below the default threshold.
    pub autocompact_pct: Option<f64>,
    /// No automatic compaction before requests (a prompt-too-long answer
    /// and `QueryEngine::compact` still compact).
    pub disable_auto: bool,
}
