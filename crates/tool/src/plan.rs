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
