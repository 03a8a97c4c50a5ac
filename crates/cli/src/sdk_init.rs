//! The SDK's `initialize` handshake, taken before the engine is built: the
//! SDK sends it first and waits for its answer before any prompt, and its
//! hooks (`{"PreToolUse": [{"matcher", "hookCallbackIds", "timeout"}]}`)
//! must join the session's hooks from the start. [`first_line`] waits for
//! the first line; [`sdk_hooks`] turns the request's hooks into hooks of
//! type `callback` (parsed by `orbit-hooks` like any settings file) that
//! run through [`crate::control::Control`]'s `hook_callback` requests.
//! It is answered at once ([`answer`]): the SDK waits for that before it
//! sends a prompt, so the engine's set-up (a local model server starting,
//! MCP servers connecting) overlaps with the SDK's next step.

use orbit_hooks::{HookConfigError, HookSet};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::control::Incoming;

/// Where the SDK's hooks come from, in hook errors and reports.
const SDK_HOOKS_ORIGIN: &str = "the SDK's initialize request";

/// The first line from the SDK (None: stdin closed at once).
pub async fn first_line(incoming: &mut UnboundedReceiver<Incoming>) -> Option<Incoming> {
    incoming.recv().await
}

/// The `initialize` request's body, if `line` is one.
pub fn initialize_request(line: Option<&Incoming>) -> Option<&Value> {
    match line {
        Some(Incoming::Request { request, .. })
            if request.get("subtype").and_then(Value::as_str) == Some("initialize") =>
        {
            Some(request)
        }
        _ => None,
    }
}

/// The request's hooks as a hook set of callbacks (empty when none).
pub fn sdk_hooks(request: &Value) -> Result<HookSet, HookConfigError> {
    let Some(events) = request.get("hooks").and_then(Value::as_object) else {
        return Ok(HookSet::default());
    };
    let mut settings = Map::new();
    for (event, matchers) in events {
        let groups: Vec<Value> = matchers
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                let hooks: Vec<Value> = m
                    .get("hookCallbackIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|id| json!({"type": "callback", "callback_id": id, "timeout": m.get("timeout")}))
                    .collect();
                json!({"matcher": m.get("matcher"), "hooks": hooks})
            })
            .collect();
        settings.insert(event.clone(), Value::Array(groups));
    }
    HookSet::parse(&Value::Object(settings), SDK_HOOKS_ORIGIN, "sdk")
}

/// The answer to `initialize`: no slash commands, the `default` output
/// style, the agents listed (orbit runs none yet); `hooks_applied` when the
/// request carried hooks (they join the session's hooks).
pub fn answer(request: &Value, agents: &[String]) -> Value {
    let agents: Vec<Value> = agents
        .iter()
        .map(|name| json!({"name": name, "description": "(orbit has no subagents yet)"}))
        .collect();
    let mut answer = json!({
        "commands": [],
        "agents": agents,
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [],
        "account": {},
        "pid": std::process::id(),
    });
    if request.get("hooks").is_some_and(|h| !h.is_null()) {
        answer["hooks_applied"] = json!(true);
    }
    answer
}

/// The agent names the request defines (`agents: {name: definition}`).
pub fn agent_names(request: &Value) -> Vec<String> {
    request
        .get("agents")
        .and_then(Value::as_object)
        .map(|agents| agents.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SDK's hook config becomes callback hooks with their matchers
    /// and timeouts; a request without hooks gives none.
    #[test]
    fn sdk_hooks_become_callback_hooks() {
        let request = json!({"subtype": "initialize", "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5}],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"]}],
        }});
        let set = sdk_hooks(&request).unwrap_or_else(|e| panic!("{e}"));
        let pre = set.matching(orbit_hooks::HookEvent::PreToolUse, Some("Bash"));
        let ids: Vec<_> = pre.iter().map(|h| h.callback.clone()).collect();
        assert_eq!(ids, [Some("hook_0".into()), Some("hook_1".into())]);
        assert_eq!(pre[0].timeout_ms, 5_000);
        assert!(
            set.matching(orbit_hooks::HookEvent::PreToolUse, Some("Read"))
                .is_empty()
        );
        assert_eq!(set.matching(orbit_hooks::HookEvent::Stop, None).len(), 1);
        let none = sdk_hooks(&json!({"subtype": "initialize", "hooks": null}));
        assert!(none.unwrap_or_else(|e| panic!("{e}")).is_empty());
    }
}
