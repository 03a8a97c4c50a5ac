//! One model call of the loop and what follows it: stream the response
//! (feeding the [`MessageAssembler`] and the [`StreamingToolExecutor`]),
//! decide what a cut stream or a retry means, await the tools, count the
//! usage, and commit the assistant message with ONE user message of its
//! results (L2). The rules are in the parent module's docs.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use orbit_model::{ModelError, ModelRequest};
use orbit_protocol::{ContentBlock, EngineEvent, Message, StreamEvent, ToolResultBlock};
use orbit_tool::texts::engine::{INTERRUPT_MESSAGE, STREAM_CUT_TOOL_NOT_RUN_MESSAGE};

use super::outcome::Outcome;
use super::{QueryLoop, StreamStep, StreamStop};
use crate::assemble::{AssembledMessage, MessageAssembler};
use crate::compact::ContextAnchor;
use crate::executor::StreamingToolExecutor;

impl QueryLoop<'_> {
    /// One model call and its tools; appends the paired history. `Err` is
    /// how the run ends (a model error, an interrupt).
    pub(super) async fn model_call(
        &mut self,
        request: &ModelRequest,
    ) -> Result<AssembledMessage, Outcome> {
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
            Ok(stop) => {
                // What a call that never ran is answered with: the
                // interrupt text, or after a cut stream the not-run text.
                let not_run = match stop {
                    StreamStop::MessageStop => INTERRUPT_MESSAGE,
                    StreamStop::CutAfterSideEffects => {
                        tracing::warn!(
                            "model stream cut after a tool with side effects started; \
                             keeping the cut message instead of retrying"
                        );
                        executor.close(STREAM_CUT_TOOL_NOT_RUN_MESSAGE);
                        STREAM_CUT_TOOL_NOT_RUN_MESSAGE
                    }
                };
                self.emit_assistant(&assistant);
                let interrupted = self.await_tools(&mut executor).await;
                self.commit(&assistant, &mut executor, not_run);
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

    /// Switches to the fallback model when `error` says the main model is
    /// overloaded (after the client's retries) and a fallback is configured
    /// and not in use yet; announces it. Whether it switched.
    pub(super) fn fall_back(&mut self, error: &ModelError) -> bool {
        let Some(fallback) = self.config.fallback_model.as_ref() else {
            return false;
        };
        if !error.is_overloaded() || self.session.on_fallback() {
            return false;
        }
        tracing::warn!(%error, %fallback, "main model overloaded: switching to the fallback model");
        self.session.set_fallback(Some(fallback.clone()));
        self.emit(EngineEvent::ModelFallback {
            original_model: self.config.model.clone(),
            fallback_model: fallback.clone(),
        });
        true
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
        self.usage.add(&assistant.billed_usage);
        self.session.add_billed(
            assistant.model.as_deref(),
            request_model,
            &assistant.billed_usage,
        );
        if assistant.stop_reason.is_some() {
            self.stop_reason = assistant.stop_reason.clone();
        }
    }

    fn emit_assistant(&mut self, assistant: &AssembledMessage) {
        self.session.record_streamed(&assistant.message);
        self.emit(EngineEvent::AssistantMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message: assistant.message.clone(),
            message_id: assistant.message_id.clone(),
            model: assistant
                .model
                .clone()
                .unwrap_or_else(|| self.session.model(self.config).to_string()),
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
        self.step.may_have_written |= executor.may_have_written();
        // Only a reply check reads them (per step, on every turn).
        if self.config.reply_check.is_some() {
            self.step.written.extend(executor.written_paths());
        }
        self.step.ran_command |= executor.ran_command();
        self.step.facts.printed_nothing = executor.printed_nothing();
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
        // The reported usage counts the history up to here (compaction's
        // estimate starts from it).
        self.session.context_anchor =
            ContextAnchor::from_usage(&assistant.usage, self.session.messages.len());
        if !results.is_empty() {
            self.append_user(Message::user(results));
        }
    }

    pub(super) fn append_user(&mut self, message: Message) {
        super::append_user(self.session, Some(&self.tx), message);
    }
}
