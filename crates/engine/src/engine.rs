//! [`QueryEngine`]: one session — its configuration ([`EngineConfig`],
//! `crate::config`), the conversation history, the result-budget
//! decisions, cost so far and the abort handle.
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
use orbit_permissions::Policy;
use orbit_protocol::{EngineEvent, Message};
use orbit_tool::{ToolRegistry, ToolUseContext};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use orbit_session::{Header, LoadedSession, transcript_path};

use crate::abort::{AbortHandle, TurnGuard};
use crate::compact::{CompactError, CompactionBoundary};
use crate::config::EngineConfig;
use crate::deferred::{DeferredTools, ToolSearchMode, loaded_in};
use crate::recorder::Recorder;
use crate::results::ContentReplacementState;
use crate::runtime::ToolRuntime;
use crate::session::Session;
use crate::structured::{StructuredOutput, StructuredOutputSlot, StructuredOutputTool};

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
            let path = session_transcript(&config, &root);
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
        let window = crate::compact::window_tokens(&config, &config.model);
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
        // What Read may show the model: image blocks, PDF document blocks.
        context.set_model_media(orbit_tool::ModelMedia {
            images: orbit_model::catalog::facts(&config.model).images,
            documents: client.provider() == "anthropic",
        });
        context.set_read_view(config.read_view);
        let transcript = session_transcript(&config, &project_root);
        let runtime = Arc::new(ToolRuntime::new(
            &config,
            tools,
            context,
            transcript,
            session.denials(),
        ));
        crate::turn_permissions::install_turn_grants(&runtime, &config.permissions);
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
        let prompt = crate::turn_permissions::plan_reminder(
            &self.runtime,
            &self.config.system_prompt,
            prompt,
        );
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
            grants: TurnGrantsEnd(orbit_tool::TurnGrants::of(&self.runtime.context)),
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

    /// Uses `prompt` as the system prompt of the following model calls
    /// (`/output-style` switching styles mid-session).
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.config.system_prompt = prompt;
    }

    /// Uses `model` for the following model calls (an SDK's `set_model`).
    /// A fallback in use ends: the embedder chose the model.
    pub fn set_model(&mut self, model: String) {
        self.config.model = model;
        self.session.set_fallback(None);
    }

    /// Switches to `model` (`source`: who asked, e.g. `set_model`) unless a
    /// PreModelSwitch hook blocks it (exit 2, `decision: block`) or denies
    /// it (`permissionDecision: deny`): then the model stays and the
    /// reason comes back. PostModelSwitch hooks run after a switch (their
    /// output is not sent to the model yet). Fields as Claude Code
    /// 2.1.332 gives them: `from_model`, `to_model`, `requested_model`,
    /// `source`.
    pub async fn switch_model(&mut self, model: String, source: &str) -> Result<(), String> {
        let hooks = &self.runtime.hooks;
        let fields = serde_json::json!({"from_model": self.config.model, "to_model": model,
            "requested_model": model, "source": source});
        if hooks.active(orbit_hooks::HookEvent::PreModelSwitch) {
            let verdict = hooks
                .run(orbit_hooks::HookEvent::PreModelSwitch, None, fields.clone())
                .await;
            if let Some(reason) = verdict.block {
                return Err(reason);
            }
            if let Some((orbit_hooks::PermissionVote::Deny, why)) = verdict.permission {
                return Err(why);
            }
        }
        self.set_model(model);
        let hooks = &self.runtime.hooks;
        if hooks.active(orbit_hooks::HookEvent::PostModelSwitch) {
            hooks
                .run(orbit_hooks::HookEvent::PostModelSwitch, None, fields)
                .await;
        }
        Ok(())
    }

    /// The session's compiled permission policy; its mode can be switched
    /// while a turn runs (an SDK's `set_permission_mode`, see
    /// [`Policy::set_mode`]).
    pub fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.runtime.permissions)
    }

    /// The runtime the session's tool calls share (`crate::grants`).
    pub(crate) fn runtime_arc(&self) -> &Arc<ToolRuntime> {
        &self.runtime
    }

    /// The tools of the session.
    pub fn tools(&self) -> &ToolRegistry {
        &self.runtime.tools
    }

    /// How full the context window is, by category (an SDK's
    /// `get_context_usage`).
    pub fn context_usage(&self) -> crate::context_usage::ContextUsage {
        crate::context_usage::measure(&self.config, &self.session, &self.runtime.tools)
    }

    /// The tool specs the next request will carry, in registry order.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        self.session.tool_specs(&self.runtime.tools)
    }

    /// R2's frozen decisions (persisted by the session store for `--resume`).
    pub fn replacement_state(&self) -> &ContentReplacementState {
        self.session.replacement_state()
    }

    /// Cost of all model calls of this session so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.session.total_cost_usd()
    }

    /// The session's model provider (`ModelClient::provider`: `anthropic`,
    /// `openai`, `local`, …).
    pub fn provider(&self) -> &str {
        self.client.provider()
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

/// The session's transcript file: the config's own, else the project's
/// `<session id>.jsonl`.
fn session_transcript(config: &EngineConfig, root: &std::path::Path) -> PathBuf {
    config
        .transcript_path
        .clone()
        .unwrap_or_else(|| transcript_path(&config.data_dir, root, &config.session_id))
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
    /// Ends the grants tools opened for this turn (a skill's
    /// `allowed-tools`) when the loop ends or the stream is dropped.
    grants: TurnGrantsEnd,
}

/// Ends the turn's grants when dropped.
struct TurnGrantsEnd(Arc<orbit_tool::TurnGrants>);

impl Drop for TurnGrantsEnd {
    fn drop(&mut self) {
        self.0.end_turn();
    }
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
            self.grants.0.end_turn();
        }
        self.events.poll_recv(cx)
    }
}
