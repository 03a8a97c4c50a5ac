//! The query loop (DESIGN §2: L1–L3, L4's `max_tokens` continuation and
//! prompt-too-long recovery, L5).
//!
//! Per model call: check limits → build the request (`crate::request`:
//! model, system prompt, the R2 budgeted view of the history, tool specs)
//! → compact first if it would pass the window's threshold (`compaction`,
//! over `crate::compact`) → `RequestStart` → send
//! it ([`QueryLoop::model_call`], in `call`) → stream. Each
//! `StreamEvent` is forwarded as `EngineEvent::Stream`; completed blocks go
//! to the [`MessageAssembler`], completed tool_uses at once to the
//! [`StreamingToolExecutor`]. After `message_stop` the assistant message is
//! emitted, the tools are awaited, and the assistant message plus ONE user
//! message with every tool_result (in tool_use order) are appended together.
//!
//! Decisions, each documented where it is made:
//! - L1: the loop continues only if the assistant message holds a tool_use;
//!   `stop_reason` is recorded, never trusted.
//! - L3 order after a call: interrupt → budget (`total_cost_usd >=
//!   max_budget_usd`, the session's cost as Claude Code checks it) → tool_use
//!   → `max_tokens` continuation → success. `max_turns` is checked before a
//!   call: the call that would exceed it is not made (the last turn's tool
//!   results are already appended, history stays paired).
//! - L4 `max_tokens`: a text answer cut by the token limit is continued with
//!   [`MAX_TOKENS_CONTINUE_MESSAGE`] at most [`MAX_OUTPUT_TOKENS_RECOVERY_LIMIT`]
//!   times; the answer is the concatenated text of the chain.
//! - `Retry` voids the attempt — unless it already started a call that may
//!   have a side effect (a tool not read-only by its facts). Then nothing is
//!   run twice: the retry is not made; the cut message's completed blocks are
//!   kept, its started tools are awaited and keep their real results, its
//!   unstarted calls are answered with [`STREAM_CUT_TOOL_NOT_RUN_MESSAGE`],
//!   and the loop goes on (the model sees what happened). An attempt that
//!   started only read-only calls is voided as before: its blocks are
//!   discarded, its tools cancelled and their results dropped. Either way
//!   its usage is counted (the API billed it) and its denials are kept.
//! - Every tool_use id is unique in the session: a block whose id was seen
//!   before (OpenAI-compatible servers repeat `call_0`) gets a fresh id
//!   before anything else sees it. Results are paired with tool_uses by
//!   position.
//! - An assistant message with no content never enters the history (the
//!   API rejects empty messages); a user message that would follow another
//!   user message is merged into it.
//! - L2 on a model error mid-stream: completed blocks are kept (the message
//!   only if it has content); tools already started are awaited (they passed
//!   validation and permission, their effects are real, and their true result
//!   keeps the transcript honest for `--resume`; an interrupt still cuts the
//!   wait), unstarted ones are answered with the error text (`is_error`).
//! - L4 prompt-too-long: when the API refuses the request as too long for
//!   the window, the history is compacted and the request retried once.
//! - After each call, the guards (`guards`): a valid `StructuredOutput`
//!   call ends the run with its input; an answer without one is reminded,
//!   up to `max_structured_output_retries` failures; the same tool call
//!   repeated `repeated_tool_call_limit` times in a row gets a reminder,
//!   twice that ends the run (cycles of up to three calls too); headless,
//!   the same call refused by the permission gate twice ends the run
//!   (`denied`).
//! - L5: an interrupt drops the model stream, answers running tools with
//!   `[Request interrupted by user for tool use]` and unstarted ones with the
//!   cancel text, appends the paired history and ends with
//!   `error_during_execution`, `interrupted: true`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::{EngineEvent, Message, PermissionDenial, Usage};
use orbit_tool::texts::engine::{
    MAX_TOKENS_CONTINUE_MESSAGE, STRUCTURED_OUTPUT_REQUIRED_REMINDER, repeated_tool_call_reminder,
};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::config::EngineConfig;
use crate::recovery::{ReplyChecks, StepRecord};
use crate::request::next_request;
use crate::runtime::ToolRuntime;
use crate::session::Session;
use crate::structured::StructuredOutput;

mod call;
mod compaction;
mod denied;
mod guards;
mod hook_calls;
mod outcome;

pub(crate) use compaction::compact_now;
use denied::DeniedGuard;
use guards::{RepeatGuard, RepeatVerdict, StructuredGuard, StructuredVerdict};
use outcome::Outcome;

