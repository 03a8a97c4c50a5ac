//! [`Session`]: what one conversation accumulates — the history, the frozen
//! result-budget decisions ([`ContentReplacementState`]), usage and cost,
//! the ids of its tool calls — and the state its tools share through the
//! `ToolUseContext` (the file-state cache behind read-before-write, the todo
//! list).
//!
//! The engine owns one `Session`; the query loop borrows it mutably for one
//! run and only ever extends the history with complete pairs (an assistant
//! message and the user message answering its tool_uses). It is the value
//! the transcript persists and a resume rebuilds: with a
//! [`Recorder`] attached, every change is recorded as it happens
//! ([`Session::push_message`], [`Session::record_streamed`]) and made
//! durable right before each model request ([`Session::start_model_call`])
//! and at the end of a prompt ([`Session::record_result`]);
//! [`Session::from_loaded`] rebuilds it from a transcript.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use orbit_model::ToolSpec;
use orbit_protocol::{
    CompactTrigger, Message, PermissionDenial, TerminalResult, TodoItem, ToolUseBlock, Usage,
};
use orbit_session::{CompactionRecord, CompactionTrigger, LoadedSession};
use orbit_tool::{FileStateCache, ToolRegistry};

use crate::compact::{CompactionBoundary, ContextAnchor};
use crate::config::EngineConfig;
use crate::denials::Denials;
use crate::lock::lock;
use crate::recorder::{Recorder, Totals};
use crate::results::{BudgetedView, ContentReplacementState};

/// Reads the transcript at `path` for a resume, answering tool_uses a
/// crash cut off with the engine's interrupted text
/// ([`crate::messages::INTERRUPT_MESSAGE_FOR_TOOL_USE`], as a live
/// interrupt does).
pub fn load_transcript(
    path: &std::path::Path,
) -> Result<LoadedSession, orbit_session::SessionError> {
    orbit_session::load(path, crate::messages::INTERRUPT_MESSAGE_FOR_TOOL_USE)
}

/// One conversation's state.
#[derive(Debug, Default)]
pub struct Session {
    pub(crate) messages: Vec<Message>,
    pub(crate) replacement_state: ContentReplacementState,
    /// Tokens of every model call of the session, voided attempts included
    /// (counted by [`Session::add_billed`]).
    usage: Usage,
    /// Cost of every model call of the session, in US dollars.
    total_cost_usd: f64,
    /// The calls the permission gate refused in the running prompt (the
    /// session's `ToolRuntime` records into a clone of this handle).
    denials: Denials,
    /// Every tool_use id in the history (kept unique, see
    /// [`Session::make_tool_use_id_unique`]).
    tool_use_ids: HashSet<String>,
    /// tool_use ids whose results the per-message budget must never replace
    /// (their tool's `ResultLimit`; see `results::budget`).
    pub(crate) never_persisted_ids: HashSet<String>,
    /// Read-before-write state, shared with the tools.
    pub(crate) file_state: Arc<FileStateCache>,
    /// The TodoWrite list, shared with the tools.
    pub(crate) todos: Arc<Mutex<Vec<TodoItem>>>,
    /// What the last response's usage says about the history's size (the
    /// compaction estimate's starting point; None after a compaction).
    pub(crate) context_anchor: Option<ContextAnchor>,
    /// The model in use since the main one was overloaded
    /// (`EngineConfig::fallback_model`); None = the configured model.
    fallback_model: Option<String>,
    /// Model calls of the session (across resumes).
    turns: u32,
    /// Model calls of the running prompt (0 until its first request).
    calls_this_prompt: u32,
    /// Where changes are recorded (None: not persisted).
    recorder: Option<Recorder>,
    /// Deferred tools and the ones ToolSearch loaded (see `crate::deferred`).
    pub(crate) deferred: crate::deferred::DeferredTools,
    /// The budgeted view of the history as last sent; every change of
    /// `messages` tells it what it touched.
    pub(crate) view: BudgetedView,
}

impl Session {
    /// The full history (tool_results as produced, before the budget view).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The budget's frozen decisions.
    pub fn replacement_state(&self) -> &ContentReplacementState {
        &self.replacement_state
    }

