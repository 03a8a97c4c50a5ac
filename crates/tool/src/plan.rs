//! How the `ExitPlanMode` tool leaves plan mode: [`PlanExit`], a context
//! extension holding the session's mode switch, which the engine installs
//! over its permission policy (this crate knows nothing of the policy).
//!
//! Data flow: the person approves the plan (the permission gate's ask: the
//! terminal UI's plan dialog may pick the next mode itself, an SDK answers
//! `can_use_tool`) → the tool's call runs [`PlanExit::leave`] → the
//! policy leaves plan mode for `default` when it is still in it → the
//! tool tells the model which mode is now in force.

use std::sync::{Arc, Mutex};

use crate::context::ToolUseContext;

/// The plan tool's name (the engine looks for it before reminding the
/// model of plan mode).
pub const EXIT_PLAN_MODE_TOOL_NAME: &str = "ExitPlanMode";

/// The question tool's name (a call where it is not offered is told no
/// user can answer).
pub const ASK_USER_TOOL_NAME: &str = "AskUserQuestion";

/// What the model is told about plan mode when `ExitPlanMode` is offered:
/// in the system prompt of a session that starts in plan mode, or as a
/// reminder before the prompt of a turn that runs in plan mode otherwise.
pub const PLAN_MODE_PROMPT: &str = "# Plan mode\n\
Plan mode is on: the user wants a plan before anything changes. Do not edit files or run \
commands that change anything (such calls are refused); read, search and think. Explore what the \
task touches, use AskUserQuestion only for a decision that is truly the user's, then write a \
concrete plan: the steps, the files to change, how to check the result. Finish by calling \
ExitPlanMode with the plan in Markdown. The user either approves it (plan mode ends: then carry \
it out) or asks you to keep planning (revise it and call ExitPlanMode again).";

/// Leaves plan mode if the session is in it; returns the mode in force
/// afterwards (`default`, `acceptEdits`, …).
pub type ModeSwitch = dyn Fn() -> String + Send + Sync;

/// Context extension key of the session's [`PlanExit`].
const PLAN_EXIT_KEY: &str = "orbit.plan_exit";

/// The session's way out of plan mode (see the module docs).
#[derive(Default)]
pub struct PlanExit {
    switch: Mutex<Option<Arc<ModeSwitch>>>,
}

impl std::fmt::Debug for PlanExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanExit(..)")
    }
}

impl PlanExit {
    /// The session's (every clone of `ctx` shares it).
    pub fn of(ctx: &ToolUseContext) -> Arc<Self> {
        ctx.extension(PLAN_EXIT_KEY, Self::default)
    }

    /// Sets the switch (the engine, over its policy).
    pub fn set(&self, switch: Arc<ModeSwitch>) {
        *match self.switch.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        } = Some(switch);
    }

    /// Leaves plan mode; the mode now in force (None: no switch here).
    pub fn leave(&self) -> Option<String> {
        let switch = match self.switch.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        };
        switch.map(|leave| leave())
    }
}
