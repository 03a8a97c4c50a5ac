//! The orchestrator: the one place that decides what happens to a tool_use
//! (DESIGN §1, X1–X5 live around it). No tool carries its own policy.
//!
//! Per call, in order:
//! 1. [`prepare`] (synchronous, at `content_block_stop`): find the tool by
//!    name then alias (T2) → unparsable input JSON → schema validation with
//!    coercion (T3) → `is_concurrency_safe` (a panic counts as unsafe). A
//!    failure here yields the exact error text; the call is then treated as
//!    unsafe and never runs.
//! 2. [`run_tool_use`] (on its own tokio task, started by the executor):
//!    `Tool::validate_input` (business rules, wrapped in `<tool_use_error>`)
//!    → permission gate (P1; deny is recorded) → `Tool::call` with the call's
//!    cancel token and progress channel → result pipeline (R1, R3, R4 via
//!    [`process_tool_result`]). The cancel token is checked before
//!    validation and again right before `Tool::call`: a call cancelled by
//!    then never reaches its tool. Whether the tool did its work is
//!    recorded ([`ToolCallOutcome::completed`]): a finished call keeps its
//!    real result.
//!
//! Errors produced here (no such tool, validation, denial) are short
//! `is_error` tool_results built directly; every `ToolOutput` of a tool goes
//! through the result pipeline. A panic anywhere in step 2 ends the task;
//! the executor turns the `JoinError` into an error result (this needs
//! `panic = "unwind"`; with `panic = "abort"` a tool panic ends the process).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use orbit_permissions::{PermissionConfig, PermissionDecision, PermissionRequest, can_use_tool};
use orbit_protocol::{PermissionDenial, ToolResultBlock, ToolUseBlock};
use orbit_tools::validation::{
    no_such_tool_error, unparsable_input_error, validate_tool_input, wrap_tool_use_error,
};
use orbit_tools::{
    CallContext, INTERRUPT_MESSAGE_FOR_TOOL_USE, Tool, ToolRegistry, ToolUseContext,
};
use serde_json::Value;

use crate::results::{ToolResultStorage, process_tool_result};

/// Everything a tool call needs, shared by all calls of a session.
#[derive(Debug)]
pub struct ToolRuntime {
    pub tools: ToolRegistry,
    pub context: ToolUseContext,
    pub permissions: PermissionConfig,
    pub storage: ToolResultStorage,
    /// X2: at most this many tools execute at once (≥ 1).
    pub max_concurrency: usize,
    /// P1: every call the permission gate refused, recorded when it is
    /// refused, so no path (retry, abort, error) can drop one. The query
    /// loop takes them for the run's result.
    pub denials: std::sync::Mutex<Vec<PermissionDenial>>,
}

impl ToolRuntime {
    fn record_denial(&self, denial: PermissionDenial) {
        match self.denials.lock() {
            Ok(mut denials) => denials.push(denial),
            Err(poisoned) => poisoned.into_inner().push(denial),
        }
    }

    /// The denials recorded since the last call, in the order they happened.
    pub fn take_denials(&self) -> Vec<PermissionDenial> {
        match self.denials.lock() {
            Ok(mut denials) => std::mem::take(&mut *denials),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }
}

/// A tool_use after the synchronous checks of step 1.
#[derive(Clone)]
pub enum Prepared {
    /// Ready to run with the (coerced) input.
    Ready {
        tool: Arc<dyn Tool>,
        input: Value,
        is_concurrency_safe: bool,
        /// The tool's fact for this input: running it has no side effect.
        is_read_only: bool,
    },
    /// Never runs; answered with this `is_error` text.
    Rejected(String),
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prepared::Ready {
                tool,
                input,
                is_concurrency_safe,
                is_read_only,
            } => f
                .debug_struct("Ready")
                .field("tool", &tool.name())
                .field("input", input)
                .field("is_concurrency_safe", is_concurrency_safe)
                .field("is_read_only", is_read_only)
                .finish(),
            Prepared::Rejected(text) => f.debug_tuple("Rejected").field(text).finish(),
        }
    }
}

impl Prepared {
    /// X1: only a call that validated and whose tool says so is safe.
    pub fn is_concurrency_safe(&self) -> bool {
        matches!(
            self,
            Prepared::Ready {
                is_concurrency_safe: true,
                ..
            }
        )
    }

    /// Whether running this call could have a side effect (anything not
    /// declared read-only; a rejected call never runs).
    pub fn may_have_side_effects(&self) -> bool {
        matches!(
            self,
            Prepared::Ready {
                is_read_only: false,
                ..
            }
        )
    }
}

