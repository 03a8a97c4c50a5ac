//! The loop's hook points: the queued ones (InstructionsLoaded) and
//! SessionStart on the first prompt of a session (SessionStart also after
//! each compaction), UserPromptSubmit, Stop, StopFailure,
//! PostToolBatch, PreCompact and PostCompact. What a
//! verdict does here: context joins the prompt (or the history after a
//! compaction); a UserPromptSubmit block drops the prompt and ends the run;
//! a Stop block makes the agent go on with the reason as a user message;
//! `continue: false` from any hook ends the run after that point.

use orbit_hooks::HookEvent;
use orbit_model::ModelError;
use orbit_protocol::{CompactTrigger, ContentBlock, Message};
use serde_json::json;

use super::QueryLoop;
use super::outcome::Outcome;
use crate::runtime::ToolRuntime;

/// The name of a compaction trigger as hooks see it (`manual` / `auto`).
fn trigger_name(trigger: CompactTrigger) -> &'static str {
    match trigger {
        CompactTrigger::Manual => "manual",
        CompactTrigger::Auto | CompactTrigger::Fallback => "auto",
    }
}

/// PreCompact hooks (their answers are informational).
pub(super) async fn pre_compact(
    runtime: &ToolRuntime,
    trigger: CompactTrigger,
    instructions: Option<&str>,
) {
    let name = trigger_name(trigger);
    let fields = json!({"trigger": name, "custom_instructions": instructions.unwrap_or("")});
    runtime
        .hooks
        .run(HookEvent::PreCompact, Some(name), fields)
        .await;
}

/// PostCompact hooks (informational): the trigger and the summary.
pub(super) async fn post_compact(runtime: &ToolRuntime, trigger: CompactTrigger, summary: &str) {
    let name = trigger_name(trigger);
    let fields = json!({"trigger": name, "compact_summary": summary});
    runtime
        .hooks
        .run(HookEvent::PostCompact, Some(name), fields)
        .await;
}

/// StopFailure's matcher value for a model error (Claude Code's kinds).
fn failure_kind(error: &ModelError) -> &'static str {
    let (status, error_type) = match error {
        ModelError::Api {
            status, error_type, ..
        } => (*status, error_type.as_deref().unwrap_or_default()),
        ModelError::StreamError { error_type, .. } => (0, error_type.as_str()),
        _ => return "unknown",
    };
    match (status, error_type) {
        (429, _) | (_, "rate_limit_error") => "rate_limit",
        (529, _) | (_, "overloaded_error") => "overloaded",
        (401, _) | (_, "authentication_error") => "authentication_failed",
        (402, _) | (_, "billing_error") => "billing_error",
        (404, _) | (_, "not_found_error") => "model_not_found",
        (400, _) | (_, "invalid_request_error") => "invalid_request",
        (500..=599, _) | (_, "api_error") => "server_error",
        _ => "unknown",
    }
}

/// StopFailure hooks: the turn ended with `error` instead of an answer
/// (fire-and-forget, their answers are ignored).
pub(super) async fn stop_failure(runtime: &ToolRuntime, error: &ModelError, last: &str) {
    if !runtime.hooks.active(HookEvent::StopFailure) {
        return;
    }
    let kind = failure_kind(error);
    let last = (!last.trim().is_empty()).then_some(last);
    let fields = json!({"error": kind, "error_details": error.to_string(),
        "last_assistant_message": last});
    runtime
        .hooks
        .run(HookEvent::StopFailure, Some(kind), fields)
        .await;
}

/// The runs the session's assembly queued for its first prompt
/// (InstructionsLoaded), in order; their answers are ignored.
async fn pending_hooks(runtime: &ToolRuntime) {
    let pending = runtime
        .context
        .extension(
            orbit_hooks::PENDING_HOOKS_KEY,
            orbit_hooks::PendingHooks::default,
        )
        .take();
    for (event, subject, fields) in pending {
        runtime.hooks.run(event, subject.as_deref(), fields).await;
    }
}

/// SessionStart hooks after a compaction: their context, if any.
pub(super) async fn after_compact(runtime: &ToolRuntime) -> Option<String> {
    session_start(runtime, "compact").await
}

async fn session_start(runtime: &ToolRuntime, source: &str) -> Option<String> {
    let fields = json!({"source": source});
    runtime
        .hooks
        .run(HookEvent::SessionStart, Some(source), fields)
        .await
        .context()
}

impl QueryLoop<'_> {
    /// The prompt's user message with the context of the SessionStart
    /// (first prompt only) and UserPromptSubmit hooks; Err: how the run
    /// ends instead (a block, or `continue: false`).
    pub(super) async fn prompt_message(&mut self, prompt: String) -> Result<Message, Outcome> {
        let mut content = vec![ContentBlock::text(prompt.clone())];
        if let Some(source) = self.session_start.take() {
            pending_hooks(self.runtime).await;
            if let Some(context) = session_start(self.runtime, source).await {
                content.push(ContentBlock::text(context));
            }
        }
        if self.runtime.hooks.active(HookEvent::UserPromptSubmit) {
            let verdict = self
                .runtime
                .hooks
                .run(HookEvent::UserPromptSubmit, None, json!({"prompt": prompt}))
                .await;
            if let Some(reason) = verdict.block {
                return Err(Outcome::PromptBlocked(reason));
            }
            if let Some(context) = verdict.context() {
                content.push(ContentBlock::text(context));
            }
        }
        if let Some(reason) = self.runtime.hooks.take_stop() {
            return Err(Outcome::HookStopped(reason));
        }
        Ok(Message::user(content))
    }

    /// The Stop hooks when the agent is about to end: Some(reason) when one
    /// blocks (the agent goes on with it). `stop_hook_active` tells the
    /// hook it already made the agent go on in this prompt.
    pub(super) async fn stop_hooks(&mut self) -> Option<String> {
        if !self.runtime.hooks.active(HookEvent::Stop) {
            return None;
        }
        let fields = json!({
            "stop_hook_active": self.stop_hook_active,
            "last_assistant_message": self.answer,
        });
        let verdict = self.runtime.hooks.run(HookEvent::Stop, None, fields).await;
        let reason = verdict.block?;
        self.stop_hook_active = true;
        Some(reason)
    }

    /// PostToolBatch hooks after every call of `message` resolved (its
    /// results are the history's last message): their context joins the
    /// history once; a block (exit 2) ends the run.
    pub(super) async fn post_tool_batch(&mut self, message: &Message) -> Option<Outcome> {
        if !self.runtime.hooks.active(HookEvent::PostToolBatch) {
            return None;
        }
        let results = self.session.messages().last();
        let calls: Vec<_> = message
            .tool_uses()
            .map(|call| {
                let response = results
                    .into_iter()
                    .flat_map(|m| m.tool_results())
                    .find(|r| r.tool_use_id == call.id)
                    .map(|r| r.content.as_text());
                json!({"tool_name": call.name, "tool_input": call.input,
                    "tool_use_id": call.id, "tool_response": response})
            })
            .collect();
        let fields = json!({"tool_calls": calls});
        let verdict = self
            .runtime
            .hooks
            .run(HookEvent::PostToolBatch, None, fields)
            .await;
        if let Some(reason) = verdict.block {
            return Some(Outcome::HookStopped(reason));
        }
        if let Some(context) = verdict.context() {
            self.append_user(Message::user_text(context));
        }
        None
    }
}
