//! The ExitPlanMode tool: in plan mode, the model hands its finished plan
//! to the user for approval.
//!
//! Facts: [`CallFacts::asks_user`] — the permission gate asks in every
//! mode, plan mode included, so the person sees the plan before anything
//! changes (the terminal UI's plan dialog, an SDK's `can_use_tool`); with
//! no one to ask (headless) the session does not offer the tool at all.
//!
//! Flow: the input (`plan`, Markdown) → the gate's ask → approved: the call
//! leaves plan mode ([`PlanExit`]: to `default`, unless the person already
//! picked the next mode in the dialog) and tells the model the plan is
//! approved and which mode is in force; rejected: the gate's denial (the
//! person's reason) is what the model gets, and the mode stays plan.

use async_trait::async_trait;
use orbit_tool::{CallFacts, PlanExit, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const EXIT_PLAN_MODE_TOOL_NAME: &str = orbit_tool::plan::EXIT_PLAN_MODE_TOOL_NAME;

const DESCRIPTION: &str = "Present your finished plan to the user for approval and leave plan mode.\n\n\
Use it only in plan mode, once you have read what you need and the plan is complete: the concrete \
steps, the files to change and how to check the result. The user reads the plan and either \
approves it (plan mode ends and you carry it out) or asks you to keep planning (revise it and \
call this again). Do not use it for research or questions that need no code change, and do not \
ask \"is this plan ok?\" any other way: this tool is that question.";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExitPlanModeInput {
    /// The plan to run by the user, in Markdown: concise, concrete steps
    pub plan: String,
}

/// The ExitPlanMode tool.
pub struct ExitPlanModeTool;

#[async_trait]
impl TypedTool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;
    type Plan = String;

    fn facts(&self, _input: &ExitPlanModeInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts {
            asks_user: true,
            ..CallFacts::about("the plan")
        }
    }

    async fn validate(
        &self,
        input: ExitPlanModeInput,
        _ctx: &ToolUseContext,
    ) -> Result<String, ToolError> {
        if input.plan.trim().is_empty() {
            return Err(ToolError::RespondToModel(
                "The plan is empty: write the plan in the `plan` field.".to_string(),
            ));
        }
        Ok(input.plan)
    }

    async fn call(
        &self,
        plan: String,
        ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let mode = PlanExit::of(ctx).leave();
        let now = match mode {
            Some(mode) => format!(" Plan mode is over: the permission mode is now {mode}."),
            None => String::new(),
        };
        Ok(ToolOutput::text(format!(
            "The user approved your plan.{now} Carry it out now, step by step, keeping your todo \
             list current.\n\nApproved plan:\n{plan}"
        )))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(EXIT_PLAN_MODE_TOOL_NAME, DESCRIPTION)
            .with_search_hint("present the plan for approval, leave plan mode")
    }
}
