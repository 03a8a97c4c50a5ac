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
//!    treated as unsafe and never runs. A tool that is not ready yet
//!    (`Tool::readiness`: an MCP server still connecting) is not validated
//!    here: the call is staged to await it, with the most conservative
//!    facts (it runs alone).
//! 2. [`run_tool_use`] (on its own tokio task, started by the executor):
//!    a staged call awaits `Tool::ready` (bounded by the tool's own limit;
//!    the model is told when it gives up), then goes through step 1 again
//!    with the tool's real definition → `ToolCall::validate` (business rules → the plan; a refusal is wrapped
//!    in `<tool_use_error>`) → PreToolUse hooks (a block or deny refuses
//!    the call with the hook's reason; an `updatedInput` goes through step 1
//!    and `validate` again, so an invalid one gets the same T3 text; their
//!    allow/ask feeds the gate) → permission gate by facts (P1–P3: the
//!    session's `Policy` over the call's facts, cwd and workspace roots; an
//!    ask is put to the `Approver` when there is one, else denied; a
//!    denial is recorded in the runtime) → `ToolCall::call` with the call's cancel
//!    token and progress channel → workspace policy on the cwd the call
//!    ended in → PostToolUse / PostToolUseFailure hooks (a block reason or
//!    `additionalContext` is added to the result the model sees) → result
//!    pipeline (R1, R3, R4 via [`process_tool_result`]).
//!
//!    The gate with hooks: a deny of the policy (a deny rule, the mode)
//!    always wins; then a hook's deny; a hook's allow skips an ask; a
//!    hook's ask asks even what the policy allows. An ask runs the
//!    PermissionRequest hooks (their allow/deny answers it), then the
//!    Notification hooks (`permission_prompt`), then the approver.
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
//!
//! Step 1 is `prepare` (its own module; `readiness` runs it again for a
//! tool that was not ready). What every call shares is
//! `runtime::ToolRuntime`; the permission gate (policy, hooks' vote,
//! PermissionRequest hooks, approver) is `gate`.

use std::sync::Arc;

