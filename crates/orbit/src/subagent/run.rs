//! One subagent from its request to its [`SubagentReport`].
//!
//! Data flow: the definition → (with `isolation: "worktree"`) a fresh
//! worktree → the subagent's spec → [`SessionSpec::build`] → the sidechain's
//! meta file → `SubagentStart` → `submit_message` (the prompt) → every
//! assistant/user message of the subagent is reported as the Agent call's
//! progress ([`SUBAGENT_EVENT_KEY`]; the stream-json writer prints it with
//! `parent_tool_use_id`) while the engine records it in the sidechain → the
//! terminal result becomes the report → the worktree is removed (or kept,
//! holding changes) → `SubagentStop`. The call's cancel (the parent's
//! interrupt, or TaskStop for a background one) aborts the subagent's turn:
//! its tools are cancelled and the turn ends interrupted.

use std::time::Instant;

use futures::StreamExt;
use orbit_hooks::HookEvent;
use orbit_protocol::{ContentBlock, EngineEvent, Message, Role};
use orbit_session::sidechain::{SidechainMeta, write_meta};
use orbit_tool::{CallContext, SubagentReport, SubagentRequest, ToolProgress};

use super::worktree::Worktree;
use super::{SUBAGENT_COST_KEY, SUBAGENT_EVENT_KEY, SubagentFactory};

/// The `isolation` value that asks for a worktree.
pub(super) const WORKTREE_ISOLATION: &str = "worktree";

impl SubagentFactory {
    /// Runs the subagent `agent_id` to its end; `shape` is `foreground` or
    /// `background` (its meta file says which).
    pub(super) async fn run_as(
        &self,
        agent_id: &str,
        request: SubagentRequest,
        call: &CallContext,
        shape: &str,
    ) -> Result<SubagentReport, String> {
        let definition = self.definition(&request)?;
        let worktree = match request.isolation.as_deref() {
            Some(WORKTREE_ISOLATION) => Some(Worktree::create(&self.parent.cwd, agent_id)?),
            _ => None,
        };
        let cwd = worktree
            .as_ref()
            .map_or_else(|| self.parent.cwd.clone(), |w| w.cwd.clone());
        let transcript = self.sidechain(agent_id);
        let mut spec = self.spec(&definition, &request, cwd, transcript.clone());
        // Its asks reach the parent's approver naming it.
        spec.approver = spec.approver.map(|parent| {
            let agent = orbit_engine::AskingAgent {
                agent_id: agent_id.to_string(),
                agent_type: definition.name.clone(),
            };
            orbit_engine::SubagentApprover::shared(parent, agent)
        });
        let built = match spec.build() {
            Ok(built) => built,
            Err(e) => {
                if let Some(worktree) = worktree {
                    worktree.finish();
                }
                return Err(format!("{e}"));
            }
        };
        let mut engine = built.engine;
        let model = engine.config().model.clone();
        let hooks = engine.config().hooks.clone();
        let meta = SidechainMeta {
            agent_type: definition.name.clone(),
            description: request.description.clone(),
            tool_use_id: call.tool_use_id.clone(),
            request_shape: shape.to_string(),
            model: model.clone(),
        };
        if let Err(err) = write_meta(&transcript, &meta) {
            eprintln!("orbit: warning: subagent {agent_id}: cannot write its meta file: {err}");
        }
        let forward = |event: &EngineEvent| {
            call.progress(ToolProgress::Other(serde_json::json!({
                SUBAGENT_EVENT_KEY: event,
                "agent_id": agent_id,
                "subagent_type": definition.name,
            })));
        };
        forward(&EngineEvent::UserMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message: Message {
                role: Role::User,
                content: vec![ContentBlock::text(request.prompt.clone())],
            },
        });
        if let Some(hooks) = &hooks
            && hooks.has(HookEvent::SubagentStart)
        {
            let input = serde_json::json!({
                "session_id": self.parent.session_id,
                "cwd": self.parent.cwd,
                "agent_id": agent_id,
                "agent_type": definition.name,
            });
            hooks.run(HookEvent::SubagentStart, None, input).await;
        }
        let started = Instant::now();
        let abort = engine.abort_handle();
        let mut report = SubagentReport {
            agent_id: agent_id.to_string(),
            agent_type: definition.name.clone(),
            model: model.clone(),
            ..SubagentReport::default()
        };
        let mut usage = orbit_protocol::Usage::default();
        let mut result = None;
        {
            let mut stream = engine.submit_message(request.prompt.clone());
            loop {
                let next = if report.stopped {
                    stream.next().await
                } else {
                    tokio::select! {
                        () = call.cancel.cancelled() => {
                            abort.abort();
                            report.stopped = true;
                            continue;
                        }
                        next = stream.next() => next,
                    }
                };
                let Some(event) = next else { break };
                match &event {
                    EngineEvent::AssistantMessage { usage: u, .. } => {
                        usage.input_tokens += u.input_tokens;
                        usage.output_tokens += u.output_tokens;
                        usage.cache_creation_input_tokens += u.cache_creation_input_tokens;
                        usage.cache_read_input_tokens += u.cache_read_input_tokens;
                        forward(&event);
                    }
                    EngineEvent::UserMessage { .. } => forward(&event),
                    EngineEvent::ToolStarted { .. } => report.tool_uses += 1,
                    EngineEvent::Result(r) => result = Some(r.clone()),
                    _ => {}
                }
            }
        }
        // The subagent's session ends here: its tools' processes with it.
        drop(engine);
        report.kept_worktree = worktree.and_then(Worktree::finish);
        let result = result.ok_or_else(|| "the subagent ended without a result".to_string())?;
        report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        report.total_tokens = usage.input_tokens + usage.output_tokens;
        report.cost_usd = result.total_cost_usd;
        report.is_error = result.subtype.is_error() || result.interrupted;
        report.text = if result.result.is_empty() && report.is_error {
            result.errors.join("\n")
        } else {
            result.result.clone()
        };
        call.progress(ToolProgress::Other(serde_json::json!({
            SUBAGENT_COST_KEY: report.cost_usd,
            "model": model,
            "usage": usage,
        })));
        if let Some(hooks) = hooks
            && hooks.has(HookEvent::SubagentStop)
        {
            let input = serde_json::json!({
                "session_id": self.parent.session_id,
                "cwd": self.parent.cwd,
                "permission_mode": self.parent.permissions.mode.as_str(),
                "agent_id": agent_id,
                "agent_type": definition.name,
                "stop_hook_active": false,
                "last_assistant_message": report.text,
            });
            hooks.run(HookEvent::SubagentStop, None, input).await;
        }
        Ok(report)
    }
}
