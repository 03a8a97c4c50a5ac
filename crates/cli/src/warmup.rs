//! Turn-overhead warm-up: work the first tool call would otherwise do on
//! the critical path (compiling each tool's input-schema validator, starting
//! a blocking-pool thread) is done while the model is busy with the first
//! request, so the gap between a response and the next request stays small.
//!
//! Started once the first response begins (the request is fully sent by
//! then), so it never delays the first request byte.

use orbit_tools::ToolRegistry;
use serde_json::Value;

/// Starts the warm-up on tokio's blocking pool and returns at once.
pub fn spawn(tools: ToolRegistry) {
    // The handle is dropped: the task finishes on its own, and a run that
    // ends first simply does not wait for it.
    drop(tokio::task::spawn_blocking(move || {
        let empty = Value::Object(Default::default());
        for tool in tools.tools() {
            // Only the side effect matters: the compiled validator is cached.
            let _ = orbit_tools::validation::validate_tool_input(tool.as_ref(), &empty);
        }
    }));
}
