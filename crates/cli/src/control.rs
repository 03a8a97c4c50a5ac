//! The Claude Agent SDK's control protocol on orbit's stdin/stdout (JSON
//! lines, `--input-format stream-json`).
//!
//! Data flow: a reader thread ([`Control::spawn_reader`]) reads stdin line
//! by line. A `control_response` (the SDK answering one of orbit's
//! requests) goes straight to the waiting [`SdkApprover`] through the
//! pending map, so answers arrive while a turn runs; every other line
//! (user messages, the SDK's `control_request`s) goes to the session loop
//! ([`crate::sdk_session`]) as an [`Incoming`]. Lines orbit writes
//! (`control_request` for `can_use_tool`, `control_response`s) are whole
//! lines on stdout, flushed at once, like the output writer's. The same
//! request path runs the SDK's hook callbacks (`hook_callback`, as
//! [`orbit_hooks::HookCallbacks`]) and carries the JSON-RPC messages of
//! the SDK's in-process MCP servers (`mcp_message`, as
//! [`orbit_mcp::sdk_transport::SdkMcpBridge`]).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use orbit_engine::{AbortHandle, Approval, ApprovalRequest, Approver};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// One line from the SDK for the session loop.
#[derive(Debug)]
pub enum Incoming {
    /// `{"type":"user",…}`: the whole line.
    User(Value),
    /// `{"type":"control_request","request_id":…,"request":{…}}`.
    Request {
        /// The SDK's id, echoed in the response.
        id: String,
        /// The request body (`subtype` and its fields).
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
    async fn request(&self, request: Value) -> Result<Value, String> {
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
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return Some(Incoming::Invalid(format!("not JSON: {line}")));
    };
    match value.get("type").and_then(Value::as_str) {
        Some("user") => Some(Incoming::User(value)),
        Some("control_request") => Some(Incoming::Request {
            id: str_field(&value, "request_id"),
            request: value.get("request").cloned().unwrap_or(Value::Null),
        }),
        Some("control_response") => {
            let response = value.get("response").cloned().unwrap_or(Value::Null);
            let id = str_field(&response, "request_id");
            let answer = match response.get("subtype").and_then(Value::as_str) {
                Some("success") => Ok(response.get("response").cloned().unwrap_or(Value::Null)),
                _ => Err(str_field(&response, "error")),
            };
            if let Some(waiter) = lock(pending).remove(&id) {
                let _ = waiter.send(answer);
            }
            None
        }
        // The SDK withdrawing a request orbit already answered: nothing to do.
        Some("control_cancel_request") => None,
        other => Some(Incoming::Invalid(format!(
            "unknown message type {}",
            other.unwrap_or("(none)")
        ))),
    }
}

fn str_field(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Writes one JSON line on stdout and flushes it.
pub fn write_line(value: &Value) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes)?;
    out.flush()
}

/// Answers the SDK's request `id`: `Ok(body)` → success, `Err(text)` → error.
pub fn respond(id: &str, answer: Result<Value, String>) -> std::io::Result<()> {
    let response = match answer {
        Ok(body) => json!({"subtype": "success", "request_id": id, "response": body}),
        Err(error) => json!({"subtype": "error", "request_id": id, "error": error}),
    };
    write_line(&json!({"type": "control_response", "response": response}))
}

/// SDK hooks: a `hook_callback` request per run; the answer is the hook's
/// JSON output, which `orbit-hooks` applies as a command hook's.
#[async_trait]
impl orbit_hooks::HookCallbacks for Control {
    async fn call(&self, id: &str, input: &Value) -> Result<Value, String> {
        let request = json!({
            "subtype": "hook_callback",
            "callback_id": id,
            "input": input,
            "tool_use_id": input.get("tool_use_id"),
        });
        self.request(request).await
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
            let request =
                json!({"subtype": "mcp_message", "server_name": server, "message": message});
            let answer = self.request(request).await?;
            answer
                .get("mcp_response")
                .cloned()
                .ok_or_else(|| format!("the SDK's answer has no mcp_response: {answer}"))
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
        let request = json!({
            "subtype": "can_use_tool",
            "tool_name": ask.tool_name,
            "input": ask.input,
            "tool_use_id": ask.tool_use_id,
            "decision_reason": ask.reason,
            "permission_suggestions": [],
        });
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

/// The SDK's `{behavior, updatedInput | message, interrupt}` as an approval.
pub(crate) fn decision(
    ask: &ApprovalRequest,
    answer: &Value,
    abort: Option<&AbortHandle>,
) -> Approval {
    match answer.get("behavior").and_then(Value::as_str) {
        Some("allow") => match answer.get("updatedInput") {
            Some(updated) if !updated.is_null() && *updated != ask.input => {
                Approval::AllowWithInput {
                    input: updated.clone(),
                }
            }
            _ => Approval::Allow,
        },
        Some("deny") => {
            if answer.get("interrupt").and_then(Value::as_bool) == Some(true)
                && let Some(abort) = abort
            {
                abort.abort();
            }
            let message = str_field(answer, "message");
            Approval::Deny {
                reason: (!message.is_empty()).then_some(message),
            }
        }
        other => Approval::Deny {
            reason: Some(format!(
                "The permission callback gave no decision (behavior {other:?})."
            )),
        },
    }
}
