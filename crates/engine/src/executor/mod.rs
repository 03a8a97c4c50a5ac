//! The StreamingToolExecutor (DESIGN X3–X5, L5 for tools): tools start while
//! the model is still streaming.
//!
//! Data flow: the query loop hands each tool_use to [`StreamingToolExecutor::add_tool`]
//! the moment its `content_block_stop` arrives → [`prepare`] (lookup, JSON,
//! schema, safety) → queued → started at once when the start rule holds
//! (nothing executing, or it and everything executing are concurrency-safe,
//! and fewer than the cap are executing) — queued tools start in order, as
//! soon as the rule allows → each runs [`run_tool_use`](crate::orchestrator::run_tool_use) on its own tokio task
//! with a child of the turn's cancel token → completions and progress come
//! back through [`StreamingToolExecutor::next_event`], which the loop polls
//! alongside the model stream → results are released in tool_use order (X4)
//! as `ToolResult` events; the loop collects them all for the single user
//! message with [`StreamingToolExecutor::take_results`].
//!
//! This is the seed's `partition_tool_calls` (X1), applied as calls arrive:
//! consecutive concurrency-safe calls run together, any other call runs
//! alone. A call rejected by [`prepare`] counts as unsafe: it "runs" alone,
//! instantly. A provider that delivers a whole message at once simply adds
//! all its calls in a row and gets the same batches.
//!
//! Sibling abort (X5): a batch is the set of tools that executed together
//! (it begins when a tool starts while nothing executes). When a call whose
//! facts say `failure_cancels_siblings` (Bash's) returns an error, the
//! batch's other running calls with that fact that are not read-only are
//! cancelled and answered with `Cancelled: parallel tool call Bash(…) errored`;
//! read-only calls (every concurrent Bash call, since Bash is
//! concurrency-safe only when read-only) keep their own real results, as
//! in Claude Code 2.1.332. Other tools and later batches go on.
//!
//! Progress a tool reports on its `CallContext` becomes
//! `EngineEvent::ToolProgress` (`{"type":"output","output":…}` for output
//! chunks, the tool's JSON otherwise) or `EngineEvent::TodoUpdate`; only
//! progress of a still-running call is forwarded.
//!
//! A cancel (sibling abort, interrupt) only wins over a call that stopped
//! because of it: a call that had already finished keeps its real result
//! (see `ToolCallOutcome::completed`). [`StreamingToolExecutor::abort`]
//! awaits the cancelled calls, bounded by [`TOOL_STOP_TIMEOUT_MS`], so no
//! call acts after the turn reported it. Dropping the executor (a `Retry`
//! voided an attempt that started only read-only calls, or the embedder
//! dropped the turn) cancels every running tool and forgets its result.
//!
//! Layout: this file holds the executor's state and the interface the loop
//! calls; `tracked` one call's state and facts; `schedule` the start rule,
//! task completion, sibling abort and in-order release.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use orbit_protocol::{EngineEvent, ToolResultBlock, ToolUseBlock};
use orbit_tool::{ResultLimit, ToolProgress};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::{Id as TaskId, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::orchestrator::ToolCallOutcome;
use crate::prepare::prepare;
use crate::runtime::ToolRuntime;
use orbit_tool::texts::engine::{CANCEL_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE};
use tracked::{ToolStatus, TrackedTool};

mod schedule;
mod tracked;

/// After an interrupt, how long the turn waits for cancelled tools to stop
/// (kill their process groups, skip their writes) before it ends without
/// them. Tools that honour their cancel token stop within milliseconds; the
/// bound only matters for one that ignores it.
pub(crate) const TOOL_STOP_TIMEOUT_MS: u64 = 5_000;

/// Runs the tool_uses of one model response as they stream in (X1 start rule, X2 concurrency limit) and releases their results in tool_use order (X4).
pub struct StreamingToolExecutor {
    runtime: Arc<ToolRuntime>,
    /// The turn's token; each tool gets a child.
    turn_cancel: CancellationToken,
    tools: Vec<TrackedTool>,
    tasks: JoinSet<ToolCallOutcome>,
    task_owner: HashMap<TaskId, usize>,
    progress_tx: UnboundedSender<(String, ToolProgress)>,
    progress_rx: UnboundedReceiver<(String, ToolProgress)>,
    outbox: VecDeque<EngineEvent>,
    /// Index of the next result to release (X4).
    next_release: usize,
    batch_counter: u64,
    /// Once set, nothing more starts: queued and new tools get this error text.
    closed: Option<String>,
}

impl StreamingToolExecutor {
    /// An executor for one model response; tools get child tokens of `turn_cancel`.
    pub(crate) fn new(runtime: Arc<ToolRuntime>, turn_cancel: CancellationToken) -> Self {
        let (progress_tx, progress_rx) = unbounded_channel();
        Self {
            runtime,
            turn_cancel,
            tools: Vec::new(),
            tasks: JoinSet::new(),
            task_owner: HashMap::new(),
            progress_tx,
            progress_rx,
            outbox: VecDeque::new(),
            next_release: 0,
            batch_counter: 0,
            closed: None,
        }
    }

    /// A complete tool_use from the stream; starts it now if the rule allows.
    pub fn add_tool(&mut self, block: ToolUseBlock, invalid_input: Option<String>) {
        let prepared = prepare(
            &self.runtime.tools,
            &block,
            invalid_input.as_deref(),
            &self.runtime.context,
        );
        let cancel = self.turn_cancel.child_token();
        self.tools.push(TrackedTool::new(block, prepared, cancel));
        self.process_queue();
    }

    /// Number of tool_uses handed to the executor.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool_use was handed to the executor.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether every tool has its result.
    pub fn is_finished(&self) -> bool {
        self.tools.iter().all(|t| t.status == ToolStatus::Done)
    }

    /// An event that is ready now (ToolStarted, a released ToolResult), without waiting.
    pub fn pop_ready_event(&mut self) -> Option<EngineEvent> {
        self.outbox.pop_front()
    }

    /// The next event: ready ones first, else waits for progress or a
    /// completion. `None` once nothing runs and nothing is left to report.
    /// Cancel-safe (may be raced against the model stream in `select!`).
    pub async fn next_event(&mut self) -> Option<EngineEvent> {
        loop {
            if let Some(event) = self.outbox.pop_front() {
                return Some(event);
            }
            if self.tasks.is_empty() {
                return None;
            }
            tokio::select! {
                biased;
                Some((id, progress)) = self.progress_rx.recv() => self.on_progress(&id, progress),
                Some(joined) = self.tasks.join_next_with_id() => match joined {
                    Ok((task, outcome)) => self.on_task_done(task, Ok(outcome)),
                    Err(error) => self.on_task_done(error.id(), Err(error)),
                },
                else => return None,
            }
        }
    }

    /// Stops starting tools: queued ones and any added later are answered
    /// with `text` (is_error). Running ones continue (the model-error path
    /// awaits them, see `query`).
    pub fn close(&mut self, text: &str) {
        self.closed = Some(text.to_string());
        for t in &mut self.tools {
            if t.status == ToolStatus::Queued {
                t.status = ToolStatus::Done;
                t.result = Some(ToolResultBlock::text(&t.block.id, text, true));
            }
        }
        self.release_ready();
    }

    /// L5: cancels every running tool and answers unstarted ones with the
    /// cancel text, then waits (at most `TOOL_STOP_TIMEOUT_MS`) for the
    /// running ones to stop. A tool that finished before its token fired
    /// keeps its real result; one that stopped because of the abort is
    /// answered with the interrupt text. A tool still running at the bound
    /// is answered with the interrupt text too and left to finish on its
    /// own (logged): tools check their token before any side effect, so in
    /// practice only a tool that ignores cancellation gets there.
    pub async fn abort(&mut self) {
        self.closed = Some(CANCEL_MESSAGE.to_string());
        for t in &mut self.tools {
            match t.status {
                ToolStatus::Executing => {
                    t.cancel.cancel();
                    if t.forced_result.is_none() {
                        t.forced_result = Some(ToolResultBlock::text(
                            &t.block.id,
                            INTERRUPT_MESSAGE_FOR_TOOL_USE,
                            true,
                        ));
                    }
                }
                ToolStatus::Queued => {
                    t.status = ToolStatus::Done;
                    t.result = Some(ToolResultBlock::text(&t.block.id, CANCEL_MESSAGE, true));
                }
                ToolStatus::Done => {}
            }
        }
        let deadline = tokio::time::Instant::now() + Duration::from_millis(TOOL_STOP_TIMEOUT_MS);
        while !self.tasks.is_empty() {
            match tokio::time::timeout_at(deadline, self.tasks.join_next_with_id()).await {
                Ok(Some(Ok((task, outcome)))) => self.on_task_done(task, Ok(outcome)),
                Ok(Some(Err(error))) => self.on_task_done(error.id(), Err(error)),
                Ok(None) => break,
                Err(_) => {
                    tracing::warn!(
                        running = self.tasks.len(),
                        "tools did not stop within {TOOL_STOP_TIMEOUT_MS} ms of the interrupt"
                    );
                    break;
                }
            }
        }
        for t in &mut self.tools {
            if t.status == ToolStatus::Executing {
                t.status = ToolStatus::Done;
                t.result = t.forced_result.take();
            }
        }
        self.tasks.detach_all();
        self.release_ready();
    }

    /// The result of every tool_use handed in, by position (the order of
    /// `add_tool` calls = the order of the blocks in the message); `None`
    /// for a call that has no result (it never finished).
    pub fn take_results(&mut self) -> Vec<Option<ToolResultBlock>> {
        self.tools.iter_mut().map(|t| t.result.take()).collect()
    }

    /// The ids of calls whose tool never has its results persisted (its
    /// fact `max_result_size_chars() == usize::MAX`): the per-message budget
    /// leaves those results alone.
    pub fn never_persisted_ids(&self) -> Vec<String> {
        self.tools
            .iter()
            .filter(|t| {
                t.tool
                    .as_ref()
                    .is_some_and(|tool| tool.result_limit() == ResultLimit::NeverPersist)
            })
            .map(|t| t.block.id.clone())
            .collect()
    }

    /// Whether a call that may have a side effect (not read-only by its
    /// tool's facts) has started in this attempt. A retry must not run such
    /// a response again (see `query`).
    pub fn has_started_side_effects(&self) -> bool {
        self.tools
            .iter()
            .any(|t| t.started && t.may_have_side_effects())
    }

    /// Whether a started call may have written a file: one with a side
    /// effect that did not report it changed no file (for the reply check;
    /// a retry decision uses [`Self::has_started_side_effects`]).
    pub fn may_have_written(&self) -> bool {
        self.tools.iter().any(|t| t.may_have_written())
    }

    /// Whether a started call runs a command (its facts name one).
    pub fn ran_command(&self) -> bool {
        self.tools
            .iter()
            .any(|t| t.started && t.facts.as_ref().is_some_and(|f| f.command.is_some()))
    }

    /// The files the started calls name as written (their facts'
    /// `writes`), in call order.
    pub fn written_paths(&self) -> Vec<std::path::PathBuf> {
        self.tools
            .iter()
            .filter(|t| t.started)
            .filter_map(|t| t.facts.as_ref())
            .flat_map(|f| f.writes.iter().cloned())
            .collect()
    }

    /// Whether every call of the attempt ran and succeeded with no visible
    /// output (for the reply check: such a step holds no answer).
    pub fn printed_nothing(&self) -> bool {
        !self.tools.is_empty() && self.tools.iter().all(|t| t.started && t.printed_nothing)
    }
}

impl Drop for StreamingToolExecutor {
    fn drop(&mut self) {
        for t in &self.tools {
            if t.status == ToolStatus::Executing {
                t.cancel.cancel();
            }
        }
        // Let cancelled tools stop gracefully (kill their processes) rather
        // than dropping their futures mid-way.
        self.tasks.detach_all();
    }
}
