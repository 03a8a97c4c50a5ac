//! The orchestrator: the one place that decides what happens to a tool_use
//! (X1–X5 live around it). No tool carries its own policy, and no policy
//! here names a tool: every decision reads the call's `CallFacts`.
//!
//! Per call, in order:
//! 1. [`prepare`] (synchronous, at `content_block_stop`): find the tool by
//!    name then alias (T2) → unparsable input JSON → schema validation with
//!    coercion (T3) → `Tool::parse`: the typed input, parsed once, and the
//!    call's facts (a panic while stating facts gives the most conservative
//!    facts). A failure here yields the exact error text; the call is then
//!    treated as unsafe and never runs.
//! 2. [`run_tool_use`] (on its own tokio task, started by the executor):
//!    `ToolCall::validate` (business rules → the plan; a refusal is wrapped
//!    in `<tool_use_error>`) → permission gate by facts (P1–P3: the
//!    session's `Policy` over the call's facts, cwd and workspace roots; an
//!    ask is put to the `Approver` when there is one, else denied; a
//!    denial is recorded in the runtime) → `ToolCall::call` with the call's cancel
//!    token and progress channel → workspace policy on the cwd the call
//!    ended in → result pipeline (R1, R3, R4 via [`process_tool_result`]).
//!    The cancel token is checked before validation and again right before
//!    the call: a call cancelled by then never reaches its tool. Whether the
//!    tool did its work is recorded ([`ToolCallOutcome::completed`]): a
//!    finished call keeps its real result.
//!
//! Errors produced here (no such tool, validation, denial) are short
//! `is_error` tool_results built directly; every `ToolOutput` of a tool goes
//! through the result pipeline. A panic anywhere in step 2 ends the task;
//! the executor turns the `JoinError` into an error result (this needs
//! `panic = "unwind"`; with `panic = "abort"` a tool panic ends the process).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use orbit_permissions::{
    PermissionDecision, PermissionRequest, Policy, persist_allow_rule, suggested_rule,
};
use orbit_protocol::{PermissionDenial, ToolResultBlock, ToolUseBlock};
use orbit_tool::validation::{
    no_such_tool_error, unparsable_input_error, validate_tool_input, wrap_tool_use_error,
};
use orbit_tool::{
    CallContext, CallFacts, INTERRUPT_MESSAGE_FOR_TOOL_USE, ResultLimit, Tool, ToolCall, ToolError,
    ToolRegistry, ToolUseContext, apply_cwd_policy,
};
use serde_json::Value;

use crate::approve::{Approval, ApprovalRequest, SharedApprover};
use crate::results::{ToolResultStorage, process_tool_result};
use orbit_tool::texts::engine::{PARSE_PANICKED_DETAIL, tool_fatal_error};

/// Everything a tool call needs, shared by all calls of a session.
#[derive(Debug)]
pub struct ToolRuntime {
    /// The tools the model may call.
    pub tools: ToolRegistry,
    /// Session context handed to every tool call.
    pub context: ToolUseContext,
    /// Permission mode and rules, compiled for the project root.
    pub permissions: Arc<Policy>,
    /// Who answers asks; None = headless (an ask is a denial).
    pub approver: Option<SharedApprover>,
    /// Where "always allow" answers are persisted (None: this session only).
    pub rules_file: Option<std::path::PathBuf>,
    /// Where oversized results are persisted.
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
pub enum Prepared {
    /// Ready to run: the parsed call (taken when it starts) and its facts.
    Ready {
        /// The tool to run.
        tool: Arc<dyn Tool>,
        /// The parsed call; `None` once taken.
        call: Option<Box<dyn ToolCall>>,
        /// What the call declared it will do.
        facts: CallFacts,
    },
    /// Never runs; answered with this `is_error` text.
    Rejected(String),
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prepared::Ready { tool, facts, .. } => f
                .debug_struct("Ready")
                .field("tool", &tool.name())
                .field("facts", facts)
                .finish(),
            Prepared::Rejected(text) => f.debug_tuple("Rejected").field(text).finish(),
        }
    }
}

/// Step 1 for one tool_use. `invalid_input` is the raw text when the
/// streamed input did not parse as JSON.
pub fn prepare(
    tools: &ToolRegistry,
    block: &ToolUseBlock,
    invalid_input: Option<&str>,
    ctx: &ToolUseContext,
) -> Prepared {
    let Some(tool) = tools.find(&block.name) else {
        return Prepared::Rejected(no_such_tool_error(&block.name));
    };
    if let Some(raw) = invalid_input {
        return Prepared::Rejected(unparsable_input_error(tool.name(), raw));
    }
    let input = match validate_tool_input(tool.as_ref(), &block.input) {
        Ok(input) => input,
        Err(text) => return Prepared::Rejected(text),
    };
    match catch_unwind(AssertUnwindSafe(|| tool.parse(input, ctx))) {
        Ok(Ok(call)) => Prepared::Ready {
            facts: call.facts().clone(),
            tool,
            call: Some(call),
        },
        Ok(Err(error)) => Prepared::Rejected(refusal_text(tool.name(), error)),
        Err(_) => Prepared::Rejected(tool_fatal_error(tool.name(), PARSE_PANICKED_DETAIL)),
    }
}