/// L4: how often a text answer cut by `max_tokens` is continued.
pub const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT: u32 = 3;

const STOP_REASON_MAX_TOKENS: &str = "max_tokens";

/// How the model stream of one call stopped when it did not end the run.
enum StreamStop {
    /// `message_stop` arrived.
    MessageStop,
    /// The stream was cut and would be retried, but the attempt had already
    /// started a call that may have a side effect: keep it, do not retry.
    CutAfterSideEffects,
}

/// What the loop does after one stream event.
enum StreamStep {
    Continue,
    Stop(StreamStop),
}

/// What one run borrows from the engine.
pub(crate) struct QueryParts<'a> {
    pub(crate) config: &'a EngineConfig,
    pub(crate) client: &'a dyn ModelClient,
    pub(crate) runtime: &'a Arc<ToolRuntime>,
    pub(crate) session: &'a mut Session,
    /// The `StructuredOutput` tool's state, when the run must end with it.
    pub(crate) structured: Option<StructuredOutput>,
    /// The first prompt of a session: the SessionStart source to run.
    pub(crate) session_start: Option<&'static str>,
}

/// Runs one `submit_message`: the loop, then the terminal result event.
pub(crate) async fn run_query(
    parts: QueryParts<'_>,
    prompt: String,
    cancel: CancellationToken,
    tx: UnboundedSender<EngineEvent>,
) {
    query_hooks_begin(&parts, &tx);
    if let Some(hook) = &parts.runtime.checkpoints {
        hook.prompt_started();
    }
    let mut query = QueryLoop::new(parts, cancel, tx);
    let end = query.run(prompt).await;
    if let Outcome::ModelError(error) = &end {
        hook_calls::stop_failure(query.runtime, error, &query.answer).await;
    }
    query.runtime.hooks.end_turn();
    query.denials = query.session.take_denials();
    let result = query.terminal_result(end);
    query.session.record_result(&result).await;
    crate::checkpoint::prompt_finished(query.runtime.checkpoints.as_ref()).await;
    query.emit(EngineEvent::Result(result));
}

/// Hook reports of this turn go to its event channel.
fn query_hooks_begin(parts: &QueryParts<'_>, tx: &UnboundedSender<EngineEvent>) {
    parts.runtime.hooks.begin_turn(tx.clone());
}

struct QueryLoop<'a> {
    config: &'a EngineConfig,
    client: &'a dyn ModelClient,
    runtime: &'a Arc<ToolRuntime>,
    session: &'a mut Session,
    cancel: CancellationToken,
    tx: UnboundedSender<EngineEvent>,
    started: Instant,
    num_turns: u32,
    usage: Usage,
    /// Time spent inside model streams.
    api_time: Duration,
    denials: Vec<PermissionDenial>,
    stop_reason: Option<String>,
    /// The final answer so far (text of the last message, or of the
    /// `max_tokens` continuation chain).
    answer: String,
    /// `--json-schema`: the valid output the run ends with.
    structured_output: Option<Value>,
    structured: StructuredGuard,
    repeats: RepeatGuard,
    /// Headless: the same call refused twice ends the run.
    denied: DeniedGuard,
    /// tool_use ids of the message being streamed (see
    /// `QueryEngine::make_tool_use_id_unique`).
    attempt_ids: HashSet<String>,
    /// The SessionStart source, for the first prompt of a session.
    session_start: Option<&'static str>,
    /// A Stop hook already made the agent go on in this prompt.
    stop_hook_active: bool,
    /// This run's prompt, for a compaction in its middle to keep.
    request: String,
    /// The reply check's record of the step being committed (taken with
    /// each step).
    step: StepRecord,
}

impl<'a> QueryLoop<'a> {
    fn new(
        parts: QueryParts<'a>,
        cancel: CancellationToken,
        tx: UnboundedSender<EngineEvent>,
    ) -> Self {
        let QueryParts {
            config,
            client,
            runtime,
            session,
            structured,
            session_start,
        } = parts;
        Self {
            config,
            client,
            runtime,
            session,
            cancel,
            tx,
            started: Instant::now(),
            num_turns: 0,
            usage: Usage::default(),
            api_time: Duration::ZERO,
            denials: Vec::new(),
            stop_reason: None,
            answer: String::new(),
            structured_output: None,
            structured: StructuredGuard::new(structured),
            repeats: RepeatGuard::new(config.repeated_tool_call_limit),
            denied: DeniedGuard::new(runtime.approver.is_none()),
            attempt_ids: HashSet::new(),
            session_start,
            stop_hook_active: false,
            request: String::new(),
            step: StepRecord::default(),
        }
    }
}

