//! What the engine reports to its embedder while it runs a turn.
//!
//! The CLI maps these to stream-json lines (see [`crate::sdk`]); a TUI or a
//! library user consumes them directly. Every `submit_message` stream ends with
//! exactly one [`EngineEvent::Result`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{Message, ToolResultBlock};
use crate::stream::StreamEvent;
use crate::usage::Usage;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    /// A model request is about to be sent; `turn` counts model calls from 1.
    RequestStart { turn: u32 },
    /// A raw streaming event of the current model response (deltas, for UIs).
    /// `Retry` events arrive here too.
    Stream(StreamEvent),
    /// The complete assistant message, as appended to the history.
    AssistantMessage {
        uuid: String,
        message: Message,
        /// API message id (`msg_…`), when the provider gave one.
        message_id: Option<String>,
        model: String,
        stop_reason: Option<String>,
        usage: Usage,
    },
    /// A tool began executing.
    ToolStarted { tool_use_id: String, name: String },
    /// A running tool reported progress (e.g. a line of Bash output).
    ToolProgress { tool_use_id: String, data: Value },
    /// A tool's result is final; released in tool_use order (X4).
    ToolResult { result: ToolResultBlock },
    /// The user message of tool results, as appended to the history.
    UserMessage { uuid: String, message: Message },
    /// The todo list changed (TodoWrite).
    TodoUpdate { todos: Vec<TodoItem> },
    /// The turn ended. Always the last event.
    Result(TerminalResult),
}

/// One todo item as TodoWrite takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// How a turn ended (L3). Serialized names are the SDK's result subtypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSubtype {
    Success,
    ErrorMaxTurns,
    ErrorMaxBudgetUsd,
    ErrorMaxStructuredOutputRetries,
    ErrorDuringExecution,
}

impl ResultSubtype {
    pub fn is_error(self) -> bool {
        self != ResultSubtype::Success
    }
}

/// A tool call the permission gate refused (P1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: String,
    pub tool_input: Value,
}

/// The terminal outcome of `submit_message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalResult {
    pub subtype: ResultSubtype,
    /// Model calls made in this turn.
    pub num_turns: u32,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub total_cost_usd: f64,
    pub usage: Usage,
    /// The final assistant text (success), else empty.
    pub result: String,
    pub stop_reason: Option<String>,
    pub permission_denials: Vec<PermissionDenial>,
    /// Human-readable error lines (e.g. `Reached maximum number of turns (2)`).
    pub errors: Vec<String>,
    /// Set when the turn ended because of an interrupt (exit code 130).
    #[serde(default)]
    pub interrupted: bool,
    /// `--json-schema` output, when requested and valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
}
