//! An SDK session (`--input-format stream-json`): one process, many turns.
//!
//! Data flow: [`crate::control`]'s reader thread hands over user messages
//! and the SDK's control requests (typed as [`ControlRequest`]s). Between turns the loop waits for the
//! next line; a user message starts a turn (`QueryEngine::submit_message`)
//! whose events go to the output writer exactly as in a `-p` run, while
//! control requests that arrive meanwhile are answered at once
//! (`interrupt` aborts the turn, `set_permission_mode` switches the
//! policy's mode for the calls still to come; `set_model` applies from the
//! next turn; `mcp_status` and `get_context_usage` answer from the MCP
//! manager and a context snapshot, [`crate::context`]) and user
//! messages queue for the next turn (several queued ones make one prompt,
//! one per line, as Claude Code merges them). The session ends
//! when stdin closes and the queue is empty; the exit code is the last
//! turn's (0 when none ran).

use std::collections::VecDeque;
use std::sync::Arc;

use futures::StreamExt;
use orbit_engine::{AbortHandle, QueryEngine};
use orbit_permissions::{PermissionMode, Policy};
use orbit_protocol::EngineEvent;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::context::ContextSnapshot;
use crate::control::{Incoming, respond, write_line};
use crate::message::ControlRequest;
use crate::writer::EventSink;

/// Whether anyone still reads orbit's output (the binary watches stdout).
pub trait OutputState {
    /// stdout is gone: nothing more is written.
    fn is_closed(&self) -> bool;
    /// A write failed: treat stdout as gone.
    fn mark_closed(&self);
}

/// What a session loop needs from the binary's set-up.
pub struct Parts<'a> {
    /// The session's engine.
    pub engine: &'a mut QueryEngine,
    /// Where its events go (stream-json).
    pub writer: &'a mut dyn EventSink,
    /// The line read before the engine was built when it was not the
    /// SDK's `initialize` ([`crate::Handshake::first`]).
    pub first: Option<Incoming>,
    /// The SDK's lines ([`crate::Control::spawn_reader`]).
    pub incoming: UnboundedReceiver<Incoming>,
    /// Whether stdout is still read.
    pub stdout: &'a dyn OutputState,
    /// `--replay-user-messages`: echo each user message as it is taken.
    pub replay_user_messages: bool,
    /// Agent names (`--agents`, `initialize`), for the `initialize` answer.
    pub agents: Vec<String>,
    /// The session's MCP servers, for `mcp_status`.
    pub mcp: Option<Arc<orbit_mcp::McpManager>>,
    /// The custom slash commands a user message may invoke (`/name args`
    /// expands as in `-p` and the interactive UI).
    pub commands: &'a orbit_commands::PromptExpander,
    /// `set_permission_mode` may switch to `bypassPermissions`: the
    /// session was launched with `--allow-dangerously-skip-permissions` or
    /// bypass itself (else refused, as Claude Code does).
    pub bypass_allowed: bool,
    /// `enable_file_checkpointing`: `rewind_files` is answered.
    pub file_checkpointing: bool,
}

/// Session-wide state the control requests change.
struct State {
    abort: AbortHandle,
    policy: Arc<Policy>,
    session_id: String,
    /// A `set_model` received during a turn, applied after it.
    next_model: Option<String>,
    queue: VecDeque<String>,
    turn_running: bool,
    agents: Vec<String>,
    mcp: Option<Arc<orbit_mcp::McpManager>>,
    /// The `get_context_usage` answer.
    context: ContextSnapshot,
    /// Whether `set_permission_mode` may switch to bypassPermissions.
    bypass_allowed: bool,
    /// User message uuids → prompts (`rewind_files`).
    rewinds: crate::rewind::Rewinds,
}

/// The next turn's prompt: the messages that queued while a turn ran go
/// together, one per line, as Claude Code sends them (one user message);
/// a custom command (`/name`) keeps its own turn.
fn next_prompt(queue: &mut VecDeque<String>) -> Option<String> {
    let first = queue.pop_front()?;
    if first.starts_with('/') {
        return Some(first);
    }
    let mut prompt = first;
    while queue.front().is_some_and(|next| !next.starts_with('/')) {
        if let Some(next) = queue.pop_front() {
            prompt.push('\n');
            prompt.push_str(&next);
        }
    }
    Some(prompt)
}

