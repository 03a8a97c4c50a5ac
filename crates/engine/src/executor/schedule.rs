//! How the executor moves calls along: the X3 start rule with the X2 cap
//! (`process_queue` starts queued calls in order while it holds), starting a
//! call on its own task, forwarding progress of running calls, deciding a
//! finished call's result (a cancel only wins over a call that stopped
//! because of it), the X5 sibling abort, and releasing results in tool_use
//! order (X4) into the outbox that `next_event` drains.

use std::sync::Arc;

use orbit_protocol::{EngineEvent, ToolResultBlock};
use orbit_tool::{CallContext, ToolProgress};
use serde_json::json;
use tokio::task::{Id as TaskId, JoinError};

use super::StreamingToolExecutor;
use super::tracked::{Pending, ToolStatus, TrackedTool};
use crate::orchestrator::{ToolCallOutcome, run_tool_use};
use orbit_tool::texts::engine::{
    INTERRUPT_MESSAGE_FOR_TOOL_USE, TASK_CANCELLED_DETAIL, UNKNOWN_PANIC_DETAIL,
    sibling_error_message, tool_panic_error,
};

impl StreamingToolExecutor {
    fn executing(&self) -> impl Iterator<Item = &TrackedTool> {
        self.tools
            .iter()
            .filter(|t| t.status == ToolStatus::Executing)
    }

    /// X3's start rule plus the X2 cap.
    fn can_execute(&self, is_concurrency_safe: bool) -> bool {
        let executing = self.executing().count();
        executing == 0
            || (is_concurrency_safe
                && executing < self.runtime.max_concurrency.max(1)
                && self.executing().all(TrackedTool::is_concurrency_safe))
    }

    /// Starts queued tools in order while the rule allows.
    pub(super) fn process_queue(&mut self) {
        if let Some(text) = self.closed.clone() {
            self.close(&text);
            return;
        }
        for i in 0..self.tools.len() {
            if self.tools[i].status != ToolStatus::Queued {
                continue;
            }
            if !self.can_execute(self.tools[i].is_concurrency_safe()) {
                break;
            }
            self.start(i);
        }
        self.release_ready();
    }

    fn start(&mut self, i: usize) {
        if self.executing().next().is_none() {
            self.batch_counter += 1;
        }
        let batch = self.batch_counter;
        let progress = self.progress_tx.clone();
        let runtime = Arc::clone(&self.runtime);
        let t = &mut self.tools[i];
        t.batch = batch;
        match std::mem::replace(&mut t.pending, Pending::Taken) {
            Pending::Rejected(text) => {
                t.status = ToolStatus::Done;
                t.result = Some(ToolResultBlock::text(&t.block.id, text, true));
            }
            Pending::Taken => {
                // A call starts once; reaching this again is a bug, answered
                // rather than run twice.
                t.status = ToolStatus::Done;
                t.result = Some(ToolResultBlock::text(
                    &t.block.id,
                    INTERRUPT_MESSAGE_FOR_TOOL_USE,
                    true,
                ));
            }
            Pending::Call(prepared) => {
                let Some(tool) = t.tool.clone() else {
                    return;
                };
                t.status = ToolStatus::Executing;
                t.started = true;
                let original = t.block.input.clone();
                let call = CallContext::new(&t.block.id, t.cancel.clone(), Some(progress));
                self.outbox.push_back(EngineEvent::ToolStarted {
                    tool_use_id: t.block.id.clone(),
                    name: tool.name().to_string(),
                });
                let handle = self.tasks.spawn(async move {
                    run_tool_use(&runtime, tool, prepared, original, call).await
                });
                self.task_owner.insert(handle.id(), i);
            }
        }
    }

