//! TaskStop: stops a running background task — a background subagent
//! (its turn aborted, its tools cancelled and their processes gone before
//! the call answers) or a background shell (its process group killed).
//!
//! Facts: those of KillShell — it changes no file, but it ends work the
//! session started, so it is not read-only (the gate treats it as any call
//! with an effect). Flow: the input (Claude Code 2.1.332's `task_id`;
//! `shell_id` is accepted as its older name) → call looks the id up in the
//! session's `BackgroundTasks`, then its background shells → Claude Code's
//! JSON answer (`message`, `task_id`, `task_type`, `command`); an unknown
//! or finished id is an error result.

use async_trait::async_trait;
use orbit_tool::subagent::BackgroundTasks;
use orbit_tool::{CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use super::bash::background::BackgroundShells;
use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const TASK_STOP_TOOL_NAME: &str = "TaskStop";

/// TaskStop answers one short line.
const TASK_STOP_MAX_RESULT_SIZE_CHARS: usize = 10_000;

const DESCRIPTION: &str = "Stops a running background task by its ID: a background agent (its \
     tools are cancelled) or a background shell (every process it started is killed). Use it \
     when the task is no longer needed.";

/// TaskStop's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TaskStopInput {
    /// The ID of the background task to stop
    #[serde(default)]
    pub task_id: Option<String>,
    /// Deprecated: use task_id instead
    #[serde(default)]
    pub shell_id: Option<String>,
}

/// Stops a background task (register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskStopTool;

/// Claude Code's answer to a stopped task.
fn stopped(id: &str, kind: &str, command: &str) -> String {
    serde_json::json!({
        "message": format!("Successfully stopped task: {id} ({command})"),
        "task_id": id,
        "task_type": kind,
        "command": command,
    })
    .to_string()
}

#[async_trait]
impl TypedTool for TaskStopTool {
    type Input = TaskStopInput;
    type Plan = String;

    fn facts(&self, input: &TaskStopInput, _ctx: &ToolUseContext) -> CallFacts {
        let id = input.task_id.as_deref().or(input.shell_id.as_deref());
        CallFacts::about(id.unwrap_or_default())
    }

    async fn validate(
        &self,
        input: TaskStopInput,
        _ctx: &ToolUseContext,
    ) -> Result<String, ToolError> {
        input
            .task_id
            .or(input.shell_id)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| ToolError::RespondToModel("Missing required parameter: task_id".into()))
    }

    async fn call(
        &self,
        id: String,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        if call.cancel.is_cancelled() {
            return Ok(ToolOutput::interrupted());
        }
        let tasks = BackgroundTasks::of(ctx);
        let stopping = tokio::select! {
            task = tasks.stop(&id) => task,
            () = call.cancel.cancelled() => return Ok(ToolOutput::interrupted()),
        };
        if let Some(task) = stopping {
            return Ok(ToolOutput::text(stopped(
                &id,
                "local_agent",
                &task.description,
            )));
        }
        if let Some(shell) = BackgroundShells::of(ctx).get(&id)
            && shell.kill()
        {
            return Ok(ToolOutput::text(stopped(&id, "local_bash", &shell.command)));
        }
        Ok(ToolOutput::error(format!(
            "No running task found with ID: {id}"
        )))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(TASK_STOP_TOOL_NAME, DESCRIPTION)
            .with_search_hint("stop a background agent or shell")
            .with_result_limit(ResultLimit::PersistOver(TASK_STOP_MAX_RESULT_SIZE_CHARS))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn call(tool: &TaskStopTool, id: &str, ctx: &ToolUseContext) -> ToolOutput {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            if id.starts_with("bash") {
                let dir = std::env::temp_dir();
                BackgroundShells::of(ctx)
                    .spawn("sleep 300", &dir, &[], &[], None)
                    .unwrap();
            }
            tool.call(id.to_string(), ctx, &CallContext::detached("toolu_1"))
                .await
                .unwrap()
        })
    }

    #[test]
    fn stops_a_background_shell_and_refuses_an_unknown_id() {
        let ctx = ToolUseContext::new("s", std::env::temp_dir(), std::env::temp_dir());
        let out = call(&TaskStopTool, "bash_1", &ctx);
        assert!(!out.is_error, "{out:?}");
        let answer: serde_json::Value = serde_json::from_str(&out.content.as_text()).unwrap();
        assert_eq!(answer["task_type"], "local_bash", "{answer}");
        assert_eq!(answer["command"], "sleep 300", "{answer}");
        let shell = BackgroundShells::of(&ctx).get("bash_1").unwrap();
        assert_eq!(shell.status().label(), "killed");
        let unknown = call(&TaskStopTool, "a0000000000000000", &ctx);
        assert!(unknown.is_error, "{unknown:?}");
        assert!(
            unknown
                .content
                .as_text()
                .contains("No running task found with ID: a0000000000000000")
        );
    }
}
