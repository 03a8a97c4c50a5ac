//! The Claude Agent SDK's control protocol on orbit's stdin/stdout (JSON
//! lines, `--input-format stream-json`).
//!
//! Data flow: a reader thread ([`Control::spawn_reader`]) reads stdin line
//! by line and sorts each ([`InboundLine::parse`]). A `control_response`
//! (the SDK answering one of orbit's requests) goes straight to the waiting
//! request through the pending map, so answers arrive while a turn runs;
//! every other line (user messages, the SDK's `control_request`s) goes to
//! the session loop ([`crate::session`]) as an [`Incoming`]. Lines orbit
//! writes (its [`OutgoingRequest`]s, [`ControlResponse`]s) are whole lines
//! on stdout, flushed at once, like the output writer's. The same request
//! path asks the SDK's `canUseTool` ([`SdkApprover`]), runs its hook
//! callbacks (`hook_callback`, as [`orbit_hooks::HookCallbacks`]) and
//! carries the JSON-RPC messages of its in-process MCP servers
//! (`mcp_message`, as [`orbit_mcp::sdk_transport::SdkMcpBridge`]).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use orbit_engine::{AbortHandle, Approval, ApprovalRequest, Approver, AskingAgent};
use serde::{Deserialize as _, Serialize};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::message::{ControlResponse, InboundLine, McpAnswer, OutgoingRequest, PermissionAnswer};

/// One line from the SDK for the session loop.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// `{"type":"user",…}`: the whole line.
    User(Value),
    /// `{"type":"control_request","request_id":…,"request":{…}}`.
    Request {
        /// The SDK's id, echoed in the response.
        id: String,
        /// The request body (see [`crate::ControlRequest::parse`]).
        request: Value,
    },
    /// A line that is not JSON or has a type orbit does not take.
    Invalid(String),
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>>;

/// The protocol's shared state: orbit's requests waiting for answers.
#[derive(Clone, Default)]
pub struct Control {
    pending: Pending,
    next_id: Arc<AtomicU64>,
    /// The engine's abort handle (set once the engine exists): a denial
    /// with `interrupt` ends the turn.
    abort: Arc<Mutex<Option<AbortHandle>>>,
    /// The TypeScript SDK's captured MCP handshakes (`initialize`'s
    /// `sdkMcpServerManifests`), answered without a round trip.
    pub(crate) manifests: crate::manifests::Manifests,
}

impl Control {
    /// Starts the stdin reader thread; the receiver ends when stdin closes.
    pub fn spawn_reader(&self) -> mpsc::UnboundedReceiver<Incoming> {
        let (tx, rx) = mpsc::unbounded_channel();
        let pending = Arc::clone(&self.pending);
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                if let Some(incoming) = route(&line, &pending)
                    && tx.send(incoming).is_err()
                {
                    break;
                }
            }
            // stdin closed: nobody will answer the requests still waiting.
            lock(&pending).clear();
        });
        rx
    }

    /// An approver asking the SDK's `can_use_tool` callback.
    pub fn approver(&self) -> SdkApprover {
        SdkApprover {
            control: self.clone(),
        }
    }

    /// The handle a denial with `interrupt: true` aborts the turn with.
    pub fn set_abort(&self, abort: AbortHandle) {
        *lock(&self.abort) = Some(abort);
    }

    /// Sends a `control_request` and waits for its answer.
    async fn request(&self, request: OutgoingRequest) -> Result<Value, String> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = format!("orbit_req_{n}");
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let line = json!({"type": "control_request", "request_id": id, "request": request});
        if let Err(err) = write_line(&line) {
            lock(&self.pending).remove(&id);
            return Err(format!("cannot write the request: {err}"));
        }
        rx.await
            .unwrap_or_else(|_| Err("the SDK closed its input without answering".to_string()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sorts one stdin line: answers go to their waiter, the rest to the loop.
fn route(line: &str, pending: &Pending) -> Option<Incoming> {
    match InboundLine::parse(line) {
        InboundLine::User(value) => Some(Incoming::User(value)),
        InboundLine::Request { id, request } => Some(Incoming::Request { id, request }),
        InboundLine::Response(response) => {
            if let Some(waiter) = lock(pending).remove(response.request_id()) {
                let _ = waiter.send(response.into_result());
            }
            None
        }
        // The SDK withdrawing a request orbit already answered: nothing to do.
        InboundLine::CancelRequest => None,
        InboundLine::Invalid(why) => Some(Incoming::Invalid(why)),
    }
}

/// Writes one JSON line on stdout and flushes it.
pub fn write_line<T: Serialize>(value: &T) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes)?;
    out.flush()
}

/// Answers the SDK's request `id`: `Ok(body)` → success, `Err(text)` → error.
pub fn respond(id: &str, answer: Result<Value, String>) -> std::io::Result<()> {
    let response = ControlResponse::new(id, answer);
    write_line(&json!({"type": "control_response", "response": response}))
}

/// SDK hooks: a `hook_callback` request per run; the answer is the hook's
/// JSON output, which `orbit-hooks` applies as a command hook's.
#[async_trait]
impl orbit_hooks::HookCallbacks for Control {
    async fn call(&self, id: &str, input: &Value) -> Result<Value, String> {
        let answer = self
            .request(OutgoingRequest::HookCallback {
                callback_id: id.to_string(),
                input: input.clone(),
                tool_use_id: input.get("tool_use_id").cloned(),
            })
            .await?;
        checked_hook_answer(input, answer)
    }
}

/// Claude Code's words for an answer naming another event.
fn wrong_event_text(expected: &str, got: &str) -> String {
    format!("Hook returned incorrect event name: expected '{expected}' but got '{got}'")
}