/// Step 1 for one tool_use. `invalid_input` is the raw text when the
/// streamed input did not parse as JSON.
pub fn prepare(
    tools: &ToolRegistry,
    block: &ToolUseBlock,
    invalid_input: Option<&str>,
) -> Prepared {
    let Some(tool) = tools.find(&block.name) else {
        return Prepared::Rejected(no_such_tool_error(&block.name));
    };
    if let Some(raw) = invalid_input {
        return Prepared::Rejected(unparsable_input_error(tool.name(), raw));
    }
    match validate_tool_input(tool.as_ref(), &block.input) {
        Ok(input) => {
            let is_concurrency_safe = concurrency_safe_guarded(tool.as_ref(), &input);
            let is_read_only = read_only_guarded(tool.as_ref(), &input);
            Prepared::Ready {
                tool: Arc::clone(tool),
                input,
                is_concurrency_safe,
                is_read_only,
            }
        }
        Err(text) => Prepared::Rejected(text),
    }
}

/// `is_concurrency_safe`, with a panic counted as "unsafe" (conservative).
pub fn concurrency_safe_guarded(tool: &dyn Tool, input: &Value) -> bool {
    catch_unwind(AssertUnwindSafe(|| tool.is_concurrency_safe(input))).unwrap_or(false)
}

/// `is_read_only`, with a panic counted as "not read-only" (conservative).
pub fn read_only_guarded(tool: &dyn Tool, input: &Value) -> bool {
    catch_unwind(AssertUnwindSafe(|| tool.is_read_only(input))).unwrap_or(false)
}

/// What one call produced.
#[derive(Debug, Clone)]
pub struct ToolCallOutcome {
    pub result: ToolResultBlock,
    /// The tool ran and reported an error (what triggers sibling abort, X5);
    /// false for validation errors and denials.
    pub tool_failed: bool,
    /// The tool did its work: it returned before its cancel token fired, or
    /// returned a success despite it. Its result is real and wins over any
    /// cancel text decided meanwhile (a finished call always keeps its
    /// result); a tool that stopped because of the cancel returns an error
    /// and is answered with the cancel text instead.
    pub completed: bool,
}

impl ToolCallOutcome {
    fn rejected(tool_use_id: &str, text: String) -> Self {
        Self {
            result: ToolResultBlock::text(tool_use_id, text, true),
            tool_failed: false,
            completed: true,
        }
    }

    /// The call was cancelled before its tool could act: no side effect
    /// happened, the answer is the interrupt text.
    fn cancelled(tool_use_id: &str) -> Self {
        Self {
            completed: false,
            ..Self::rejected(tool_use_id, INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string())
        }
    }
}

/// Step 2 for one validated call: business validation → permission → call →
/// result pipeline. `original_input` is what the model sent (recorded in a
/// denial); `input` is the coerced input the tool receives.
pub async fn run_tool_use(
    runtime: &ToolRuntime,
    tool: Arc<dyn Tool>,
    original_input: Value,
    input: Value,
    call: CallContext,
) -> ToolCallOutcome {
    let id = call.tool_use_id.clone();
    let name = tool.name().to_string();
    // Cancellation is checked before every step that leads to a side effect:
    // a call reported as cancelled never acts afterwards.
    if call.cancel.is_cancelled() {
        return ToolCallOutcome::cancelled(&id);
    }
    if let Err(message) = tool.validate_input(&input, &runtime.context).await {
        return ToolCallOutcome::rejected(&id, wrap_tool_use_error(&message));
    }
    let request = PermissionRequest::new(&name, &input, tool.is_read_only(&input));
    match can_use_tool(&runtime.permissions, &request) {
        PermissionDecision::Allow => {}
        // No interactive prompt is wired yet: an ask that reaches the engine
        // is answered like a headless one.
        PermissionDecision::Ask { reason } | PermissionDecision::Deny { reason } => {
            let outcome = ToolCallOutcome::rejected(&id, reason);
            runtime.record_denial(PermissionDenial {
                tool_name: name,
                tool_use_id: id,
                tool_input: original_input,
            });
            return outcome;
        }
    }
    if call.cancel.is_cancelled() {
        return ToolCallOutcome::cancelled(&id);
    }
    let output = tool.call(input, &runtime.context, &call).await;
    let completed = !call.cancel.is_cancelled() || !output.is_error;
    let tool_failed = output.is_error;
    let result = process_tool_result(
        &runtime.storage,
        &name,
        tool.max_result_size_chars(),
        &id,
        output,
    )
    .await;
    ToolCallOutcome {
        result,
        tool_failed,
        completed,
    }
}
