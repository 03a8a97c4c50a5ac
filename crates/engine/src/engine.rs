//! [`QueryEngine`]: one session — its configuration, the conversation
//! history, the result-budget decisions, cost so far and the abort handle —
//! and [`EngineConfig`], everything that shapes a session.
//!
//! `submit_message` appends the prompt and runs the query loop
//! (`query`) as a future that borrows the engine; the returned
//! stream polls that future and yields the events it emits, ending with
//! exactly one `EngineEvent::Result`. History is only ever extended with
//! complete pairs (assistant message + its tool_results), so dropping the
//! stream mid-turn never leaves an unpaired tool_use (L2); running tools are
//! cancelled.
//!
//! Sessions are persisted when `EngineConfig::persist_session` is set:
//! [`QueryEngine::new`] starts a transcript at
//! `<data dir>/projects/<cwd slug>/<session id>.jsonl` (written from the
//! first prompt on); [`QueryEngine::resume`] continues one read by
//! `load_transcript` — appending to it when the config keeps its id, or
//! starting a fork under the config's new id (the old file untouched).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use futures::stream::BoxStream;
use orbit_model::{ModelClient, ToolSpec};
use orbit_permissions::{PermissionConfig, Policy};
use orbit_protocol::{EngineEvent, Message};
use orbit_tool::{ToolRegistry, ToolUseContext};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use orbit_session::{Header, LoadedSession, transcript_path};

use crate::abort::{AbortHandle, TurnGuard};
use crate::approve::SharedApprover;
use crate::compact::{CompactConfig, CompactError, CompactionBoundary};
use crate::deferred::{DeferredTools, ToolSearchMode, loaded_in};
use crate::orchestrator::ToolRuntime;
use crate::query::DEFAULT_REPEATED_TOOL_CALL_LIMIT;
use crate::recorder::Recorder;
use crate::results::{ContentReplacementState, DEFAULT_PER_MESSAGE_BUDGET_CHARS};
use crate::session::Session;
use crate::structured::{
    DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, StructuredOutput, StructuredOutputSchema,
    StructuredOutputSlot, StructuredOutputTool,
};

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
    /// `.orbit/settings.local.json`); None = kept for the session only.
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
    /// Checks each reply that would end a prompt and may send a reminder
    /// instead ([`crate::ReplyCheck`]; the small-model profile's recovery
    /// turns). Default None: no checks.
    pub reply_check: Option<Arc<dyn crate::ReplyCheck>>,
    /// The small-model profile's one tool call per reply
    /// (`ModelRequest::one_tool_call`): a small model otherwise writes a
    /// chain of calls in one reply, each guessing the result of the one
    /// before. Default off.
    pub one_tool_call_per_reply: bool,
    /// The session's hooks (`orbit-hooks`); None = no hooks.
    pub hooks: Option<Arc<orbit_hooks::Hooks>>,
    /// `ENABLE_TOOL_SEARCH`: when deferrable tools (MCP) are sent by name
    /// only and loaded with ToolSearch (see `crate::deferred`).
    pub tool_search: ToolSearchMode,
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
            reply_check: None,
            one_tool_call_per_reply: false,
            hooks: None,
            tool_search: ToolSearchMode::default(),
        }
    }
}

/// One agent session: its configuration, model client, tools and
/// [`Session`] state. `submit_message` runs the tool-use loop for a prompt.
pub struct QueryEngine {
    config: EngineConfig,
    client: Arc<dyn ModelClient>,
    runtime: Arc<ToolRuntime>,
    session: Session,
    abort: AbortHandle,
    /// The `StructuredOutput` tool's state, when the config asks for one.
    structured: Option<StructuredOutput>,
    /// The SessionStart source (`startup`, `resume`) until the first prompt
    /// runs the SessionStart hooks.
    session_start: Option<&'static str>,
}

impl QueryEngine {
    /// A new session in `config.cwd` with these tools; with
    /// `persist_session`, recorded in a new transcript.
    pub fn new(config: EngineConfig, client: Arc<dyn ModelClient>, tools: ToolRegistry) -> Self {
        let mut session = Session::default();
        if config.persist_session {
            let root = project_root(&config);
            let path = transcript_path(&config.data_dir, &root, &config.session_id);
            session.set_recorder(Recorder::create(path, header(&config, &root, None)));
        }
        Self::with_session(config, client, tools, session, "startup")
    }

