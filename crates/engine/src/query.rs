//! The query loop (DESIGN §2: L1–L3, L4's `max_tokens` continuation, L5).
//!
//! Per model call: check limits → build the request (system prompt, the R2
//! budgeted view of the history, tool specs) → `RequestStart` → stream. Each
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
//! - L5: an interrupt drops the model stream, answers running tools with
//!   `[Request interrupted by user for tool use]` and unstarted ones with the
//!   cancel text, appends the paired history and ends with
//!   `error_during_execution`, `interrupted: true`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use orbit_model::{ModelClient, ModelError, ModelRequest, ToolSpec};
use orbit_protocol::{
    ContentBlock, EngineEvent, Message, PermissionDenial, ResultSubtype, StreamEvent,
    TerminalResult, ToolResultBlock, Usage,
};
use orbit_tool::ToolRegistry;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::assemble::{AssembledMessage, MessageAssembler};
use crate::engine::EngineConfig;
use crate::executor::StreamingToolExecutor;
use crate::orchestrator::ToolRuntime;
use crate::recovery::Recovery;
use crate::results::enforce_tool_result_budget;
use crate::session::Session;
use orbit_tool::texts::engine::{
    INTERRUPT_MESSAGE, MAX_TOKENS_CONTINUE_MESSAGE, STREAM_CUT_TOOL_NOT_RUN_MESSAGE,
    max_budget_error, max_turns_error,
};

/// L4: how often a text answer cut by `max_tokens` is continued.
pub const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT: u32 = 3;

const STOP_REASON_MAX_TOKENS: &str = "max_tokens";

/// How a run ends: the one typed outcome the terminal result is built from.
/// A model error keeps its type until the result is written.
enum Outcome {
    Success,
    MaxTurns(u32),
    MaxBudget(f64),
    ModelError(ModelError),
    Interrupted,
}

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
}

/// The tool specs of a request, computed per request from the registry
/// (tools enabled or added mid-session are sent from the next request on).
pub(crate) fn tool_specs(tools: &ToolRegistry) -> Vec<ToolSpec> {
    tools
        .tools()
        .map(|t| ToolSpec {
            name: t.name().to_string(),
            description: t.description().to_string(),
            input_schema: t.input_schema().clone(),
        })
        .collect()
}

/// Runs one `submit_message`: the loop, then the terminal result event.
pub(crate) async fn run_query(
    parts: QueryParts<'_>,
    prompt: String,
    cancel: CancellationToken,
    tx: UnboundedSender<EngineEvent>,
) {
    let QueryParts {
        config,
        client,
        runtime,
        session,
    } = parts;
    let mut query = QueryLoop {
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
        attempt_ids: HashSet::new(),
    };
    let end = query.run(prompt).await;
    query.denials = query.runtime.take_denials();
    let result = query.terminal_result(end);
    query.emit(EngineEvent::Result(result));
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
    /// tool_use ids of the message being streamed (see
    /// `QueryEngine::make_tool_use_id_unique`).
    attempt_ids: HashSet<String>,
}

