//! The `Agent` tool's way to the session assembly: [`SubagentLauncher`].
//!
//! The tool (orbit's built-in `Agent`) parses the model's input into a
//! [`SubagentRequest`] and hands it to the launcher the session was built
//! with; the launcher (implemented by `orbit`'s session spec, so no
//! dependency points up) builds the subagent's session, runs the prompt to
//! its end and returns a [`SubagentReport`]: the final text and what the
//! parent reports of the run (tokens, tool uses, duration, cost).

use crate::context::CallContext;

/// The key of a subagent's event in its Agent call's progress data:
/// `{"subagent_event": EngineEvent, "agent_id", "subagent_type"}` (the
/// stream-json writer prints it with `parent_tool_use_id`).
pub const SUBAGENT_EVENT_KEY: &str = "subagent_event";

/// The key of a finished subagent's cost in its Agent call's progress
/// data: `{"subagent_cost_usd": f64, "model", "usage"}` (the result's
/// `total_cost_usd` includes it).
pub const SUBAGENT_COST_KEY: &str = "subagent_cost_usd";

/// What the model asked the `Agent` tool for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubagentRequest {
    /// A short description of the task (3–5 words).
    pub description: String,
    /// The task: the subagent's first user message.
    pub prompt: String,
    /// The agent type; None = general-purpose.
    pub subagent_type: Option<String>,
    /// A model alias or id overriding the definition's.
    pub model: Option<String>,
    /// A reasoning effort overriding the parent's.
    pub effort: Option<String>,
    /// Asked to run in the background (not supported yet: runs in the
    /// foreground).
    pub run_in_background: bool,
    /// Asked for an isolated working copy (`worktree`; not supported yet).
    pub isolation: Option<String>,
}

/// What a finished subagent hands back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubagentReport {
    /// Its final reply (the parent's tool_result).
    pub text: String,
    /// Its id (names its transcript).
    pub agent_id: String,
    /// Its type.
    pub agent_type: String,
    /// The model it ran with.
    pub model: String,
    /// Input plus output tokens of its model calls.
    pub total_tokens: u64,
    /// Tool calls it made.
    pub tool_uses: u64,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// What its model calls cost, in US dollars.
    pub cost_usd: f64,
    /// It ended with an error (the text says why).
    pub is_error: bool,
}

/// Starts subagents for the `Agent` tool. Implemented by the session
/// assembly; a subagent's session has the parent's permission rules,
/// mode, hooks, sandbox, approver and MCP servers.
#[async_trait::async_trait]
pub trait SubagentLauncher: Send + Sync {
    /// The agent types the model may pick: (name, description).
    fn agent_types(&self) -> Vec<(String, String)>;
    /// Runs one subagent to its end. `call` carries the Agent call's id
    /// (the subagent's events are reported as its progress) and its
    /// cancellation (the parent's interrupt stops the subagent). An `Err`
    /// is a text for an error tool_result; it never ends the parent.
    async fn run(
        &self,
        request: SubagentRequest,
        call: &CallContext,
    ) -> Result<SubagentReport, String>;
}