    /// Continues the session `loaded` was read from ([`crate::load_transcript`]):
    /// its history, frozen budget decisions (so the next request repeats the
    /// bytes already sent and the prompt cache hits), cost, usage and turn
    /// count. With `persist_session`, records go on in the same transcript
    /// when `config.session_id` is the loaded session's id, else into a new
    /// transcript under the config's id that starts from a copy of this
    /// history (a fork; the old transcript is not touched). Tool_uses a
    /// crash left without results are answered as interrupted first.
    pub fn resume(
        config: EngineConfig,
        client: Arc<dyn ModelClient>,
        tools: ToolRegistry,
        mut loaded: LoadedSession,
    ) -> Self {
        let recorder = config.persist_session.then(|| {
            if config.session_id == loaded.header.session_id {
                Recorder::append_to(&loaded)
            } else {
                let root = project_root(&config);
                let path = transcript_path(&config.data_dir, &root, &config.session_id);
                let from = Some(loaded.header.session_id.clone());
                Recorder::fork(path, header(&config, &root, from), &loaded)
            }
        });
        let pending = loaded.pending_results.take();
        let mut session = Session::from_loaded(loaded);
        if let Some(recorder) = recorder {
            session.set_recorder(recorder);
        }
        if let Some(results) = pending {
            session.push_message(results);
        }
        Self::with_session(config, client, tools, session, "resume")
    }

    fn with_session(
        config: EngineConfig,
        client: Arc<dyn ModelClient>,
        mut tools: ToolRegistry,
        mut session: Session,
        start: &'static str,
    ) -> Self {
        // Deferred tools: ToolSearch searches every other tool; what earlier
        // searches loaded (a resume: before the last compaction boundary,
        // then in the history since) is loaded again.
        let window = config
            .compact
            .context_window
            .unwrap_or_else(|| crate::compact::context_window_tokens(&config.model));
        let carried = session.deferred.loaded();
        session.deferred = DeferredTools::new(config.tool_search, window);
        session.deferred.load(carried);
        session.deferred.load(loaded_in(session.messages()));
        if config.tool_search != ToolSearchMode::Off {
            let search = session.deferred.tool(tools.clone());
            tools.register(search);
        }
        // `--json-schema`: the synthetic StructuredOutput tool joins the set.
        let structured = config.structured_output.as_ref().map(|schema| {
            let slot = StructuredOutputSlot::default();
            tools.register(orbit_tool::typed(StructuredOutputTool {
                schema: schema.clone(),
                slot: slot.clone(),
            }));
            StructuredOutput {
                slot,
                max_attempts: config.max_structured_output_retries.max(1),
            }
        });
        let project_root = project_root(&config);
        let mut context = ToolUseContext::new(
            config.session_id.clone(),
            project_root.clone(),
            config.data_dir.clone(),
        );
        context.file_state = Arc::clone(&session.file_state);
        context.todos = Arc::clone(&session.todos);
        let transcript = transcript_path(&config.data_dir, &project_root, &config.session_id);
        let runtime = Arc::new(ToolRuntime::new(&config, tools, context, transcript));
        Self {
            config,
            client,
            runtime,
            session,
            abort: AbortHandle::default(),
            structured,
            session_start: Some(start),
        }
    }