/// The text of a refused call: a refusal the model can act on is wrapped in
/// `<tool_use_error>`; a fatal error names the tool.
fn refusal_text(tool_name: &str, error: ToolError) -> String {
    match error {
        ToolError::RespondToModel(text) => wrap_tool_use_error(&text),
        ToolError::Fatal(text) => {
            tracing::error!(tool = tool_name, error = %text, "tool failed");
            tool_fatal_error(tool_name, &text)
        }
    }
}

/// What one call produced.
#[derive(Debug, Clone)]
pub struct ToolCallOutcome {
    /// The tool_result block for the history.
    pub result: ToolResultBlock,
    /// The tool ran and reported an error (what triggers sibling abort, X5);
    /// false for validation errors, refusals and denials.
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

/// Step 2 for one prepared call: business validation → permission → call →
/// result pipeline. `original_input` is what the model sent (recorded in a
/// denial).
pub async fn run_tool_use(
    runtime: &ToolRuntime,
    tool: Arc<dyn Tool>,
    mut prepared: Box<dyn ToolCall>,
    original_input: Value,
    call: CallContext,
) -> ToolCallOutcome {
    let id = call.tool_use_id.clone();
    let name = tool.name().to_string();
    // Cancellation is checked before every step that leads to a side effect:
    // a call reported as cancelled never acts afterwards.
    if call.cancel.is_cancelled() {
        return ToolCallOutcome::cancelled(&id);
    }
    if let Err(error) = prepared.validate(&runtime.context).await {
        return ToolCallOutcome::rejected(&id, refusal_text(&name, error));
    }
    if let Err(reason) = permit(runtime, &name, prepared.facts(), &id, &original_input).await {
        let outcome = ToolCallOutcome::rejected(&id, reason);
        runtime.record_denial(PermissionDenial {
            tool_name: name,
            tool_use_id: id,
            tool_input: original_input,
        });
        return outcome;
    }
    if call.cancel.is_cancelled() {
        return ToolCallOutcome::cancelled(&id);
    }
    let mut output = match prepared.call(&runtime.context, &call).await {
        Ok(output) => output,
        Err(error) => return ToolCallOutcome::rejected(&id, refusal_text(&name, error)),
    };
    // Workspace roots: the session keeps a directory the call ended in only
    // inside the project or an allowed directory.
    apply_cwd_policy(&runtime.context, &mut output);
    let completed = !call.cancel.is_cancelled() || !output.is_error;
    let tool_failed = output.is_error;
    let max_chars = match tool.result_limit() {
        ResultLimit::PersistOver(chars) => chars,
        ResultLimit::NeverPersist => usize::MAX,
    };
    let result = process_tool_result(&runtime.storage, &name, max_chars, &id, output).await;
    ToolCallOutcome {
        result,
        tool_failed,
        completed,
    }
}

/// The permission gate for one call: the policy's decision, an ask put to
/// the approver (or denied when there is none). `Err` holds the reason the
/// model is told.
async fn permit(
    runtime: &ToolRuntime,
    name: &str,
    facts: &CallFacts,
    id: &str,
    input: &Value,
) -> Result<(), String> {
    let ctx = &runtime.context;
    let cwd = ctx.cwd();
    let mut roots = vec![orbit_tool::workspace::canonical_project_root(ctx)];
    roots.extend(ctx.allowed_directories());
    let request = PermissionRequest {
        tool_name: name,
        facts,
        cwd: &cwd,
        roots: &roots,
    };
    let reason = match runtime.permissions.decide(&request) {
        PermissionDecision::Allow => return Ok(()),
        PermissionDecision::Deny { reason } => return Err(reason),
        PermissionDecision::Ask { reason } => reason,
    };
    let Some(approver) = &runtime.approver else {
        return Err(reason);
    };
    let ask = ApprovalRequest {
        tool_name: name.to_string(),
        tool_use_id: id.to_string(),
        input: input.clone(),
        reason: reason.clone(),
        subject: facts.subject.clone(),
        suggested_rule: suggested_rule(name, facts),
    };
    match approver.0.approve(&ask).await {
        Approval::Allow => Ok(()),
        Approval::AllowAlways { rule } => {
            remember(runtime, &rule);
            Ok(())
        }
        Approval::Deny { reason: given } => Err(given.unwrap_or(reason)),
    }
}

/// Keeps an "always allow" rule for the session and, when configured, in
/// the rules file. A rule that does not parse or cannot be saved is logged;
/// the approved call runs either way.
fn remember(runtime: &ToolRuntime, rule: &str) {
    if let Err(err) = runtime.permissions.add_session_rule(rule) {
        tracing::warn!(%err, "an \"always allow\" answer gave a rule that does not parse");
        return;
    }
    if let Some(path) = &runtime.rules_file
        && let Err(err) = persist_allow_rule(path, rule)
    {
        tracing::warn!(%err, "cannot persist an \"always allow\" rule");
    }
}
