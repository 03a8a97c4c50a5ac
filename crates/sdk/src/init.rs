//! The SDK's `initialize` handshake, taken before the engine is built: the
//! SDK sends it first and waits for its answer before any prompt, and its
//! hooks (`{"PreToolUse": [{"matcher", "hookCallbackIds", "timeout"}]}`)
//! must join the session's hooks from the start.
//!
//! Data flow: [`handshake`] waits for the first line. When it is an
//! `initialize` request, its hooks become hooks of type `callback` (parsed
//! by `orbit-hooks` like any settings file, [`sdk_hooks`]) that run through
//! [`Control`]'s `hook_callback` requests, its agents join the `--agents`
//! ones, the request itself goes back to the front end (which folds its
//! system prompt, MCP servers, settings, denied tools and directories into
//! the session's options), the fields orbit does not honour are listed
//! ([`not_honoured`]), and it is answered at once ([`answer`], confirming
//! the fields applied: `mcp_servers_applied`, …): the SDK waits for that
//! before it sends a prompt, so the engine's set-up (a local model server
//! starting, MCP servers connecting) overlaps with the SDK's next step.
//! Any other first line is handed back for the session loop.

use std::sync::Arc;

use orbit_hooks::{HookCallbacks, HookConfigError, HookSet};
use orbit_mcp::sdk_transport::SharedBridge;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::control::{Control, Incoming, respond};
use crate::message::{ControlRequest, HookMatcher, InitializeRequest};

/// Where the SDK's hooks come from, in hook errors and reports.
const SDK_HOOKS_ORIGIN: &str = "the SDK's initialize request";

/// What the handshake gives the session's set-up.
pub struct Handshake {
    /// The first line when it was not `initialize` (the loop takes it).
    pub first: Option<Incoming>,
    /// The SDK's hooks (empty without `initialize`).
    pub hooks: HookSet,
    /// Runs them (set with `initialize`).
    pub callbacks: Option<Arc<dyn HookCallbacks>>,
    /// The agents `initialize` defines.
    pub agents: Vec<String>,
    /// `sdk` MCP servers run in the SDK, over the control protocol.
    pub sdk_bridge: SharedBridge,
    /// The whole `initialize` request (None without one): the front end
    /// folds its system prompt, MCP servers, settings, denied tools and
    /// directories into the session's options.
    pub request: Option<InitializeRequest>,
    /// The request's fields orbit does not honour, by name (each reported
    /// once on stderr and in `system/init`).
    pub not_honoured: Vec<String>,
}

/// Why the handshake failed.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// The SDK's hook config does not parse.
    #[error(transparent)]
    Hooks(#[from] HookConfigError),
}

/// Waits for the SDK's first line and answers `initialize`; `flag_agents`
/// are the `--agents` names (listed first in the answer).
pub async fn handshake(
    control: &Control,
    incoming: &mut UnboundedReceiver<Incoming>,
    flag_agents: &[String],
) -> Result<Handshake, HandshakeError> {
    handshake_with_commands(control, incoming, flag_agents, Vec::new()).await
}

/// [`handshake`], with the session's custom slash commands
/// ([`command_entries`]) as the answer's `commands`.
pub async fn handshake_with_commands(
    control: &Control,
    incoming: &mut UnboundedReceiver<Incoming>,
    flag_agents: &[String],
    commands: Vec<Value>,
) -> Result<Handshake, HandshakeError> {
    let first = incoming.recv().await;
    let mut handshake = Handshake {
        first: None,
        hooks: HookSet::default(),
        callbacks: None,
        agents: Vec::new(),
        sdk_bridge: SharedBridge(Arc::new(control.clone())),
        request: None,
        not_honoured: Vec::new(),
    };
    let initialize = match &first {
        Some(Incoming::Request { id, request }) => match ControlRequest::parse(request) {
            ControlRequest::Initialize(init) => Some((id.clone(), init)),
            _ => None,
        },
        _ => None,
    };
    let Some((id, request)) = initialize else {
        handshake.first = first;
        return Ok(handshake);
    };
    handshake.hooks = sdk_hooks(&request)?;
    handshake.callbacks = Some(Arc::new(control.clone()));
    handshake.agents = agent_names(&request);
    let mut agents = flag_agents.to_vec();
    agents.extend(handshake.agents.iter().cloned());
    handshake.not_honoured = not_honoured(&request);
    let names = request.sdk_mcp_servers.clone().unwrap_or_default();
    let parked = control
        .manifests
        .park(request.sdk_mcp_server_manifests.as_ref(), &names);
    // Answered now: the SDK sends its prompt meanwhile set-up runs.
    let mut answered = answer(&request, &agents);
    answered["commands"] = Value::Array(commands);
    if !parked.is_empty() {
        answered["sdk_mcp_manifests_parked"] = Value::Object(parked);
    }
    let _ = respond(&id, Ok(answered));
    handshake.request = Some(*request);
    Ok(handshake)
}

/// The `initialize` answer's `commands`, as Claude Code 2.1.332 lists
/// them there: the custom commands (`name`, `description` with `(project)`
/// or `(user)` after it, `argumentHint`, empty when none) but those a
/// built-in name shadows, then the built-in ones a headless session runs
/// (`orbit_commands::BUILTIN_COMMANDS`).
pub fn command_entries(commands: &orbit_commands::CommandSet) -> Vec<Value> {
    let custom = commands
        .commands()
        .iter()
        .filter(|c| !orbit_commands::is_builtin(&c.name))
        .map(|c| {
            let scope = match c.scope {
                orbit_commands::Scope::Project => "project",
                orbit_commands::Scope::User => "user",
            };
            json!({
                "name": c.name,
                "description": format!("{} ({scope})", c.description),
                "argumentHint": c.front.argument_hint.clone().unwrap_or_default(),
            })
        });
    let builtin = orbit_commands::BUILTIN_COMMANDS.iter().map(|b| {
        json!({
            "name": b.name,
            "description": b.description,
            "argumentHint": b.argument_hint,
        })
    });
    custom.chain(builtin).collect()
}

