//! Subagents: the session spec's side of the `Agent` tool.
//!
//! [`SubagentFactory`] implements [`SubagentLauncher`]. It keeps what the
//! parent's [`SessionSpec`] was made of (provider, model, permission rules
//! and mode, approver, hooks, sandbox launcher, added directories, engine
//! tuning, and the parent's tools — MCP servers' included — without
//! `Agent`) and, for each call, builds the subagent as a session by the
//! same spec: the definition's system prompt and tool set
//! ([`orbit_agents::ToolFilter`]; "read-only" is the tools' own facts),
//! its own history, compaction and max turns, no transcript of its own
//! yet. Data flow: request → [`SessionSpec::build`] → `submit_message`
//! (the prompt) → every assistant/user message of the subagent is
//! reported as the Agent call's progress ([`SUBAGENT_EVENT_KEY`]; the
//! stream-json writer prints it with `parent_tool_use_id`) → the terminal
//! result becomes the [`SubagentReport`] → the `SubagentStop` hook. The
//! parent's interrupt (the call's cancel) aborts the subagent's turn.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use orbit_agents::{AgentDefinition, AgentSet, ToolFilter, builtin::GENERAL_PURPOSE};
use orbit_hooks::HookEvent;
use orbit_protocol::{ContentBlock, EngineEvent, Message, Role};
use orbit_tool::{
    CallContext, SubagentLauncher, SubagentReport, SubagentRequest, ToolProgress, ToolRegistry,
};

use crate::parent::{AgentTools, ParentParts};
use crate::provider::Provider;
use crate::spec::{PromptSpec, SessionSpec};

pub use orbit_tool::subagent::{SUBAGENT_COST_KEY, SUBAGENT_EVENT_KEY};

/// How deep subagents may nest (a definition that lists `Agent`).
pub const MAX_SUBAGENT_DEPTH: u32 = 2;

/// Starts subagents for a session's `Agent` tool.
pub(crate) struct SubagentFactory {
    pub(crate) parent: ParentParts,
    pub(crate) agents: AgentSet,
    /// The parent's depth: 0 for a main session.
    pub(crate) depth: u32,
}

#[async_trait::async_trait]
impl SubagentLauncher for SubagentFactory {
    fn agent_types(&self) -> Vec<(String, String)> {
        self.agents
            .all()
            .iter()
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect()
    }

    async fn run(
        &self,
        request: SubagentRequest,
        call: &CallContext,
    ) -> Result<SubagentReport, String> {
        let kind = request.subagent_type.as_deref().unwrap_or(GENERAL_PURPOSE);
        let definition = self
            .agents
            .find(kind)
            .ok_or_else(|| format!("agent type '{kind}' not found"))?
            .clone();
        let agent_id = short_id();
        let mut spec = self.spec(&definition, &request);
        // Its asks reach the parent's approver naming it.
        spec.approver = spec.approver.map(|parent| {
            let agent = orbit_engine::AskingAgent {
                agent_id: agent_id.clone(),
                agent_type: definition.name.clone(),
            };
            orbit_engine::SubagentApprover::shared(parent, agent)
        });
        let built = spec.build().map_err(|e| format!("{e}"))?;
        let mut engine = built.engine;
        let model = engine.config().model.clone();
        let hooks = engine.config().hooks.clone();
        let forward = |event: &EngineEvent| {
            call.progress(ToolProgress::Other(serde_json::json!({
                SUBAGENT_EVENT_KEY: event,
                "agent_id": agent_id,
                "subagent_type": definition.name,
            })));
        };
        forward(&EngineEvent::UserMessage {
            uuid: uuid::Uuid::new_v4().to_string(),
            message: Message {
                role: Role::User,
                content: vec![ContentBlock::text(request.prompt.clone())],
            },
        });
        if let Some(hooks) = &hooks
            && hooks.has(HookEvent::SubagentStart)
        {
            let input = serde_json::json!({
                "session_id": self.parent.session_id,
                "cwd": self.parent.cwd,
                "agent_id": agent_id,
                "agent_type": definition.name,
            });
            hooks.run(HookEvent::SubagentStart, None, input).await;
        }
        let started = Instant::now();
        let abort = engine.abort_handle();
        let mut report = SubagentReport {
            agent_id: agent_id.clone(),
            agent_type: definition.name.clone(),
            model: model.clone(),
            ..SubagentReport::default()
        };
        let mut usage = orbit_protocol::Usage::default();
        let mut result = None;
        {
            let mut stream = engine.submit_message(request.prompt.clone());
            let mut aborted = false;
            loop {
                let next = if aborted {
                    stream.next().await
                } else {
                    tokio::select! {
                        () = call.cancel.cancelled() => {
                            abort.abort();
                            aborted = true;
                            continue;
                        }
                        next = stream.next() => next,
                    }
                };
                let Some(event) = next else { break };
                match &event {
                    EngineEvent::AssistantMessage { usage: u, .. } => {
                        usage.input_tokens += u.input_tokens;
                        usage.output_tokens += u.output_tokens;
                        usage.cache_creation_input_tokens += u.cache_creation_input_tokens;
                        usage.cache_read_input_tokens += u.cache_read_input_tokens;
                        forward(&event);
                    }
                    EngineEvent::UserMessage { .. } => forward(&event),
                    EngineEvent::ToolStarted { .. } => report.tool_uses += 1,
                    EngineEvent::Result(r) => result = Some(r.clone()),
                    _ => {}
                }
            }
        }
        let result = result.ok_or_else(|| "the subagent ended without a result".to_string())?;
        report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        report.total_tokens = usage.input_tokens + usage.output_tokens;
        report.cost_usd = result.total_cost_usd;
        report.is_error = result.subtype.is_error() || result.interrupted;
        report.text = if result.result.is_empty() && report.is_error {
            result.errors.join("\n")
        } else {
            result.result.clone()
        };
        call.progress(ToolProgress::Other(serde_json::json!({
            SUBAGENT_COST_KEY: report.cost_usd,
            "model": model,
            "usage": usage,
        })));
        if let Some(hooks) = hooks
            && hooks.has(HookEvent::SubagentStop)
        {
            let input = serde_json::json!({
                "session_id": self.parent.session_id,
                "cwd": self.parent.cwd,
                "permission_mode": self.parent.permissions.mode.as_str(),
                "agent_id": agent_id,
                "agent_type": definition.name,
                "stop_hook_active": false,
                "last_assistant_message": report.text,
            });
            hooks.run(HookEvent::SubagentStop, None, input).await;
        }
        Ok(report)
    }
}