impl QueryLoop<'_> {
    fn emit(&self, event: EngineEvent) {
        // The receiver is gone only when the embedder dropped the stream,
        // which also drops this future; nothing to do.
        let _ = self.tx.send(event);
    }

    async fn run(&mut self, prompt: String) -> Outcome {
        self.session.push_message(Message::user_text(prompt));
        let mut continuations = 0;
        let mut recovery = Recovery::new(self.config.recovery_reminders);
        loop {
            if self.cancel.is_cancelled() {
                return Outcome::Interrupted;
            }
            if let Some(max) = self.config.max_turns
                && self.num_turns >= max
            {
                return Outcome::MaxTurns(max);
            }
            let request = self.build_request().await;
            self.num_turns += 1;
            self.emit(EngineEvent::RequestStart {
                turn: self.num_turns,
            });
            let assistant = match self.model_call(&request).await {
                Ok(assistant) => assistant,
                Err(outcome) => return outcome,
            };
            if let Some(max) = self.config.max_budget_usd
                && self.session.total_cost_usd >= max
            {
                return Outcome::MaxBudget(max);
            }
            // L1: a tool_use is the only reason to continue.
            if assistant.has_tool_use() {
                recovery.tool_ran();
                self.answer.clear();
                continuations = 0;
                continue;
            }
            self.answer.push_str(&assistant.message.text());
            let cut_by_limit = assistant.stop_reason.as_deref() == Some(STOP_REASON_MAX_TOKENS);
            if cut_by_limit && continuations < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT {
                continuations += 1;
                self.append_user(Message::user_text(MAX_TOKENS_CONTINUE_MESSAGE));
                continue;
            }
            if let Some(reminder) = recovery.reminder_for(&self.answer) {
                self.answer.clear();
                self.append_user(Message::user_text(reminder));
                continue;
            }
            return Outcome::Success;
        }
    }

    async fn build_request(&mut self) -> ModelRequest {
        let session = &mut *self.session;
        let never_persisted = &session.never_persisted_ids;
        let skip = |id: &str| never_persisted.contains(id);
        let messages = enforce_tool_result_budget(
            &session.messages,
            &mut session.replacement_state,
            self.config.tool_result_budget_chars,
            &self.runtime.storage,
            &skip,
        )
        .await;
        ModelRequest {
            model: self.config.model.clone(),
            system: self.config.system_prompt.clone(),
            messages,
            tools: tool_specs(&self.runtime.tools),
            max_tokens: self.config.max_tokens,
            temperature: self.config.temperature,
            seed: self.config.seed,
        }
    }

    /// One model call and its tools; appends the paired history. `Err` is
    /// how the run ends (a model error, an interrupt).
    async fn model_call(&mut self, request: &ModelRequest) -> Result<AssembledMessage, Outcome> {
        let runtime = Arc::clone(self.runtime);
        let mut executor = StreamingToolExecutor::new(runtime, self.cancel.clone());
        self.attempt_ids.clear();
        let mut assembler = MessageAssembler::new();
        let api_start = Instant::now();
        let mut stream = self.client.stream(request);
        let end = loop {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => break Err(Outcome::Interrupted),
                item = stream.next() => match item {
                    Some(Ok(event)) => {
                        if let StreamStep::Stop(stop) =
                            self.on_stream_event(event, &mut assembler, &mut executor)
                        {
                            break Ok(stop);
                        }
                    }
                    Some(Err(error)) => break Err(Outcome::ModelError(error)),
                    None => break Err(Outcome::ModelError(ModelError::StreamCut)),
                },
                Some(event) = executor.next_event() => self.emit(event),
            }
        };
        // Dropping the stream cancels the HTTP request (abort, error).
        drop(stream);
        self.api_time += api_start.elapsed();
        let assistant = assembler.finish();
        self.record_usage(&assistant, &request.model);

        match end {
            Ok(StreamStop::MessageStop) => {
                self.emit_assistant(&assistant);
                let interrupted = self.await_tools(&mut executor).await;
                self.commit(&assistant, &mut executor, INTERRUPT_MESSAGE);
                if interrupted {
                    Err(Outcome::Interrupted)
                } else {
                    Ok(assistant)
                }
            }
            Ok(StreamStop::CutAfterSideEffects) => {
                tracing::warn!(
                    "model stream cut after a tool with side effects started; \
                     keeping the cut message instead of retrying"
                );
                executor.close(STREAM_CUT_TOOL_NOT_RUN_MESSAGE);
                self.emit_assistant(&assistant);
                let interrupted = self.await_tools(&mut executor).await;
                self.commit(&assistant, &mut executor, STREAM_CUT_TOOL_NOT_RUN_MESSAGE);
                if interrupted {
                    Err(Outcome::Interrupted)
                } else {
                    Ok(assistant)
                }
            }
            Err(Outcome::Interrupted) => {
                executor.abort().await;
                self.drain_ready(&mut executor);
                if !assistant.message.content.is_empty() {
                    self.emit_assistant(&assistant);
                    self.commit(&assistant, &mut executor, INTERRUPT_MESSAGE);
                }
                Err(Outcome::Interrupted)
            }
            Err(outcome) => {
                // A model error: unstarted calls are answered with its text;
                // started ones are awaited (their effects are real).
                let message = match &outcome {
                    Outcome::ModelError(error) => error.to_string(),
                    _ => INTERRUPT_MESSAGE.to_string(),
                };
                executor.close(&message);
                let interrupted = self.await_tools(&mut executor).await;
                if !assistant.message.content.is_empty() {
                    self.emit_assistant(&assistant);
                    self.commit(&assistant, &mut executor, &message);
                }
                if interrupted {
                    Err(Outcome::Interrupted)
                } else {
                    Err(outcome)
                }
            }
        }
    }

    /// Handles one stream event: feeds the assembler and the executor and
    /// forwards it; ends the stream at `message_stop`, or at a retry that
    /// must not happen (see the module docs).
    fn on_stream_event(
        &mut self,
        mut event: StreamEvent,
        assembler: &mut MessageAssembler,
        executor: &mut StreamingToolExecutor,
    ) -> StreamStep {
        match &mut event {
            StreamEvent::Retry { .. } => {
                if executor.has_started_side_effects() {
                    return StreamStep::Stop(StreamStop::CutAfterSideEffects);
                }
                // The attempt is void: cancel what it started, forget its
                // results and ids (its denials are recorded by the runtime).
                self.attempt_ids.clear();
                *executor =
                    StreamingToolExecutor::new(Arc::clone(self.runtime), self.cancel.clone());
            }
            StreamEvent::ContentBlockComplete {
                block: ContentBlock::ToolUse(tool_use),
                invalid_input,
                ..
            } => {
                self.session
                    .make_tool_use_id_unique(tool_use, &mut self.attempt_ids);
                executor.add_tool(tool_use.clone(), invalid_input.clone());
            }
            _ => {}
        }
        assembler.apply(&event);
        self.emit(EngineEvent::Stream(event));
        self.drain_ready(executor);
        if assembler.is_stopped() {
            StreamStep::Stop(StreamStop::MessageStop)
        } else {
            StreamStep::Continue
        }
    }

    fn drain_ready(&self, executor: &mut StreamingToolExecutor) {
        while let Some(event) = executor.pop_ready_event() {
            self.emit(event);
        }
    }

    /// Waits for every tool, forwarding events; on interrupt aborts them.
    /// Returns whether the turn was interrupted.
    async fn await_tools(&mut self, executor: &mut StreamingToolExecutor) -> bool {
        loop {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => {
                    executor.abort().await;
                    self.drain_ready(executor);
                    return true;
                }
                event = executor.next_event() => match event {
                    Some(event) => self.emit(event),
                    None => return false,
                },
            }
        }
    }

    fn record_usage(&mut self, assistant: &AssembledMessage, request_model: &str) {
        let model = assistant.model.as_deref().unwrap_or(request_model);
        self.usage.add(&assistant.billed_usage);
        self.session.usage.add(&assistant.billed_usage);
        self.session.total_cost_usd +=
            orbit_model::pricing::cost_usd(model, &assistant.billed_usage);
        if assistant.stop_reason.is_some() {
            self.stop_reason = assistant.stop_reason.clone();
        }
    }

    fn emit_assistant(&self, assistant: &AssembledMessage) {
        self.emit(EngineEvent::AssistantMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message: assistant.message.clone(),
            message_id: assistant.message_id.clone(),
            model: assistant
                .model
                .clone()
                .unwrap_or_else(|| self.config.model.clone()),
            stop_reason: assistant.stop_reason.clone(),
            usage: assistant.usage,
        });
    }

    /// Appends the assistant message and, when it called tools, one user
    /// message answering every tool_use in order (L2). Results are paired
    /// with tool_uses by position (ids are unique, see
    /// `make_tool_use_id_unique`, but position is what the executor keeps);
    /// a tool_use the executor has no result for gets `missing_text` as an
    /// error. An empty assistant message is never appended.
    fn commit(
        &mut self,
        assistant: &AssembledMessage,
        executor: &mut StreamingToolExecutor,
        missing_text: &str,
    ) {
        self.session
            .never_persisted_ids
            .extend(executor.never_persisted_ids());
        let mut by_position = executor.take_results();
        let results: Vec<ContentBlock> = assistant
            .message
            .tool_uses()
            .enumerate()
            .map(|(i, tool_use)| {
                // Blocks complete in message order, so position i is the
                // result; the id check only guards a stream that completed
                // blocks out of order.
                let at = if matches!(by_position.get(i), Some(Some(r)) if r.tool_use_id == tool_use.id)
                {
                    Some(i)
                } else {
                    by_position
                        .iter()
                        .position(|r| matches!(r, Some(r) if r.tool_use_id == tool_use.id))
                };
                let result = at
                    .and_then(|j| by_position[j].take())
                    .unwrap_or_else(|| ToolResultBlock::text(&tool_use.id, missing_text, true));
                ContentBlock::ToolResult(result)
            })
            .collect();
        if assistant.message.content.is_empty() {
            return;
        }
        self.session.push_message(assistant.message.clone());
        if !results.is_empty() {
            self.append_user(Message::user(results));
        }
    }

    fn append_user(&mut self, message: Message) {
        self.session.push_message(message.clone());
        self.emit(EngineEvent::UserMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message,
        });
    }

    fn terminal_result(&self, end: Outcome) -> TerminalResult {
        let (subtype, errors, interrupted) = match end {
            Outcome::Success => (ResultSubtype::Success, Vec::new(), false),
            Outcome::MaxTurns(max) => (
                ResultSubtype::ErrorMaxTurns,
                vec![max_turns_error(max)],
                false,
            ),
            Outcome::MaxBudget(max) => (
                ResultSubtype::ErrorMaxBudgetUsd,
                vec![max_budget_error(max)],
                false,
            ),
            Outcome::ModelError(error) => (
                ResultSubtype::ErrorDuringExecution,
                vec![error.to_string()],
                false,
            ),
            Outcome::Interrupted => (
                ResultSubtype::ErrorDuringExecution,
                vec![INTERRUPT_MESSAGE.to_string()],
                true,
            ),
        };
        TerminalResult {
            subtype,
            num_turns: self.num_turns,
            duration_ms: millis(self.started.elapsed()),
            duration_api_ms: millis(self.api_time),
            total_cost_usd: self.session.total_cost_usd,
            usage: self.usage,
            result: if subtype == ResultSubtype::Success {
                self.answer.clone()
            } else {
                String::new()
            },
            stop_reason: self.stop_reason.clone(),
            permission_denials: self.denials.clone(),
            errors,
            interrupted,
            structured_output: None,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