/// The request's fields (non-null) orbit does not honour yet, by their
/// wire names: every field it has no use for, and the hook matchers'
/// options orbit does not apply.
pub fn not_honoured(request: &InitializeRequest) -> Vec<String> {
    let mut names: Vec<String> = request
        .other
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, _)| name.clone())
        .collect();
    let matchers = request
        .hooks
        .iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten();
    for matcher in matchers {
        for option in UNAPPLIED_MATCHER_OPTIONS {
            let name = format!("hooks.{option}");
            if matcher.get(option).is_some_and(|v| !v.is_null()) && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Options of the TypeScript SDK's hook matchers orbit does not apply.
const UNAPPLIED_MATCHER_OPTIONS: [&str; 5] = [
    "onFailure",
    "contextOnly",
    "replacedByFrame",
    "observesOnly",
    "whenUnanswered",
];

/// The request's hooks as a hook set of callbacks (empty when none).
pub fn sdk_hooks(request: &InitializeRequest) -> Result<HookSet, HookConfigError> {
    let Some(events) = &request.hooks else {
        return Ok(HookSet::default());
    };
    let mut settings = Map::new();
    for (event, matchers) in events {
        let matchers: Vec<HookMatcher> =
            serde_json::from_value(matchers.clone()).unwrap_or_default();
        let groups: Vec<Value> = matchers
            .iter()
            .map(|m| {
                let hooks: Vec<Value> = m
                    .hook_callback_ids
                    .iter()
                    .map(|id| json!({"type": "callback", "callback_id": id, "timeout": m.timeout}))
                    .collect();
                json!({"matcher": m.matcher, "hooks": hooks})
            })
            .collect();
        settings.insert(event.clone(), Value::Array(groups));
    }
    HookSet::parse(&Value::Object(settings), SDK_HOOKS_ORIGIN, "sdk")
}

/// The answer to `initialize`: no slash commands, the `default` output
/// style, the agents listed (with the SDK's descriptions); `hooks_applied` when the
/// request carried hooks (they join the session's hooks).
pub fn answer(request: &InitializeRequest, agents: &[String]) -> Value {
    let agents: Vec<Value> = agents
        .iter()
        .map(|name| {
            let description = request
                .agents
                .as_ref()
                .and_then(|defined| defined.get(name))
                .and_then(|d| d.get("description"))
                .cloned()
                .unwrap_or_default();
            json!({"name": name, "description": description})
        })
        .collect();
    let mut answer = json!({
        "commands": [],
        "agents": agents,
        "output_style": "default",
        // The built-in styles (Claude Code 2.1.332 lists its five here); a
        // user's or project's style files need the session's settings and
        // folder trust, read after this answer: `init` names the one in use.
        "available_output_styles": orbit_memory::output_style::builtin_styles()
            .into_iter()
            .map(|style| style.name)
            .collect::<Vec<_>>(),
        "models": [],
        "account": {},
        "pid": std::process::id(),
    });
    if request.hooks.is_some() {
        answer["hooks_applied"] = json!(true);
    }
    // Fields the SDK sent here instead of on the command line: orbit
    // applies them (the front end folds them into the session's options),
    // and the TypeScript SDK ends the session unless each is confirmed.
    let applied = [
        ("mcp_servers_applied", request.mcp_servers.is_some()),
        ("settings_applied", request.settings.is_some()),
        (
            "disallowed_tools_applied",
            request.disallowed_tools.is_some(),
        ),
        (
            "additional_directories_applied",
            request.additional_directories.is_some(),
        ),
    ];
    for (key, sent) in applied {
        if sent {
            answer[key] = json!(true);
        }
    }
    answer
}

/// The agent names the request defines (`agents: {name: definition}`).
pub fn agent_names(request: &InitializeRequest) -> Vec<String> {
    request
        .agents
        .as_ref()
        .map(|agents| agents.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn init(body: Value) -> InitializeRequest {
        match ControlRequest::parse(&body) {
            ControlRequest::Initialize(init) => *init,
            other => panic!("{other:?}"),
        }
    }

    /// The SDK's hook config becomes callback hooks with their matchers
    /// and timeouts; a request without hooks gives none.
    #[test]
    fn sdk_hooks_become_callback_hooks() {
        let request = init(json!({"subtype": "initialize", "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5}],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"]}],
        }}));
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
        let none = sdk_hooks(&init(json!({"subtype": "initialize", "hooks": null})));
        assert!(none.unwrap_or_else(|e| panic!("{e}")).is_empty());
    }

    /// The answer lists the built-in output styles, as Claude Code 2.1.332
    /// does (it listed only `default` before).
    #[test]
    fn the_answer_lists_the_built_in_output_styles() {
        let answered = answer(&init(json!({"subtype": "initialize"})), &[]);
        assert_eq!(answered["output_style"], "default");
        assert_eq!(
            answered["available_output_styles"],
            json!(["default", "Proactive", "Concise", "Explanatory", "Learning"])
        );
    }
}
