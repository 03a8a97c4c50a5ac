//! X1: `partition_tool_calls` and the whole-message execution built on it.
//!
//! Used when a complete assistant message's tool_uses are executed after
//! the fact (a provider that does not stream blocks, or answering a resumed
//! message): consecutive concurrency-safe calls form one batch that runs
//! concurrently (up to the X2 cap); any other call — unsafe, unknown, with
//! input that fails validation, or whose `is_concurrency_safe` panics — is a
//! batch of its own. Batches run one after another, each on a
//! [`StreamingToolExecutor`], so validation, permissions, sibling abort and
//! ordering are the same as in the streaming path.

use std::sync::Arc;

use orbit_protocol::{EngineEvent, PermissionDenial, ToolResultBlock, ToolUseBlock};
use orbit_tools::ToolRegistry;
use tokio_util::sync::CancellationToken;

use crate::executor::StreamingToolExecutor;
use crate::messages::CANCEL_MESSAGE;
use crate::orchestrator::{ToolRuntime, prepare};

/// Consecutive calls that run together (all safe), or one call run alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub is_concurrency_safe: bool,
    pub blocks: Vec<ToolUseBlock>,
}

/// Groups tool_uses into batches (X1), keeping their order.
pub fn partition_tool_calls(tools: &ToolRegistry, blocks: &[ToolUseBlock]) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for block in blocks {
        let safe = prepare(tools, block, None).is_concurrency_safe();
        match batches.last_mut() {
            Some(last) if safe && last.is_concurrency_safe => last.blocks.push(block.clone()),
            _ => batches.push(Batch {
                is_concurrency_safe: safe,
                blocks: vec![block.clone()],
            }),
        }
    }
    batches
}

/// What a whole-message execution produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallsOutcome {
    /// One result per tool_use, in tool_use order.
    pub results: Vec<ToolResultBlock>,
    pub denials: Vec<PermissionDenial>,
    pub interrupted: bool,
}

/// Executes all `blocks` batch by batch. `on_event` receives ToolStarted,
/// ToolProgress and ToolResult events as they happen. When `cancel` fires,
/// running tools get the interrupt text and the rest the cancel text.
pub async fn run_tool_calls(
    runtime: Arc<ToolRuntime>,
    blocks: &[ToolUseBlock],
    cancel: CancellationToken,
    mut on_event: impl FnMut(EngineEvent) + Send,
) -> ToolCallsOutcome {
    let mut outcome = ToolCallsOutcome::default();
    for batch in partition_tool_calls(&runtime.tools, blocks) {
        let mut executor = StreamingToolExecutor::new(Arc::clone(&runtime), cancel.clone());
        if cancel.is_cancelled() {
            // Interrupted in an earlier batch: nothing more starts.
            outcome.interrupted = true;
            executor.close(CANCEL_MESSAGE);
        }
        for block in batch.blocks {
            executor.add_tool(block, None);
        }
        loop {
            tokio::select! {
                biased;
                _ = cancel.cancelled(), if !outcome.interrupted => {
                    outcome.interrupted = true;
                    executor.abort().await;
                }
                event = executor.next_event() => match event {
                    Some(event) => on_event(event),
                    None => break,
                },
            }
        }
        outcome
            .results
            .extend(executor.take_results().into_iter().flatten());
    }
    outcome.denials = runtime.take_denials();
    outcome
}
