//! File-system work off the async runtime: every built-in that walks or
//! reads files runs that work on tokio's blocking pool, through one of
//! these helpers, so a failed task is reported the same way everywhere.
//! The file tools (Read, Write, Edit) hand their job the session's
//! file-state cache (T5) and, when they write, the call's cancel token.

use std::sync::Arc;

use orbit_tool::texts::tools as tools_texts;
use orbit_tool::{CallContext, FileStateCache, ToolError, ToolOutput, ToolUseContext};
use tokio_util::sync::CancellationToken;

/// Runs `job` on the blocking pool. A task that panicked is a fatal error
/// naming `tool` (`Read failed: …`).
pub(crate) async fn on_blocking_pool<T: Send + 'static>(
    tool: &str,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| ToolError::Fatal(tools_texts::task_failed(tool, e)))
}

/// Runs `job` on the blocking pool with the session's file-state cache.
pub(crate) async fn with_file_state<T: Send + 'static>(
    tool: &str,
    ctx: &ToolUseContext,
    job: impl FnOnce(&FileStateCache) -> T + Send + 'static,
) -> Result<T, ToolError> {
    let cache = Arc::clone(&ctx.file_state);
    on_blocking_pool(tool, move || job(&cache)).await
}

/// Runs a writing `job` (Write, Edit) on the blocking pool with the
/// session's file-state cache and the call's cancel token, which the job
/// checks right before it changes anything.
pub(crate) async fn write_with_file_state(
    tool: &str,
    ctx: &ToolUseContext,
    call: &CallContext,
    job: impl FnOnce(&FileStateCache, &CancellationToken) -> Result<ToolOutput, ToolError>
    + Send
    + 'static,
) -> Result<ToolOutput, ToolError> {
    let cancel = call.cancel.clone();
    with_file_state(tool, ctx, move |cache| job(cache, &cancel)).await?
}

/// Runs a search `job` (Glob, Grep) on the blocking pool with the call's
/// cancel token: its text is the result, its error an is_error result, as
/// is a task that panicked; once the call is cancelled the answer is
/// `cancelled(tool)` without waiting for the walk to notice.
pub(crate) async fn cancellable_search(
    tool: &str,
    call: &CallContext,
    job: impl FnOnce(&CancellationToken) -> Result<String, String> + Send + 'static,
) -> ToolOutput {
    let cancel = call.cancel.clone();
    let task = tokio::task::spawn_blocking(move || job(&cancel));
    tokio::select! {
        joined = task => match joined {
            Ok(Ok(text)) => ToolOutput::text(text),
            Ok(Err(e)) => ToolOutput::error(e),
            Err(e) => ToolOutput::error(tools_texts::task_failed(tool, e)),
        },
        () = call.cancel.cancelled() => ToolOutput::error(tools_texts::cancelled(tool)),
    }
}