/// What the model is told when a PreToolUse callback's answer is refused
/// (Claude Code's words).
const PRE_TOOL_USE_HOOK_FAILED: &str = "PreToolUse hook failed with an unexpected error. \
     The tool call was not executed; other configured hooks may not have completed.";

/// Refuses an answer whose `hookSpecificOutput.hookEventName` names
/// another event than the hook's, as Claude Code does: a PreToolUse call
/// is then not run (a deny with Claude Code's text), a UserPromptSubmit
/// prompt is not sent (Claude Code ends the session there; orbit blocks
/// only that prompt), any other event's hook counts as failed.
fn checked_hook_answer(input: &Value, answer: Value) -> Result<Value, String> {
    let event = input.get("hook_event_name").and_then(Value::as_str);
    let named = answer
        .get("hookSpecificOutput")
        .and_then(|o| o.get("hookEventName"))
        .and_then(Value::as_str);
    match (event, named) {
        (Some("PreToolUse"), Some(named)) if named != "PreToolUse" => Ok(json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": PRE_TOOL_USE_HOOK_FAILED,
            }
        })),
        (Some("UserPromptSubmit"), Some(named)) if named != "UserPromptSubmit" => Ok(json!({
            "decision": "block",
            "reason": wrong_event_text("UserPromptSubmit", named),
        })),
        (Some(event), Some(named)) if named != event => Err(wrong_event_text(event, named)),
        _ => Ok(answer),
    }
}

/// SDK MCP servers: one `mcp_message` request per JSON-RPC message; the
/// answer's `mcp_response` is the server's reply.
impl orbit_mcp::sdk_transport::SdkMcpBridge for Control {
    fn send<'a>(
        &'a self,
        server: &'a str,
        message: Value,
    ) -> futures::future::BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            if let Some(reply) = self.manifests.answer(server, &message) {
                return Ok(reply);
            }
            let request = OutgoingRequest::McpMessage {
                server_name: server.to_string(),
                message,
            };
            let answer = self.request(request).await?;
            McpAnswer::deserialize(&answer)
                .map(|a| a.mcp_response)
                .map_err(|_| format!("the SDK's answer has no mcp_response: {answer}"))
        })
    }
}

/// The permission gate's ask path over the control protocol
/// (`--permission-prompt-tool stdio`): a `can_use_tool` request per ask.
pub struct SdkApprover {
    control: Control,
}

#[async_trait]
impl Approver for SdkApprover {
    async fn approve(&self, ask: &ApprovalRequest) -> Approval {
        self.ask(ask, None).await
    }

    /// A subagent's ask carries its `agent_id`, as Claude Code's does.
    async fn approve_for(&self, ask: &ApprovalRequest, agent: &AskingAgent) -> Approval {
        self.ask(ask, Some(agent.agent_id.clone())).await
    }
}

impl SdkApprover {
    /// One `can_use_tool` request and its answer.
    async fn ask(&self, ask: &ApprovalRequest, agent_id: Option<String>) -> Approval {
        let request = OutgoingRequest::CanUseTool {
            tool_name: ask.tool_name.clone(),
            input: ask.input.clone(),
            tool_use_id: ask.tool_use_id.clone(),
            decision_reason: ask.reason.clone(),
            permission_suggestions: crate::suggestions::for_ask(ask),
            agent_id,
        };
        let answer = match self.control.request(request).await {
            Ok(answer) => answer,
            Err(error) => {
                return Approval::Deny {
                    reason: Some(format!("The permission callback failed: {error}")),
                };
            }
        };
        decision(ask, &answer, lock(&self.control.abort).as_ref())
    }
}

/// The SDK's `{behavior, updatedInput | message, interrupt}` as an approval
/// (also the permission prompt tool's answer, [`crate::PromptTool`]).
pub fn decision(ask: &ApprovalRequest, answer: &Value, abort: Option<&AbortHandle>) -> Approval {
    match PermissionAnswer::deserialize(answer) {
        Ok(PermissionAnswer::Allow { updated_input }) => match updated_input {
            Some(updated) if !updated.is_null() && updated != ask.input => {
                Approval::AllowWithInput { input: updated }
            }
            // An allow rule picked from the suggestions: allowed from now on.
            _ => match crate::suggestions::chosen_rule(answer) {
                Some(rule) => Approval::AllowAlways { rule },
                None => Approval::Allow,
            },
        },
        Ok(PermissionAnswer::Deny { message, interrupt }) => {
            if interrupt == Some(true)
                && let Some(abort) = abort
            {
                abort.abort();
            }
            Approval::Deny {
                reason: message.filter(|m| !m.is_empty()),
            }
        }
        Err(_) => Approval::Deny {
            reason: Some(format!(
                "The permission callback gave no decision (behavior {:?}).",
                answer.get("behavior").and_then(Value::as_str)
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer naming another event is refused: a PreToolUse one becomes
    /// a deny, any other an error; a matching or unnamed one passes.
    #[test]
    fn a_hook_answer_for_another_event_is_refused() {
        let pre = json!({"hook_event_name": "PreToolUse"});
        let wrong = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "permissionDecision": "allow"}});
        let refused = checked_hook_answer(&pre, wrong.clone()).unwrap_or_default();
        assert_eq!(refused["hookSpecificOutput"]["permissionDecision"], "deny");
        let prompt = json!({"hook_event_name": "UserPromptSubmit"});
        let blocked = checked_hook_answer(&prompt, wrong.clone()).unwrap_or_default();
        assert_eq!(blocked["decision"], "block");
        let post = json!({"hook_event_name": "Stop"});
        assert!(checked_hook_answer(&post, wrong).is_err());
        let right = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse"}});
        assert_eq!(checked_hook_answer(&pre, right.clone()), Ok(right));
        assert_eq!(checked_hook_answer(&pre, json!({})), Ok(json!({})));
    }
}