    /// Tokens of every model call so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Cost of every model call so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.total_cost_usd
    }

    /// Model calls of the session so far, across resumes (what
    /// `max_turns` counts).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Counts one model call's billed usage (every attempt, voided ones
    /// included) and its cost at the prices of the model that answered
    /// (`answered_by`, when its stream named it, else `asked`, the
    /// request's): the one place the session's usage and cost grow.
    pub(crate) fn add_billed(&mut self, answered_by: Option<&str>, asked: &str, usage: &Usage) {
        let model = answered_by.unwrap_or(asked);
        self.usage.add(usage);
        self.total_cost_usd += orbit_model::pricing::cost_usd(model, usage);
    }

    /// The model requests go to: the fallback once the main model was
    /// overloaded, else the configured one.
    pub(crate) fn model<'a>(&'a self, config: &'a EngineConfig) -> &'a str {
        self.fallback_model.as_deref().unwrap_or(&config.model)
    }

    /// Whether the fallback model is in use.
    pub(crate) fn on_fallback(&self) -> bool {
        self.fallback_model.is_some()
    }

    /// Sends the following requests to `model` (`None`: the configured
    /// model again).
    pub(crate) fn set_fallback(&mut self, model: Option<String>) {
        self.fallback_model = model;
    }

    /// The tool specs of its next request, computed per request from
    /// `tools` (tools enabled or added mid-session are sent from the next
    /// request on); deferred tools the model has not loaded are named in
    /// ToolSearch's description instead (`crate::deferred`).
    pub(crate) fn tool_specs(&self, tools: &ToolRegistry) -> Vec<ToolSpec> {
        self.deferred.plan(&tools.tools(), tools.is_pending())
    }

    /// The handle the session's tool calls record denials in.
    pub(crate) fn denials(&self) -> Denials {
        self.denials.clone()
    }

    /// The denials of the running prompt, taken (for its result).
    pub(crate) fn take_denials(&self) -> Vec<PermissionDenial> {
        self.denials.take()
    }

    /// The state a transcript recorded: history (repaired), frozen budget
    /// decisions, never-persisted ids, totals. The synthetic results of a
    /// crash mid-tool ([`LoadedSession::pending_results`]) are appended by
    /// the caller, once a recorder is attached, so they are recorded.
    pub(crate) fn from_loaded(loaded: LoadedSession) -> Self {
        let tool_use_ids = loaded
            .messages
            .iter()
            .flat_map(|m| m.tool_uses().map(|t| t.id.clone()))
            .collect();
        Self {
            // Already merged by the reader with the same rule as `push_message`.
            messages: loaded.messages,
            tool_use_ids,
            replacement_state: ContentReplacementState {
                seen_ids: loaded.seen_ids,
                replacements: loaded.replacements,
            },
            usage: loaded.usage,
            total_cost_usd: loaded.total_cost_usd,
            never_persisted_ids: loaded.never_persisted.into_iter().collect(),
            turns: loaded.turns,
            deferred: {
                let deferred = crate::deferred::DeferredTools::default();
                deferred.load(loaded.loaded_tools);
                deferred
            },
            ..Self::default()
        }
    }

    /// Attaches the recorder every later change goes to.
    pub(crate) fn set_recorder(&mut self, recorder: Recorder) {
        self.recorder = Some(recorder);
    }

    /// Right before a model request: counts the call, records what the
    /// request is built from that is not recorded yet (frozen budget
    /// decisions, totals, the prompt's denials so far) and waits until the
    /// transcript is on disk (`fdatasync`). The first request of a prompt
    /// adds nothing but the prompt, so it waits only until the records are
    /// written (a crash of orbit cannot lose them; the sync follows at
    /// once): start-up does not wait for the disk.
    pub(crate) async fn start_model_call(&mut self) {
        let totals = self.totals();
        self.turns += 1;
        let first_of_prompt = self.calls_this_prompt == 0;
        self.calls_this_prompt += 1;
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        recorder.replacements(&self.replacement_state);
        recorder.totals(totals);
        self.denials.read(|denials| recorder.denials(denials));
        recorder.sync(!first_of_prompt).await;
    }

    /// How a prompt ended: records the totals, the prompt's denials and the
    /// result, and waits until they are on disk.
    pub(crate) async fn record_result(&mut self, result: &TerminalResult) {
        self.calls_this_prompt = 0;
        let totals = self.totals();
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        recorder.replacements(&self.replacement_state);
        recorder.totals(totals);
        recorder.result(result);
        recorder.sync(true).await;
    }

    /// Records the totals and waits until the transcript is on disk (after
    /// a compaction by hand, which no request or result follows yet).
    pub(crate) async fn sync_transcript(&mut self) {
        let totals = self.totals();
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.totals(totals);
            recorder.sync(true).await;
        }
    }

    /// An assistant message as soon as it is streamed, before its tools
    /// finish (a crash mid-tool then leaves a tool_use the reader answers
    /// as interrupted); its commit is not recorded again.
    pub(crate) fn record_streamed(&mut self, message: &Message) {
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.streamed(message);
        }
    }

    /// Records a compaction boundary. `Session::apply_compaction` (the
    /// compaction module) replaces the history and calls this with the new
    /// messages, so a resume starts from them.
    pub(crate) fn record_compaction(&mut self, record: CompactionRecord) {
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.compaction(record);
        }
    }

    fn totals(&self) -> Totals {
        Totals {
            usage: self.usage,
            total_cost_usd: self.total_cost_usd,
            turns: self.turns,
        }
    }

    /// The current todo list.
    pub fn todos(&self) -> Vec<TodoItem> {
        lock(&self.todos).clone()
    }

    /// Gives a tool_use a fresh id when its id is empty or was already used
    /// in this session: some OpenAI-compatible servers repeat ids (`call_0`
    /// every turn, or twice in one message), and a repeated id would pair a
    /// result with the wrong call or reuse an old frozen budget decision.
    /// `attempt_ids` holds the ids of the message being streamed (a voided
    /// attempt's ids never enter the history and are forgotten with it).
    pub(crate) fn make_tool_use_id_unique(
        &self,
        tool_use: &mut ToolUseBlock,
        attempt_ids: &mut HashSet<String>,
    ) {
        if tool_use.id.is_empty()
            || self.tool_use_ids.contains(&tool_use.id)
            || attempt_ids.contains(&tool_use.id)
        {
            let fresh = format!("toolu_orbit_{}", uuid::Uuid::new_v4().simple());
            tracing::debug!(from = %tool_use.id, to = %fresh, "renamed a repeated tool_use id");
            tool_use.id = fresh;
        }
        attempt_ids.insert(tool_use.id.clone());
    }

    /// Replaces the whole history by a compaction's (see
    /// [`CompactionBoundary`]): the one way compaction changes the history.
    /// The usage-based size estimate starts over.
    pub fn apply_compaction(&mut self, boundary: CompactionBoundary) {
        // The transcript's boundary: a resume starts from these messages.
        self.record_compaction(CompactionRecord {
            trigger: match boundary.trigger {
                CompactTrigger::Auto => CompactionTrigger::Auto,
                CompactTrigger::Manual => CompactionTrigger::Manual,
                CompactTrigger::Fallback => CompactionTrigger::Fallback,
            },
            tokens_before: boundary.pre_tokens,
            tokens_after: boundary.post_tokens,
            summary: boundary.summary.clone().unwrap_or_default(),
            messages: boundary.messages.clone(),
            loaded_tools: self.deferred.loaded(),
        });
        self.messages = boundary.messages;
        self.view.invalidate_from(0);
        self.context_anchor = None;
    }

    /// Appends a message to the history; a user message that follows a user
    /// message (e.g. a prompt after an answer that had no content) is merged
    /// into it, so roles alternate as the API requires.
    /// The message is recorded as given (the reader merges the same way).
    pub(crate) fn push_message(&mut self, message: Message) {
        if let Some(recorder) = self.recorder.as_mut() {
            let never_persisted = message
                .tool_results()
                .filter(|r| self.never_persisted_ids.contains(&r.tool_use_id))
                .map(|r| r.tool_use_id.clone())
                .collect();
            recorder.message(&message, never_persisted);
        }
        self.tool_use_ids
            .extend(message.tool_uses().map(|t| t.id.clone()));
        if !orbit_session::history::push_message(&mut self.messages, message) {
            // Merged into the last message: its view is stale.
            self.view
                .invalidate_from(self.messages.len().saturating_sub(1));
        }
    }
}