impl QueryLoop<'_> {
    fn emit(&self, event: EngineEvent) {
        // The receiver is gone only when the embedder dropped the stream,
        // which also drops this future; nothing to do.
        let _ = self.tx.send(event);
    }

    async fn run(&mut self, prompt: String) -> Outcome {
        self.request.clone_from(&prompt);
        let message = match self.prompt_message(prompt).await {
            Ok(message) => message,
            Err(end) => return end,
        };
        self.session.push_message(message);
        let mut continuations = 0;
        let mut recovery = ReplyChecks::new(self.config.reply_check.clone(), &self.request);
        // L4: a prompt-too-long answer compacts and retries once per request.
        let mut compacted_for_too_long = false;
        loop {
            if self.cancel.is_cancelled() {
                return Outcome::Interrupted;
            }
            // The whole session's calls count, across resumes.
            if let Some(max) = self.config.max_turns
                && self.session.turns() >= max
            {
                return Outcome::MaxTurns(max);
            }
            let mut request = self.build_request().await;
            if let Some(tokens) = self.over_threshold(&request) {
                tracing::debug!(tokens, "the next request passes the threshold: compacting");
                if let Err(outcome) = self.compact(&request).await {
                    return outcome;
                }
                request = self.build_request().await;
            }
            // The transcript is on disk before the request leaves.
            self.session.start_model_call().await;
            self.num_turns += 1;
            self.emit(EngineEvent::RequestStart {
                turn: self.num_turns,
            });
            let loaded_before = self.session.deferred.loaded_count();
            // Send the request.
            let assistant = match self.model_call(&request).await {
                Ok(assistant) => assistant,
                Err(Outcome::ModelError(error))
                    if error.is_prompt_too_long() && !compacted_for_too_long =>
                {
                    tracing::warn!(%error, "prompt too long: compacting and retrying once");
                    compacted_for_too_long = true;
                    // The refused request was not a turn.
                    self.num_turns -= 1;
                    if let Err(outcome) = self.compact(&request).await {
                        return outcome;
                    }
                    continue;
                }
                Err(Outcome::ModelError(error)) if self.fall_back(&error) => {
                    // The refused request was not a turn; the same one
                    // goes to the fallback model.
                    self.num_turns -= 1;
                    continue;
                }
                Err(outcome) => return outcome,
            };
            compacted_for_too_long = false;
            if let Some(max) = self.config.max_budget_usd
                && self.session.total_cost_usd() >= max
            {
                return Outcome::MaxBudget(max);
            }
            // L1: a tool_use is the only reason to continue.
            if assistant.has_tool_use() {
                let mut step = std::mem::take(&mut self.step);
                step.facts.all_failed = self.last_tool_results_failed();
                step.facts.loaded_tools = self.session.deferred.loaded_count() > loaded_before;
                let results = self.session.messages().last();
                recovery.tool_step(step, &assistant.message, results);
                self.answer.clear();
                continuations = 0;
                if let Some(end) = self.after_tool_call(&assistant.message) {
                    return end;
                }
                if let Some(end) = self.post_tool_batch(&assistant.message).await {
                    return end;
                }
                if let Some(reason) = self.runtime.hooks.take_stop() {
                    return Outcome::HookStopped(reason);
                }
                continue;
            }
            self.answer.push_str(&assistant.message.text());
            let cut_by_limit = assistant.stop_reason.as_deref() == Some(STOP_REASON_MAX_TOKENS);
            if cut_by_limit && continuations < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT {
                continuations += 1;
                self.append_user(Message::user_text(MAX_TOKENS_CONTINUE_MESSAGE));
                continue;
            }
            // The profile's reply check (the small-model profile: a reply
            // that imitates a tool exchange or tells the user what to run
            // gets one short reminder).
            if let Some(reminder) = recovery.reminder_for(&self.answer) {
                self.answer.clear();
                self.append_user(Message::user_text(reminder));
                continue;
            }
            if let Some(questioned) = recovery.take_questioned() {
                self.answer = questioned;
            }
            match self.structured.after_call(&assistant.message, true) {
                StructuredVerdict::Continue => {
                    // Stop hooks may make the agent go on.
                    if let Some(reason) = self.stop_hooks().await {
                        self.answer.clear();
                        continuations = 0;
                        self.append_user(Message::user_text(reason));
                        continue;
                    }
                    if let Some(reason) = self.runtime.hooks.take_stop() {
                        return Outcome::HookStopped(reason);
                    }
                    return Outcome::Success;
                }
                StructuredVerdict::Done(value) => {
                    self.structured_output = Some(value);
                    return Outcome::Success;
                }
                StructuredVerdict::Remind => {
                    self.answer.clear();
                    continuations = 0;
                    self.append_user(Message::user_text(STRUCTURED_OUTPUT_REQUIRED_REMINDER));
                }
                StructuredVerdict::GiveUp(attempts) => {
                    return Outcome::MaxStructuredOutputRetries(attempts);
                }
            }
        }
    }

    /// Whether every result of the latest tool_result message is an error.
    fn last_tool_results_failed(&self) -> bool {
        self.session
            .messages()
            .iter()
            .rev()
            .find_map(|m| {
                let mut results = m.tool_results().peekable();
                results.peek()?;
                Some(results.all(|r| r.is_error()))
            })
            .unwrap_or(false)
    }

    /// The guards after a message with tool_uses, its results committed:
    /// Some(outcome) ends the run.
    fn after_tool_call(&mut self, message: &Message) -> Option<Outcome> {
        match self.structured.after_call(message, false) {
            StructuredVerdict::Done(value) => {
                self.answer = message.text();
                self.structured_output = Some(value);
                return Some(Outcome::Success);
            }
            StructuredVerdict::GiveUp(attempts) => {
                return Some(Outcome::MaxStructuredOutputRetries(attempts));
            }
            StructuredVerdict::Continue | StructuredVerdict::Remind => {}
        }
        if self.denied.is_on()
            && let Some(error) = self.denied.observe(self.refused_calls(message))
        {
            return Some(Outcome::DeniedTwice(error));
        }
        match self.repeats.observe(message.tool_uses()) {
            RepeatVerdict::Fine => None,
            RepeatVerdict::Remind { tool_name, count } => {
                self.append_user(Message::user_text(repeated_tool_call_reminder(
                    &tool_name, count,
                )));
                None
            }
            RepeatVerdict::Stop { tool_name, count } => {
                Some(Outcome::RepeatedToolCall { tool_name, count })
            }
        }
    }

    /// The calls of `message` the permission gate refused, each with the
    /// reason its tool_result gave the model.
    fn refused_calls(&self, message: &Message) -> Vec<denied::RefusedCall> {
        let ids: Vec<&str> = message.tool_uses().map(|t| t.id.as_str()).collect();
        let results = self.session.messages().last();
        self.runtime
            .denials_of(&ids)
            .into_iter()
            .map(|d| {
                let reason = results
                    .and_then(|m| m.tool_results().find(|r| r.tool_use_id == d.tool_use_id))
                    .map(|r| r.content.as_text())
                    .unwrap_or_default();
                let hint = self.allow_hint(&d.tool_name, &d.tool_use_id, &d.tool_input);
                (d.tool_name, d.tool_input, reason, hint)
            })
            .collect()
    }

    /// What would allow a refused call, from its facts (parsed again: only
    /// refused calls of a headless run get here).
    fn allow_hint(&self, name: &str, id: &str, input: &Value) -> denied::AllowHint {
        let block = orbit_protocol::ToolUseBlock {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
        };
        let facts =
            match crate::prepare::prepare(&self.runtime.tools, &block, None, &self.runtime.context)
            {
                crate::prepare::Prepared::Ready { facts, .. } => facts,
                crate::prepare::Prepared::Rejected(_) => orbit_tool::CallFacts::about(name),
            };
        denied::AllowHint {
            rule: orbit_permissions::suggested_rule(name, &facts)
                .unwrap_or_else(|| name.to_string()),
            edits_files: facts.command.is_none()
                && facts.network.is_none()
                && !facts.writes.is_empty(),
        }
    }

    async fn build_request(&mut self) -> ModelRequest {
        next_request(self.config, self.runtime, self.session).await
    }
}

/// Appends a user message to the history and reports it to the run
/// listening on `events`, if any.
fn append_user(
    session: &mut Session,
    events: Option<&UnboundedSender<EngineEvent>>,
    message: Message,
) {
    session.push_message(message.clone());
    if let Some(tx) = events {
        // The receiver is gone only when the embedder dropped the run.
        let _ = tx.send(EngineEvent::UserMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message,
        });
    }
}
