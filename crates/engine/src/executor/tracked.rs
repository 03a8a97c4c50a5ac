//! One tool_use as the executor tracks it: the block, what `prepare` made of
//! it (the tool, its facts, the call to run or the rejection to answer), its
//! status (queued → executing → done), its cancel token and batch, and the
//! result once decided. The executor's start rule and sibling abort read the
//! call's facts through the helpers here; a rejected call has no facts and
//! counts as unsafe.

use std::sync::Arc;

use orbit_protocol::{ToolResultBlock, ToolUseBlock};
use orbit_tool::{CallFacts, Tool};
use tokio_util::sync::CancellationToken;

use crate::prepare::{Prepared, Staged};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolStatus {
    Queued,
    Executing,
    Done,
}

pub(super) struct TrackedTool {
    pub(super) block: ToolUseBlock,
    /// The tool, when the call was found and parsed.
    pub(super) tool: Option<Arc<dyn Tool>>,
    /// The call's facts; a rejected call has none (it counts as unsafe).
    pub(super) facts: Option<CallFacts>,
    /// What starting it does: run the parsed call, or answer the rejection.
    pub(super) pending: Pending,
    pub(super) status: ToolStatus,
    pub(super) cancel: CancellationToken,
    /// The concurrent batch it executed in (X5); 0 until started.
    pub(super) batch: u64,
    pub(super) result: Option<ToolResultBlock>,
    /// The tool's facts for the embedder, released with the result.
    pub(super) detail: Option<serde_json::Value>,
    /// The answer decided when the tool was cancelled (sibling abort,
    /// interrupt); it replaces what the tool returns unless the tool had
    /// already finished when its token fired.
    pub(super) forced_result: Option<ToolResultBlock>,
    /// `ToolCall::call` was spawned (the call may have acted).
    pub(super) started: bool,
    /// The tool reported that it changed no file (`ToolOutput::changed_nothing`).
    pub(super) changed_nothing: bool,
    /// Its own result was a success with no visible output.
    pub(super) printed_nothing: bool,
}

pub(super) enum Pending {
    Call(Staged),
    Rejected(String),
    Taken,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pending::Call(Staged::Call(call)) => f.debug_tuple("Call").field(call.facts()).finish(),
            Pending::Call(Staged::AwaitReady(within)) => {
                f.debug_tuple("AwaitReady").field(within).finish()
            }
            Pending::Rejected(text) => f.debug_tuple("Rejected").field(text).finish(),
            Pending::Taken => f.write_str("Taken"),
        }
    }
}

impl TrackedTool {
    pub(super) fn new(block: ToolUseBlock, prepared: Prepared, cancel: CancellationToken) -> Self {
        let (tool, facts, pending) = match prepared {
            Prepared::Ready { tool, call, facts } => (
                Some(tool),
                Some(facts),
                call.map_or(Pending::Taken, Pending::Call),
            ),
            Prepared::Rejected(text) => (None, None, Pending::Rejected(text)),
        };
        Self {
            block,
            tool,
            facts,
            pending,
            status: ToolStatus::Queued,
            cancel,
            batch: 0,
            result: None,
            detail: None,
            forced_result: None,
            started: false,
            changed_nothing: false,
            printed_nothing: false,
        }
    }

    pub(super) fn tool_name(&self) -> &str {
        self.tool.as_ref().map_or(&self.block.name, |t| t.name())
    }

    /// X1: only a call that parsed and whose facts say so is safe.
    pub(super) fn is_concurrency_safe(&self) -> bool {
        self.facts.as_ref().is_some_and(|f| f.concurrency_safe)
    }

    pub(super) fn may_have_side_effects(&self) -> bool {
        self.facts.as_ref().is_some_and(|f| !f.read_only)
    }

    /// Started, may have a side effect, and did not report that it
    /// changed no file: it may have written one.
    pub(super) fn may_have_written(&self) -> bool {
        self.started && self.may_have_side_effects() && !self.changed_nothing
    }

    pub(super) fn cancels_siblings(&self) -> bool {
        self.facts
            .as_ref()
            .is_some_and(|f| f.failure_cancels_siblings)
    }
}

impl std::fmt::Debug for TrackedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedTool")
            .field("id", &self.block.id)
            .field("tool", &self.tool_name())
            .field("status", &self.status)
            .field("pending", &self.pending)
            .finish()
    }
}