use orbit_hooks::{HookEvent, PermissionVote};
use orbit_protocol::{PermissionDenial, ToolResultBlock, ToolUseBlock};
use orbit_tool::validation::wrap_tool_use_error;
use orbit_tool::{
    CallContext, INTERRUPT_MESSAGE_FOR_TOOL_USE, ResultLimit, Tool, ToolCall, ToolOutput,
    apply_cwd_policy,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::gate::{denied_by_rules, permit};
use crate::prepare::refusal_text;
use crate::prepare::{Prepared, Staged, prepare};
use crate::readiness;
use crate::results::process_tool_result;
use crate::runtime::ToolRuntime;
use orbit_tool::texts::engine::tool_not_ready_error;

/// What one call produced.
#[derive(Debug, Clone)]
pub(crate) struct ToolCallOutcome {
    /// The tool_result block for the history.
    pub(crate) result: ToolResultBlock,
    /// The tool ran and reported an error (what triggers sibling abort, X5);
    /// false for validation errors, refusals and denials.
    pub(crate) tool_failed: bool,
    /// The tool did its work: it returned before its cancel token fired, or
    /// returned a success despite it. Its result is real and wins over any
    /// cancel text decided meanwhile (a finished call always keeps its
    /// result); a tool that stopped because of the cancel returns an error
    /// and is answered with the cancel text instead.
    pub(crate) completed: bool,
    /// The tool's facts for the embedder (`ToolOutput::detail`).
    pub(crate) detail: Option<Value>,
    /// The tool knows it changed no file (`ToolOutput::changed_nothing`).
    pub(crate) changed_nothing: bool,
    /// It succeeded with no visible output (R3's placeholder answers it).
    pub(crate) printed_nothing: bool,
}

impl ToolCallOutcome {
    fn rejected(tool_use_id: &str, text: String) -> Self {
        Self {
            result: ToolResultBlock::text(tool_use_id, text, true),
            tool_failed: false,
            completed: true,
            detail: None,
            changed_nothing: false,
            printed_nothing: false,
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
pub(crate) async fn run_tool_use(
    runtime: &ToolRuntime,
    tool: Arc<dyn Tool>,
    staged: Staged,
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
    let (tool, mut prepared) = match staged {
        Staged::Call(prepared) => (tool, prepared),
        Staged::AwaitReady(within) => {
            match readiness::await_ready(runtime, &tool, within, &original_input, &call).await {
                Ok(ready) => ready,
                Err(_) if call.cancel.is_cancelled() => return ToolCallOutcome::cancelled(&id),
                Err(text) => return ToolCallOutcome::rejected(&id, text),
            }
        }
    };
    if let Err(error) = prepared.validate(&runtime.context).await {
        return ToolCallOutcome::rejected(&id, refusal_text(&name, error));
    }
    let mut input = original_input.clone();
    let mut hook_vote = None;
    if runtime.hooks.active(HookEvent::PreToolUse) {
        match pre_tool_use(runtime, &name, &call, input).await {
            PreToolUse::Refused(reason) => {
                return deny(runtime, &id, name, original_input, reason);
            }
            PreToolUse::Rejected(text) => return ToolCallOutcome::rejected(&id, text),
            PreToolUse::Go {
                input: hooked,
                call: replaced,
                vote,
            } => {
                input = hooked;
                hook_vote = vote;
                if let Some(replaced) = replaced {
                    prepared = replaced;
                }
            }
        }
    }
    match permit(runtime, &name, prepared.facts(), &id, &input, hook_vote).await {
        Err(reason) => return deny(runtime, &id, name, original_input, reason),
        Ok(None) => {}
        Ok(Some(updated)) => match reprepare(runtime, &name, &call, updated.clone()).await {
            Ok(replaced) => {
                if let Some(reason) = denied_by_rules(runtime, &name, replaced.facts()) {
                    return deny(runtime, &id, name, original_input, reason);
                }
                prepared = replaced;
                input = updated;
            }
            Err(text) => return ToolCallOutcome::rejected(&id, text),
        },
    }
    if call.cancel.is_cancelled() {
        return ToolCallOutcome::cancelled(&id);
    }
    let attach = crate::attachments::Pending::take(runtime.attachments.as_ref(), prepared.facts());
    let checkpoint = runtime
        .checkpoints
        .as_ref()
        .map(|_| prepared.facts().clone());
    if let Some(facts) = &checkpoint {
        crate::checkpoint::before_write(runtime.checkpoints.as_ref(), &id, facts).await;
    }
    let called = prepared.call(&runtime.context, &call).await;
    if let Some(facts) = &checkpoint {
        crate::checkpoint::after_write(runtime.checkpoints.as_ref(), &id, facts).await;
    }
    let mut output = match called {
        Ok(output) => output,
        Err(error) => {
            let text = refusal_text(&name, error);
            post_tool_use(runtime, &name, &id, &input, None, &text).await;
            return ToolCallOutcome::rejected(&id, text);
        }
    };
    // Workspace roots: the session keeps a directory the call ended in only
    // inside the project or an allowed directory.
    apply_cwd_policy(&runtime.context, &mut output);
    let completed = !call.cancel.is_cancelled() || !output.is_error;
    let tool_failed = output.is_error;
    if runtime.hooks.active(HookEvent::PostToolUse)
        || runtime.hooks.active(HookEvent::PostToolUseFailure)
    {
        let text = output.content.as_text();
        let feedback = post_tool_use(runtime, &name, &id, &input, Some(&output), &text).await;
        if let Some(feedback) = feedback {
            output.content.push_line(&feedback);
        }
    }
    let max_chars = match tool.result_limit() {
        ResultLimit::PersistOver(chars) => chars,
        ResultLimit::NeverPersist => usize::MAX,
    };
    let detail = output.detail.take().map(|d| d.to_value());
    let changed_nothing = output.changed_nothing;
    let printed_nothing = crate::results::printed_nothing(&output);
    let mut result = process_tool_result(&runtime.storage, &name, max_chars, &id, output).await;
    attach.apply(&name, tool_failed, &mut result);
    ToolCallOutcome {
        result,
        tool_failed,
        completed,
        detail,
        changed_nothing,
        printed_nothing,
    }
}

/// Steps 1 and 2 for one call that no model message carries (`orbit mcp
/// serve`'s calls, a prompt's own `!cmd` / `@file`). `Err`: the call never
/// ran — the text step 1 refused it with (None: it had no call to run).
pub(crate) async fn run_single(
    runtime: &ToolRuntime,
    call: ToolUseBlock,
    cancel: CancellationToken,
) -> Result<ToolCallOutcome, Option<String>> {
    let (tool, staged) = match prepare(&runtime.tools, &call, None, &runtime.context) {
        Prepared::Ready {
            tool,
            call: Some(staged),
            ..
        } => (tool, staged),
        Prepared::Ready { call: None, .. } => return Err(None),
        Prepared::Rejected(text) => return Err(Some(text)),
    };
    let context = CallContext::new(call.id.clone(), cancel, None);
    Ok(run_tool_use(runtime, tool, staged, call.input, context).await)
}

/// A refused call, recorded as a permission denial.
fn deny(
    runtime: &ToolRuntime,
    id: &str,
    tool_name: String,
    tool_input: Value,
    reason: String,
) -> ToolCallOutcome {
    runtime.record_denial(PermissionDenial {
        tool_name,
        tool_use_id: id.to_string(),
        tool_input,
    });
    ToolCallOutcome::rejected(id, reason)
}

/// What the PreToolUse hooks decided.
enum PreToolUse {
    /// Blocked or denied: the reason (a permission denial).
    Refused(String),
    /// The rewritten input failed validation: the T3 / refusal text.
    Rejected(String),
    /// Go on to the gate with this input (and its new call when rewritten).
    Go {
        input: Value,
        call: Option<Box<dyn ToolCall>>,
        vote: Option<(PermissionVote, String)>,
    },
}

async fn pre_tool_use(
    runtime: &ToolRuntime,
    name: &str,
    call: &CallContext,
    input: Value,
) -> PreToolUse {
    let id = call.tool_use_id.as_str();
    let fields = json!({"tool_name": name, "tool_input": input, "tool_use_id": id});
    let verdict = runtime
        .hooks
        .run(HookEvent::PreToolUse, Some(name), fields)
        .await;
    if let Some(reason) = verdict.block {
        return PreToolUse::Refused(reason);
    }
    if let Some((PermissionVote::Deny, reason)) = &verdict.permission {
        let reason = if reason.is_empty() {
            hook_denied(name)
        } else {
            reason.clone()
        };
        return PreToolUse::Refused(reason);
    }
    let Some(updated) = verdict.updated_input else {
        return PreToolUse::Go {
            input,
            call: None,
            vote: verdict.permission,
        };
    };
    match reprepare(runtime, name, call, updated.clone()).await {
        Ok(replaced) => PreToolUse::Go {
            input: updated,
            call: Some(replaced),
            vote: verdict.permission,
        },
        Err(text) => PreToolUse::Rejected(text),
    }
}

/// A replacement input (a hook's or an approver's) through the same
/// pipeline as the model's: lookup, schema (T3), parse (a tool that is not
/// ready is awaited as the model's call would be), then the tool's own
/// validation. `Err` is the text the model is told.
async fn reprepare(
    runtime: &ToolRuntime,
    name: &str,
    call: &CallContext,
    updated: Value,
) -> Result<Box<dyn ToolCall>, String> {
    let block = ToolUseBlock {
        id: call.tool_use_id.clone(),
        name: name.to_string(),
        input: updated,
    };
    let mut prepared = match prepare(&runtime.tools, &block, None, &runtime.context) {
        Prepared::Ready {
            call: Some(Staged::Call(prepared)),
            ..
        } => prepared,
        Prepared::Ready {
            tool,
            call: Some(Staged::AwaitReady(within)),
            ..
        } => {
            readiness::await_ready(runtime, &tool, within, &block.input, call)
                .await?
                .1
        }
        Prepared::Ready { call: None, .. } => {
            return Err(wrap_tool_use_error(&tool_not_ready_error(name, 0)));
        }
        Prepared::Rejected(text) => return Err(text),
    };
    if let Err(error) = prepared.validate(&runtime.context).await {
        return Err(refusal_text(name, error));
    }
    Ok(prepared)
}

fn hook_denied(name: &str) -> String {
    format!("A PreToolUse hook denied this {name} call.")
}

/// PostToolUse (or PostToolUseFailure when the call failed: `output` is
/// None or an error): the text to add to the result, if any.
async fn post_tool_use(
    runtime: &ToolRuntime,
    name: &str,
    id: &str,
    input: &Value,
    output: Option<&ToolOutput>,
    text: &str,
) -> Option<String> {
    let failed = output.is_none_or(|o| o.is_error);
    let (event, fields) = if failed {
        let fields = json!({"tool_name": name, "tool_input": input, "tool_use_id": id, "error": text,
                "is_interrupt": false});
        (HookEvent::PostToolUseFailure, fields)
    } else {
        let fields = json!({"tool_name": name, "tool_input": input, "tool_use_id": id, "tool_response": text});
        (HookEvent::PostToolUse, fields)
    };
    let verdict = runtime.hooks.run(event, Some(name), fields).await;
    let mut notes: Vec<String> = verdict.block.into_iter().collect();
    notes.extend(verdict.additional_context);
    (!notes.is_empty()).then(|| format!("{event} hook: {}", notes.join("\n")))
}