/// Runs turns until stdin closes; returns the exit code.
pub async fn run(parts: Parts<'_>) -> u8 {
    let Parts {
        engine,
        writer,
        first,
        mut incoming,
        stdout,
        replay_user_messages,
        agents,
        mcp,
        commands,
        bypass_allowed,
        file_checkpointing,
    } = parts;
    let mut state = State {
        abort: engine.abort_handle(),
        policy: engine.policy(),
        session_id: engine.session_id().to_string(),
        next_model: None,
        queue: VecDeque::new(),
        turn_running: false,
        agents,
        mcp,
        context: ContextSnapshot::default(),
        bypass_allowed: bypass_allowed
            || engine.policy().mode() == PermissionMode::BypassPermissions,
        rewinds: crate::rewind::Rewinds::new(engine, file_checkpointing),
    };
    state.context.measure(&engine.context_usage());
    let mut exit_code = 0;
    let mut open = true;
    if let Some(line) = first {
        handle(line, &mut state, replay_user_messages);
    }
    loop {
        if let Some(model) = state.next_model.take()
            && let Err(reason) = engine.switch_model(model, "set_model").await
        {
            eprintln!("orbit: warning: set_model refused by a PreModelSwitch hook: {reason}");
        }
        state.context.measure(&engine.context_usage());
        let queued = state.queue.len();
        let prompt = match next_prompt(&mut state.queue) {
            Some(prompt) => prompt,
            None => {
                // Idle: the next SDK line, or a background agent's
                // notification (a later user message, as Claude Code's);
                // stdin closed, the session ends once none runs.
                let tasks = orbit_tool::subagent::BackgroundTasks::of(engine.tool_context());
                tokio::select! {
                    line = incoming.recv(), if open => match line {
                        Some(line) => handle(line, &mut state, replay_user_messages),
                        None => open = false,
                    },
                    Some(notice) = tasks.next_notice() => {
                        state.queue.push_back(notice);
                        state.rewinds.queued(uuid::Uuid::new_v4().to_string());
                    }
                    else => break,
                }
                continue;
            }
        };
        let uuids = state.rewinds.take(queued - state.queue.len());
        // A built-in command (`/cost`, `/compact` …) runs here, no model
        // request; `/init` becomes its prompt.
        let prompt = match orbit_commands::local_command(&prompt) {
            Some(orbit_commands::LocalCommand::Prompt(text)) => text,
            Some(command) => {
                for event in engine.run_local_command(&command).await {
                    if !stdout.is_closed()
                        && let Ok(Some(code)) = writer.event(&event)
                    {
                        exit_code = u8::try_from(code).unwrap_or(1);
                    }
                }
                continue;
            }
            None => prompt,
        };
        state.turn_running = true;
        // A custom command expands here (orbit-commands); a refused `!`
        // or `@` ends this prompt with an error result, nothing sent.
        let plan = match commands.plan(engine, &prompt).await {
            Ok(plan) => plan,
            Err(refusal) => {
                state.turn_running = false;
                for note in &refusal.notes {
                    eprintln!("orbit: note: {note}");
                }
                let result = EngineEvent::Result(refusal.to_result());
                if !stdout.is_closed()
                    && let Ok(Some(code)) = writer.event(&result)
                {
                    exit_code = u8::try_from(code).unwrap_or(1);
                }
                continue;
            }
        };
        for note in &plan.notes {
            eprintln!("orbit: note: {note}");
        }
        let previous_model = plan.apply_model(engine);
        state.rewinds.submitted(uuids);
        let mut events = engine.submit_message(plan.prompt.clone());
        loop {
            tokio::select! {
                event = events.next() => {
                    let Some(event) = event else { break };
                    if let EngineEvent::AssistantMessage { usage, .. } = &event {
                        state.context.observe(usage);
                    }
                    if stdout.is_closed() {
                        continue;
                    }
                    match writer.event(&event) {
                        Ok(Some(code)) => exit_code = u8::try_from(code).unwrap_or(1),
                        Ok(None) => {}
                        Err(_) => {
                            stdout.mark_closed();
                            state.abort.abort();
                        }
                    }
                }
                line = incoming.recv(), if open => match line {
                    Some(line) => handle(line, &mut state, replay_user_messages),
                    None => open = false,
                },
            }
        }
        drop(events);
        plan.finish(engine, previous_model);
        state.turn_running = false;
        if stdout.is_closed() {
            break;
        }
    }
    exit_code
}

