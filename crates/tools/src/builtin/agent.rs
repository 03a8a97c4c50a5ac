//! The Agent tool: delegates a task to a subagent — a session of its own
//! (own history, system prompt and tool set) whose final reply is this
//! call's result.
//!
//! Facts: concurrency-safe (several Agent calls of one message run in
//! parallel), read-only as far as the permission gate is concerned (it
//! changes nothing itself; every tool call of the subagent goes through
//! the subagent's own gate, with the parent's rules and approver).
//!
//! Flow: the input (Claude Code's schema: `description`, `prompt`,
//! `subagent_type`, `model`, `effort`, `run_in_background`, `isolation`)
//! → validate checks the type and the isolation mode → call hands a
//! [`SubagentRequest`] to the session's [`SubagentLauncher`] → the model
//! gets the subagent's final text plus its id and a `<usage>` block, as
//! Claude Code 2.1.332 gives them (and a `<worktree>` block when its
//! worktree was kept); a failed subagent is an error result. With
//! `run_in_background` the launcher starts it and the call answers at once
//! with Claude Code's "Async agent launched" text; the result arrives later
//! as a `<task-notification>` message (`orbit_tool::subagent`).

use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::subagent::{SubagentLaunch, worktree_note};
use orbit_tool::{
    CallFacts, SubagentLauncher, SubagentReport, SubagentRequest, ToolError, ToolInfo, ToolOutput,
    TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const AGENT_TOOL_NAME: &str = "Agent";

/// Whether an `isolation` value asks for none: `none`, and `false`, `null`
/// or an empty string, as small models fill an optional field they mean to
/// leave out (seen from Qwen2.5-Coder 1.5B on every Agent call).
fn no_isolation(mode: &str) -> bool {
    let mode = mode.trim();
    mode.is_empty()
        || ["none", "false", "null"]
            .iter()
            .any(|n| mode.eq_ignore_ascii_case(n))
}

/// The isolation mode that runs the agent in a fresh git worktree.
const WORKTREE: &str = "worktree";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// A short (3-5 word) description of the task
    pub description: String,
    /// The task for the agent to perform
    pub prompt: String,
    /// The type of agent to use for this task (default: general-purpose)
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// Optional model for this agent (an alias such as sonnet, opus, haiku, or a model id); the agent's own or the parent's otherwise
    #[serde(default)]
    pub model: Option<String>,
    /// Optional reasoning effort for this agent
    #[serde(default)]
    pub effort: Option<String>,
    /// Set to true to run this agent in the background. You will be notified when it completes
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// Isolation mode. "worktree" creates a temporary git worktree so the agent works on an isolated copy of the repository
    #[serde(default)]
    pub isolation: Option<String>,
}

/// The Agent tool, bound to the session's launcher.
pub struct AgentTool {
    launcher: Arc<dyn SubagentLauncher>,
    description: String,
}

impl AgentTool {
    /// The tool for a session whose subagents `launcher` starts; its
    /// description lists the agent types.
    pub fn new(launcher: Arc<dyn SubagentLauncher>) -> Self {
        let mut description = String::from(
            "Launch a subagent to handle a task on its own: it works in a fresh context with its \
             own tools and returns only its final report. Use it for broad searches and \
             self-contained multi-step work, to keep your own context small. Give it a complete, \
             self-contained prompt (it does not see this conversation) and say what to report \
             back. Launch independent agents in one message with several tool uses so they run \
             in parallel. The result is the agent's final report, not shown to the user: \
             summarize it for them.\n\nAvailable agent types:\n",
        );
        for (name, about) in launcher.agent_types() {
            description.push_str(&format!("- {name}: {about}\n"));
        }
        Self {
            launcher,
            description,
        }
    }
}

/// The tool_result text: the report, then its id and usage (Claude Code's
/// layout).
pub fn result_text(report: &SubagentReport) -> String {
    let mut text = format!(
        "{}\nagentId: {}\n<usage>subagent_tokens: {}\ntool_uses: {}\nduration_ms: {}</usage>",
        report.text, report.agent_id, report.total_tokens, report.tool_uses, report.duration_ms
    );
    if let Some(kept) = &report.kept_worktree {
        text.push('\n');
        text.push_str(&worktree_note(kept));
    }
    text
}