impl SubagentFactory {
    /// The subagent's session spec: the parent's parts, the definition's
    /// prompt, tools and model.
    fn spec(&self, definition: &AgentDefinition, request: &SubagentRequest) -> SessionSpec {
        let parent = self.parent.clone();
        let mut spec = SessionSpec::new(parent.cwd, parent.data_dir, parent.env);
        // Claude model names are for Anthropic's API; another provider
        // keeps the parent's model (one warning).
        let anthropic =
            matches!(&parent.provider, Provider::Client(c) if c.provider() == "anthropic");
        spec.provider = Some(parent.provider);
        let model = request
            .model
            .as_deref()
            .filter(|m| *m != "inherit")
            .or(definition.model());
        spec.model = Some(match model {
            Some(name) if anthropic => orbit_model::catalog::resolve_alias(name).to_string(),
            Some(name) => {
                eprintln!(
                    "orbit: warning: subagent {}: model {name} is not available from this provider; using {}",
                    definition.name, parent.model
                );
                parent.model
            }
            None => parent.model,
        });
        spec.added_dirs = parent.added_dirs;
        spec.tool_env = parent.tool_env;
        spec.permissions = parent.permissions;
        spec.rules_file = parent.rules_file;
        spec.approver = parent.approver;
        // The parent's tool hooks apply; its turn and session hooks do not
        // fire for a subagent (Claude Code fires SubagentStop instead).
        spec.hooks = parent.hooks.without(&[
            HookEvent::Stop,
            HookEvent::UserPromptSubmit,
            HookEvent::SessionStart,
            HookEvent::SessionEnd,
        ]);
        spec.hook_callbacks = parent.hook_callbacks;
        spec.launcher = parent.launcher;
        spec.profile = Some(parent.profile);
        spec.persist = false;
        spec.prompt = PromptSpec {
            replace: Some(definition.prompt.clone()),
            append: None,
            trusted: parent.trusted,
            deny_paths: Vec::new(),
        };
        let mut tuning = parent.tuning;
        tuning.structured_output = None;
        spec.tuning = tuning;
        spec.log = Box::new(|line| eprintln!("orbit: warning: subagent: {line}"));
        let mut tools = parent.tools;
        let nests = matches!(&definition.tools, ToolFilter::Only(names) if names.iter().any(|n| n == crate::spec::AGENT_TOOL));
        // A restricted set is taken from every tool now (MCP servers'
        // included), so no tool it does not name arrives later.
        let keep = |t: &dyn orbit_tool::Tool| match &definition.tools {
            ToolFilter::All => true,
            ToolFilter::ReadOnly => t.read_only(),
            ToolFilter::Only(names) => names.iter().any(|n| n == t.name()),
        };
        if definition.tools != ToolFilter::All {
            let mut only = ToolRegistry::new();
            for tool in tools.tools() {
                if keep(tool.as_ref()) {
                    only.register(tool);
                }
            }
            tools = only;
        }
        spec.tools = Some(tools);
        if nests && self.depth + 1 < MAX_SUBAGENT_DEPTH {
            spec.offer_agents_at(self.agents.clone(), self.depth + 1);
        }
        spec
    }
}

impl SessionSpec {
    /// Offers these subagent types through the `Agent` tool (not in the
    /// small-model profile): each call starts a session built by this same
    /// spec from the parent's parts.
    pub fn offer_agents(&mut self, agents: AgentSet) {
        self.offer_agents_at(agents, 0);
    }

    fn offer_agents_at(&mut self, agents: AgentSet, depth: u32) {
        self.agents = Some(AgentTools {
            agents,
            depth,
            launch: launcher,
        });
    }
}

/// The `Agent` tool's launcher for a session with these parts.
fn launcher(parent: ParentParts, agents: AgentSet, depth: u32) -> Arc<dyn SubagentLauncher> {
    Arc::new(SubagentFactory {
        parent,
        agents,
        depth,
    })
}

/// A short id for a subagent (17 hex digits, as Claude Code's).
fn short_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("a{}", &id[..16])
}
