//! The loop's hook points: SessionStart (the first prompt of a session, and
//! after each compaction), UserPromptSubmit, Stop and PreCompact. What a
//! verdict does here: context joins the prompt (or the history after a
//! compaction); a UserPromptSubmit block drops the prompt and ends the run;
//! a Stop block makes the agent go on with the reason as a user message;
//! `continue: false` from any hook ends the run after that point.

use orbit_hooks::HookEvent;
use orbit_protocol::{CompactTrigger, ContentBlock, Message};
use serde_json::json;

use super::QueryLoop;
use super::outcome::Outcome;
use crate::orchestrator::ToolRuntime;

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
        if let Some(source) = self.session_start.take()
            && let Some(context) = session_start(self.runtime, source).await
        {
            content.push(ContentBlock::text(context));
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
}
