//! The permission gate of one call (step 2 of the orchestrator, after
//! validation and the PreToolUse hooks): the session's `Policy` over the
//! call's facts, cwd and workspace roots, with the hooks' vote; an ask goes
//! to the PermissionRequest hooks, the Notification hooks, then the
//! approver (denied when there is none); "always allow" answers are kept.

use orbit_hooks::{HookEvent, PermissionVote};
use orbit_permissions::{
    PermissionDecision, PermissionRequest, persist_allow_rule, suggested_rule,
};
use orbit_tool::CallFacts;
use serde_json::{Value, json};

use crate::approve::{Approval, ApprovalRequest};
use crate::runtime::ToolRuntime;

/// PermissionRequest's `permission_suggestions` in Claude Code's shape:
/// the "always allow" rule the approver would offer, as an `addRules`
/// update for the local settings.
fn permission_suggestions(rule: Option<String>) -> Value {
    let Some(rule) = rule else {
        return json!([]);
    };
    let (tool, content) = match rule.split_once('(') {
        Some((tool, rest)) => (tool.to_string(), rest.strip_suffix(')').map(str::to_string)),
        None => (rule, None),
    };
    json!([{"type": "addRules", "rules": [{"toolName": tool, "ruleContent": content}],
        "behavior": "allow", "destination": "localSettings"}])
}

/// A deny rule (or the mode) covering a replacement input's facts.
pub(crate) fn denied_by_rules(
    runtime: &ToolRuntime,
    name: &str,
    facts: &CallFacts,
) -> Option<String> {
    match decide(runtime, name, facts) {
        PermissionDecision::Deny { reason } => Some(reason),
        _ => None,
    }
}

/// The policy's decision for one call's facts.
pub(crate) fn decide(runtime: &ToolRuntime, name: &str, facts: &CallFacts) -> PermissionDecision {
    let ctx = &runtime.context;
    let cwd = ctx.cwd();
    let mut roots = vec![orbit_tool::workspace::canonical_project_root(ctx)];
    roots.extend(ctx.allowed_directories());
    let request = PermissionRequest {
        tool_name: name,
        facts,
        cwd: &cwd,
        roots: &roots,
    };
    match runtime.permissions.decide(&request) {
        // A prompt's scoped grant (a command's `allowed-tools`) only turns
        // an ask into an allow; see `crate::grants`.
        PermissionDecision::Ask { .. } if runtime.grants.allows(&runtime.permissions, &request) => {
            PermissionDecision::Allow
        }
        decision => decision,
    }
}

/// The permission gate for one call: the policy's decision with the
/// PreToolUse hooks' vote (see the module docs), an ask put to the
/// PermissionRequest hooks, then the approver (or denied when there is
/// none). `Err` holds the reason the model is told; `Ok(Some(input))` an
/// approver's replacement input.
pub(crate) async fn permit(
    runtime: &ToolRuntime,
    name: &str,
    facts: &CallFacts,
    id: &str,
    input: &Value,
    hook_vote: Option<(PermissionVote, String)>,
) -> Result<Option<Value>, String> {
    let reason = match (decide(runtime, name, facts), hook_vote) {
        // A deny rule (or the mode) beats any hook.
        (PermissionDecision::Deny { reason }, _) => return Err(reason),
        (_, Some((PermissionVote::Allow, _))) => return Ok(None),
        (PermissionDecision::Allow, Some((PermissionVote::Ask, why))) => {
            if why.is_empty() {
                format!("A PreToolUse hook asks before this {name} call.")
            } else {
                why
            }
        }
        (PermissionDecision::Allow, _) => return Ok(None),
        (PermissionDecision::Ask { reason }, _) => reason,
    };
    if runtime.hooks.active(HookEvent::PermissionRequest) {
        let suggestions = permission_suggestions(suggested_rule(name, facts));
        let fields = json!({"tool_name": name, "tool_input": input, "tool_use_id": id,
            "permission_suggestions": suggestions});
        let verdict = runtime
            .hooks
            .run(HookEvent::PermissionRequest, Some(name), fields)
            .await;
        match verdict.permission {
            Some((PermissionVote::Allow, _)) => return Ok(None),
            Some((PermissionVote::Deny, why)) => {
                return Err(if why.is_empty() { reason } else { why });
            }
            _ => {}
        }
    }
    if runtime.hooks.active(HookEvent::Notification) {
        let message = format!("orbit needs your permission to use {name}");
        let fields = json!({"message": message, "title": "Permission needed",
            "notification_type": "permission_prompt"});
        runtime
            .hooks
            .run(HookEvent::Notification, Some("permission_prompt"), fields)
            .await;
    }
    let Some(approver) = &runtime.approver else {
        return Err(reason);
    };
    let ask = ApprovalRequest {
        tool_name: name.to_string(),
        tool_use_id: id.to_string(),
        input: input.clone(),
        reason: reason.clone(),
        subject: facts.subject.clone(),
        suggested_rule: suggested_rule(name, facts),
    };
    match approver.0.approve(&ask).await {
        Approval::Allow => Ok(None),
        Approval::AllowWithInput { input } => Ok(Some(input)),
        Approval::AllowAlways { rule } => {
            remember(runtime, &rule);
            Ok(None)
        }
        Approval::Deny { reason: given } => Err(given.unwrap_or(reason)),
    }
}

/// Keeps an "always allow" rule for the session and, when configured, in
/// the rules file. A rule that does not parse or cannot be saved is logged;
/// the approved call runs either way.
fn remember(runtime: &ToolRuntime, rule: &str) {
    if let Err(err) = runtime.permissions.add_session_rule(rule) {
        tracing::warn!(%err, "an \"always allow\" answer gave a rule that does not parse");
        return;
    }
    if let Some(path) = &runtime.rules_file
        && let Err(err) = persist_allow_rule(path, rule)
    {
        tracing::warn!(%err, "cannot persist an \"always allow\" rule");
    }
}