    /// Runs the loop for one user prompt; the stream ends with `EngineEvent::Result`.
    /// An abort requested before this call (and not consumed by an earlier
    /// turn) cancels this turn: it ends interrupted without calling the
    /// model. See `crate::abort` for the semantics.
    pub fn submit_message(&mut self, prompt: String) -> BoxStream<'_, EngineEvent> {
        let turn = self.abort.begin_turn();
        let (tx, rx) = unbounded_channel();
        let run = crate::query::run_query(
            crate::query::QueryParts {
                config: &self.config,
                client: self.client.as_ref(),
                runtime: &self.runtime,
                session: &mut self.session,
                structured: self.structured.clone(),
                session_start: self.session_start.take(),
            },
            prompt,
            turn.token(),
            tx,
        );
        Box::pin(TurnStream {
            run: Some(Box::pin(run)),
            turn: Some(turn),
            events: rx,
        })
    }

    /// Compacts the history now (`/compact [instructions]`): a summary
    /// request with the standard instructions plus `instructions`, or the
    /// fallback when no summary comes back (see `crate::compact`). Returns
    /// the boundary that was applied. The abort handle interrupts it, and
    /// then the history is unchanged.
    pub async fn compact(
        &mut self,
        instructions: Option<String>,
    ) -> Result<CompactionBoundary, CompactError> {
        let turn = self.abort.begin_turn();
        let cancel = turn.token();
        crate::query::compact_now(
            crate::query::QueryParts {
                config: &self.config,
                client: self.client.as_ref(),
                runtime: &self.runtime,
                session: &mut self.session,
                structured: None,
                session_start: None,
            },
            instructions.as_deref(),
            &cancel,
        )
        .await
    }

    /// Runs the SessionEnd hooks (`reason`: Claude Code's `other`,
    /// `prompt_input_exit`, `clear`, `logout`). Their failures are
    /// warnings; nothing they answer changes the session.
    pub async fn end_session(&self, reason: &str) {
        let fields = serde_json::json!({"reason": reason});
        self.runtime
            .hooks
            .run(orbit_hooks::HookEvent::SessionEnd, Some(reason), fields)
            .await;
    }

    /// The handle that interrupts the running turn.
    pub fn abort_handle(&self) -> AbortHandle {
        self.abort.clone()
    }

    /// The session's state.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The full history (tool_results as produced, before the R2 budget view).
    pub fn messages(&self) -> &[Message] {
        self.session.messages()
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.config.session_id
    }

    /// The state shared by this session's tool calls.
    pub fn tool_context(&self) -> &ToolUseContext {
        &self.runtime.context
    }

    /// The configuration the session was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Uses `model` for the following model calls (an SDK's `set_model`).
    /// A fallback in use ends: the embedder chose the model.
    pub fn set_model(&mut self, model: String) {
        self.config.model = model;
        self.session.fallback_model = None;
    }

    /// The session's compiled permission policy; its mode can be switched
    /// while a turn runs (an SDK's `set_permission_mode`, see
    /// [`Policy::set_mode`]).
    pub fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.runtime.permissions)
    }

    /// The tools of the session.
    pub fn tools(&self) -> &ToolRegistry {
        &self.runtime.tools
    }

    /// How full the context window is, by category (an SDK's
    /// `get_context_usage`).
    pub fn context_usage(&self) -> crate::ContextUsage {
        crate::context_usage::measure(&self.config, &self.session, &self.runtime.tools)
    }

    /// The tool specs the next request will carry, in registry order.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        crate::query::tool_specs(&self.runtime.tools, &self.session)
    }

    /// R2's frozen decisions (persisted by the session store for `--resume`).
    pub fn replacement_state(&self) -> &ContentReplacementState {
        self.session.replacement_state()
    }

    /// Cost of all model calls of this session so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.session.total_cost_usd()
    }
}

/// The session's project directory: the canonical cwd (as given when it
/// cannot be resolved).
fn project_root(config: &EngineConfig) -> PathBuf {
    config
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| config.cwd.clone())
}

/// The first record of a new transcript.
fn header(config: &EngineConfig, root: &std::path::Path, forked_from: Option<String>) -> Header {
    let created_at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    Header {
        session_id: config.session_id.clone(),
        cwd: root.display().to_string(),
        created_at_ms,
        forked_from,
        orbit_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

type RunFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Drives the loop future and yields the events it sends.
struct TurnStream<'a> {
    run: Option<RunFuture<'a>>,
    /// The turn's claim on the abort handle, released when the loop ends
    /// (or the stream is dropped): a later abort then waits for the next turn.
    turn: Option<TurnGuard>,
    events: UnboundedReceiver<EngineEvent>,
}

impl Stream for TurnStream<'_> {
    type Item = EngineEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<EngineEvent>> {
        if let Poll::Ready(Some(event)) = self.events.poll_recv(cx) {
            return Poll::Ready(Some(event));
        }
        if let Some(run) = self.run.as_mut()
            && run.as_mut().poll(cx).is_ready()
        {
            // The future owned the sender: once it is gone the channel
            // drains and then reports its end.
            self.run = None;
            self.turn = None;
        }
        self.events.poll_recv(cx)
    }
}