/// The tool_result of a background launch (Claude Code 2.1.332's text,
/// naming TaskStop instead of SendMessage).
pub fn launched_text(launch: &SubagentLaunch) -> String {
    format!(
        "Async agent launched successfully. (This tool result is internal metadata — never quote \
         or paste any part of it, including the agentId below, into a user-facing reply.)\n\
         agentId: {id} (internal ID - do not mention to user. Use TaskStop with task_id: '{id}' \
         to stop this agent.)\nThe agent is working in the background. You will be notified \
         automatically when it completes. You know nothing about its results until that \
         notification arrives — do not report, assume, or predict them; continue other work or \
         respond to the user in the meantime.\nDo not duplicate this agent's work — avoid \
         working with the same files or topics it is using.\noutput_file: {file}\nDo NOT Read \
         or tail this file via the shell tool — it is the full subagent JSONL transcript and \
         reading it will overflow your context. If the user asks for progress, say the agent is \
         still running; you'll get a completion notification.",
        id = launch.agent_id,
        file = launch.output_file.display()
    )
}

#[async_trait]
impl TypedTool for AgentTool {
    type Input = AgentInput;
    type Plan = SubagentRequest;

    fn facts(&self, input: &AgentInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(input.description.clone()).only_reads()
    }

    async fn validate(
        &self,
        input: AgentInput,
        _ctx: &ToolUseContext,
    ) -> Result<SubagentRequest, ToolError> {
        if let Some(kind) = &input.subagent_type {
            let types = self.launcher.agent_types();
            if !types.iter().any(|(name, _)| name == kind) {
                let names: Vec<&str> = types.iter().map(|(n, _)| n.as_str()).collect();
                return Err(ToolError::RespondToModel(format!(
                    "Agent type '{kind}' not found. Available agents: {}",
                    names.join(", ")
                )));
            }
        }
        // "none", and the "false" / "" small models write for an optional
        // field they mean to leave out, ask for no isolation.
        let isolation = input.isolation.filter(|m| !no_isolation(m));
        if let Some(mode) = isolation.as_deref().filter(|m| *m != WORKTREE) {
            return Err(ToolError::RespondToModel(format!(
                "isolation \"{mode}\" is not supported: use \"{WORKTREE}\" or leave it out"
            )));
        }
        Ok(SubagentRequest {
            description: input.description,
            prompt: input.prompt,
            subagent_type: input.subagent_type,
            model: input.model,
            effort: input.effort,
            run_in_background: input.run_in_background.unwrap_or(false),
            isolation,
        })
    }

    async fn call(
        &self,
        request: SubagentRequest,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        if call.cancel.is_cancelled() {
            return Ok(ToolOutput::interrupted());
        }
        if request.run_in_background {
            return Ok(match self.launcher.launch(request, call, ctx) {
                Ok(launch) => ToolOutput::text(launched_text(&launch)),
                Err(why) => ToolOutput::error(format!("The subagent failed: {why}")),
            });
        }
        match self.launcher.run(request, call).await {
            Ok(report) if report.is_error => Ok(ToolOutput::error(result_text(&report))),
            Ok(report) => Ok(ToolOutput::text(result_text(&report))),
            Err(why) => Ok(ToolOutput::error(format!("The subagent failed: {why}"))),
        }
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(AGENT_TOOL_NAME, &self.description)
            .with_aliases(&["Task"])
            .with_search_hint("delegate a task to a subagent")
    }
}

#[cfg(test)]
mod tests {
    use super::no_isolation;

    #[test]
    fn none_false_null_and_empty_ask_for_no_isolation() {
        for mode in ["none", "false", "False", "null", "", "  "] {
            assert!(no_isolation(mode), "{mode:?}");
        }
        for mode in ["worktree", "container", "true"] {
            assert!(!no_isolation(mode), "{mode:?}");
        }
    }
}
