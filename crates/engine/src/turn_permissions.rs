//! How a session's permissions change while it runs, below the engine and
//! the prompt expansion: [`scope_for`] opens a grant scope over the
//! session's rules (a prompt's `allowed-tools`, `crate::grants`);
//! [`install_turn_grants`] lets tools open such scopes for the rest of the
//! user's turn (a skill's `allowed-tools`, `orbit_tool::TurnGrants`) and
//! leave plan mode (`orbit_tool::PlanExit`); [`plan_reminder`] puts plan
//! mode's instructions before a prompt when the mode was switched after
//! the session started. `QueryEngine` installs the first at construction
//! and asks the last for each prompt.

use std::sync::Arc;

use orbit_permissions::{PermissionConfig, PermissionMode, Policy};

use crate::grants::GrantScope;
use crate::runtime::ToolRuntime;

/// `rules` granted over the session's `base` rules (see `crate::grants`).
pub(crate) fn scope_for(
    runtime: &ToolRuntime,
    base: &PermissionConfig,
    rules: &[String],
) -> GrantScope {
    let root = runtime.context.project_root.clone();
    let granted = PermissionConfig {
        allowed_tools: rules.to_vec(),
        ..PermissionConfig::default()
    };
    let errors = Policy::new(&granted, &root).errors().to_vec();
    let mut scoped = base.clone();
    scoped.allowed_tools.extend(rules.iter().cloned());
    runtime.grants.grant(Policy::new(&scoped, &root), errors)
}

/// Lets tools open grants for the rest of the user's turn (a skill's
/// `allowed-tools`, `orbit_tool::TurnGrants`) through the same scopes as a
/// prompt's (the turn's end drops them: `QueryEngine::submit_message`),
/// and leave plan mode (`orbit_tool::PlanExit`, `ExitPlanMode`).
pub(crate) fn install_turn_grants(runtime: &Arc<ToolRuntime>, base: &PermissionConfig) {
    let weak = Arc::downgrade(runtime);
    let base = base.clone();
    let granter: Arc<orbit_tool::TurnGranter> = Arc::new(move |rules: &[String]| {
        let Some(runtime) = weak.upgrade() else {
            return (
                Box::new(()) as Box<dyn std::any::Any + Send + Sync>,
                Vec::new(),
            );
        };
        let scope = scope_for(&runtime, &base, rules);
        let errors = scope.errors().iter().map(ToString::to_string).collect();
        (
            Box::new(scope) as Box<dyn std::any::Any + Send + Sync>,
            errors,
        )
    });
    orbit_tool::TurnGrants::of(&runtime.context).set_granter(granter);
    // `ExitPlanMode` leaves plan mode through the session's policy.
    let policy = Arc::downgrade(&runtime.permissions);
    orbit_tool::PlanExit::of(&runtime.context).set(Arc::new(move || {
        let Some(policy) = policy.upgrade() else {
            return PermissionMode::Default.as_str().to_string();
        };
        if policy.mode() == PermissionMode::Plan {
            policy.set_mode(PermissionMode::Default);
        }
        policy.mode().as_str().to_string()
    }));
}

/// A turn's prompt in plan mode when the system prompt does not already
/// say what plan mode asks (the mode was switched after the session
/// started: the UI's Shift+Tab, an SDK's `set_permission_mode`): the
/// plan-mode instructions as a reminder before it, when `ExitPlanMode` is
/// offered.
pub(crate) fn plan_reminder(runtime: &ToolRuntime, system_prompt: &str, prompt: String) -> String {
    use orbit_tool::plan::{EXIT_PLAN_MODE_TOOL_NAME, PLAN_MODE_PROMPT};
    if runtime.permissions.mode() != PermissionMode::Plan
        || system_prompt.contains(PLAN_MODE_PROMPT)
        || runtime.tools.find(EXIT_PLAN_MODE_TOOL_NAME).is_none()
    {
        return prompt;
    }
    format!("<system-reminder>\n{PLAN_MODE_PROMPT}\n</system-reminder>\n\n{prompt}")
}