    pub(super) fn on_progress(&mut self, tool_use_id: &str, progress: ToolProgress) {
        let running = self
            .tools
            .iter()
            .any(|t| t.block.id == tool_use_id && t.status == ToolStatus::Executing);
        if !running {
            return;
        }
        let tool_use_id = tool_use_id.to_string();
        self.outbox.push_back(match progress {
            ToolProgress::Todos(todos) => EngineEvent::TodoUpdate { todos },
            ToolProgress::Output(output) => EngineEvent::ToolProgress {
                tool_use_id,
                data: json!({ "type": "output", "output": output }),
            },
            ToolProgress::Other(data) => EngineEvent::ToolProgress { tool_use_id, data },
        });
    }

    pub(super) fn on_task_done(
        &mut self,
        task: TaskId,
        joined: Result<ToolCallOutcome, JoinError>,
    ) {
        let Some(i) = self.task_owner.remove(&task) else {
            return;
        };
        if self.tools[i].status == ToolStatus::Done {
            // Already answered (interrupt); the tool's own result is dropped.
            return;
        }
        let (result, tool_failed, finished, detail, effects) = match joined {
            Ok(outcome) => (
                outcome.result,
                outcome.tool_failed,
                outcome.completed,
                outcome.detail,
                (outcome.changed_nothing, outcome.printed_nothing),
            ),
            Err(error) => {
                let text = tool_panic_error(self.tools[i].tool_name(), &join_error_detail(error));
                (
                    ToolResultBlock::text(&self.tools[i].block.id, text, true),
                    true,
                    true,
                    None,
                    (false, false),
                )
            }
        };
        let t = &mut self.tools[i];
        // A call that finished before its token fired keeps its real result,
        // even if a cancel (sibling abort, interrupt) was decided meanwhile.
        let forced = t.forced_result.take();
        let was_cancelled = forced.is_some() && !finished;
        t.result = Some(match forced {
            Some(forced) if !finished => forced,
            _ => {
                t.detail = detail;
                (t.changed_nothing, t.printed_nothing) = effects;
                result
            }
        });
        t.status = ToolStatus::Done;
        if tool_failed && !was_cancelled && t.cancels_siblings() {
            self.abort_siblings(i);
        }
        self.process_queue();
    }

    /// X5: cancels the running calls of tool `failed`'s batch that share its
    /// fact `failure_cancels_siblings` and may have a side effect (shell
    /// commands of one batch often depend on each other; independent tools
    /// go on). A read-only sibling is never cancelled, as in Claude Code
    /// 2.1.332: it changes nothing, so stopping it saves nothing and would
    /// hide its real result (an `ls` error text) from the model.
    fn abort_siblings(&mut self, failed: usize) {
        let batch = self.tools[failed].batch;
        let failed_tool = &self.tools[failed];
        let subject = failed_tool
            .facts
            .as_ref()
            .map_or("", |f| f.subject.as_str());
        let text = sibling_error_message(failed_tool.tool_name(), subject);
        for (j, t) in self.tools.iter_mut().enumerate() {
            if j != failed
                && t.batch == batch
                && t.status == ToolStatus::Executing
                && t.forced_result.is_none()
                && t.cancels_siblings()
                && t.may_have_side_effects()
            {
                t.forced_result = Some(ToolResultBlock::text(&t.block.id, text.as_str(), true));
                t.cancel.cancel();
            }
        }
    }

    /// X4: releases finished results that are next in tool_use order.
    pub(super) fn release_ready(&mut self) {
        while let Some(t) = self.tools.get(self.next_release) {
            let (ToolStatus::Done, Some(result)) = (t.status, &t.result) else {
                break;
            };
            self.outbox.push_back(EngineEvent::ToolResult {
                result: result.clone(),
                detail: t.detail.clone(),
            });
            self.next_release += 1;
        }
    }
}

fn join_error_detail(error: JoinError) -> String {
    if error.is_cancelled() {
        return TASK_CANCELLED_DETAIL.to_string();
    }
    let payload = error.into_panic();
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        UNKNOWN_PANIC_DETAIL.to_string()
    }
}