/// One line from the SDK.
fn handle(line: Incoming, state: &mut State, replay: bool) {
    match line {
        Incoming::User(message) => {
            let uuid = match message.get("uuid").and_then(Value::as_str) {
                Some(uuid) => uuid.to_string(),
                None => uuid::Uuid::new_v4().to_string(),
            };
            if replay {
                let mut echo = message.clone();
                echo["session_id"] = json!(state.session_id);
                echo["uuid"] = json!(uuid);
                echo["isReplay"] = json!(true);
                let _ = write_line(&echo);
            }
            match user_text(&message) {
                Some(text) => {
                    state.queue.push_back(text);
                    state.rewinds.queued(uuid);
                }
                None => eprintln!("orbit: warning: a user message without text was ignored"),
            }
        }
        Incoming::Request { id, request } => {
            let answer = control_request(&request, state);
            let _ = respond(&id, answer);
        }
        Incoming::Invalid(why) => eprintln!("orbit: warning: stdin line ignored: {why}"),
    }
}

/// The SDK's control requests; unknown subtypes get an error response.
fn control_request(request: &Value, state: &mut State) -> Result<Value, String> {
    match ControlRequest::parse(request) {
        // The first one was answered before the engine was built
        // ([`crate::handshake`]); a repeated one gets the same answer.
        ControlRequest::Initialize(init) => Ok(crate::init::answer(&init, &state.agents)),
        ControlRequest::Interrupt {} => {
            // Between turns there is nothing to stop (an abort now would
            // cancel the next turn).
            if state.turn_running {
                state.abort.abort();
            }
            Ok(json!({}))
        }
        ControlRequest::SetPermissionMode { mode } => {
            let mode: PermissionMode = mode
                .parse()
                .map_err(|_| format!("unknown permission mode {mode:?}"))?;
            if mode == PermissionMode::BypassPermissions && !state.bypass_allowed {
                return Err(BYPASS_REFUSED.to_string());
            }
            state.policy.set_mode(mode);
            Ok(json!({}))
        }
        ControlRequest::SetModel { model } => {
            match model {
                Some(model) if !model.is_empty() => state.next_model = Some(model),
                _ => return Err("set_model needs a model name".to_string()),
            }
            Ok(json!({}))
        }
        ControlRequest::McpStatus {} => Ok(crate::context::mcp_status(state.mcp.as_deref())),
        ControlRequest::GetContextUsage {} => Ok(state.context.answer()),
        ControlRequest::RewindFiles {
            user_message_id,
            dry_run,
        } => state
            .rewinds
            .answer(&user_message_id, dry_run, state.turn_running),
        ControlRequest::Malformed { subtype, error } => Err(format!(
            "the control request {subtype:?} is malformed: {error}"
        )),
        ControlRequest::Unknown { subtype } => Err(unsupported(&subtype)),
    }
}

/// Why `set_permission_mode bypassPermissions` is refused (Claude Code's
/// words, with the SDK's option named).
const BYPASS_REFUSED: &str = "Cannot set permission mode to bypassPermissions because the session \
     was not launched with --dangerously-skip-permissions or --allow-dangerously-skip-permissions \
     (the SDK's allowDangerouslySkipPermissions)";

/// The answer to a request orbit does not carry out yet.
fn unsupported(subtype: &str) -> String {
    format!("orbit does not support the control request subtype {subtype:?} yet")
}

/// The text of a user message: a string, or its text blocks joined.
fn user_text(message: &Value) -> Option<String> {
    let content = message.get("message")?.get("content")?;
    if let Some(text) = content.as_str() {
        return Some(text.to_string());
    }
    let texts: Vec<&str> = content
        .as_array()?
        .iter()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prompts queued during a turn go as one, a command keeps its turn.
    #[test]
    fn queued_prompts_merge_into_one_turn() {
        let mut queue: VecDeque<String> = ["first", "second", "/greet Bob", "third"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(next_prompt(&mut queue).as_deref(), Some("first\nsecond"));
        assert_eq!(next_prompt(&mut queue).as_deref(), Some("/greet Bob"));
        assert_eq!(next_prompt(&mut queue).as_deref(), Some("third"));
        assert_eq!(next_prompt(&mut queue), None);
    }
}
