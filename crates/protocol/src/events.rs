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

/// One event of a running turn, in the order it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    /// A model request is about to be sent; `turn` counts model calls from 1.
    RequestStart {
        /// Model calls of this turn so far, from 1.
        turn: u32,
    },
    /// A raw streaming event of the current model response (deltas, for UIs).
    /// `Retry` events arrive here too.
    Stream(StreamEvent),
    /// The complete assistant message, as appended to the history.
    AssistantMessage {
        /// The history entry's id.
        uuid: String,
        /// The message.
        message: Message,
        /// API message id (`msg_…`), when the provider gave one.
        message_id: Option<String>,
        /// The model that answered.
        model: String,
        /// Why the model stopped (e.g. `end_turn`, `tool_use`), when known.
        stop_reason: Option<String>,
        /// Token usage of this model call.
        usage: Usage,
    },
    /// A tool began executing.
    ToolStarted {
        /// The id of the tool_use being executed.
        tool_use_id: String,
        /// The tool's name.
        name: String,
    },
    /// A running tool reported progress (e.g. a line of Bash output).
    ToolProgress {
        /// The id of the tool_use being executed.
        tool_use_id: String,
        /// Tool-specific progress data.
        data: Value,
    },
    /// A tool's result is final; released in tool_use order (X4).
    ToolResult {
        /// The result block, as it goes into the history.
        result: ToolResultBlock,
        /// The tool's facts for embedders (never sent to the model), e.g.
        /// Write's `{"originalFile": …}`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
    },
    /// The user message of tool results, as appended to the history.
    UserMessage {
        /// The history entry's id.
        uuid: String,
        /// The message.
        message: Message,
    },
    /// The todo list changed (TodoWrite).
    TodoUpdate {
        /// The whole new list.
        todos: Vec<TodoItem>,
    },
    /// The history was compacted: everything before this point was replaced
    /// by a summary (or, when no summary could be made, its oldest parts
    /// were dropped). The CLI prints it as a `system` `compact_boundary` line.
    CompactBoundary {
        /// What started the compaction.
        trigger: CompactTrigger,
        /// Estimated tokens of the next request before compaction.
        pre_tokens: u64,
        /// Estimated tokens of the next request after compaction.
        post_tokens: u64,
    },
    /// The main model was overloaded (after the retries): this and the
    /// following requests of the session go to the fallback model
    /// (`--fallback-model`). The CLI prints it as a `system`
    /// `model_fallback` line.
    ModelFallback {
        /// The model that was overloaded.
        original_model: String,
        /// The model used from now on.
        fallback_model: String,
    },
    /// A hook ran (`orbit-hooks`); the CLI prints it as a `system`
    /// `hook_response` line.
    HookResponse(HookReport),
    /// The turn ended. Always the last event.
    Result(TerminalResult),
}

/// One finished hook command, in the shape of Claude Code's
/// `system`/`hook_response` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookReport {
    /// Unique id of this run.
    pub hook_id: String,
    /// `EVENT:subject` (`PreToolUse:Bash`), or the event's name.
    pub hook_name: String,
    /// The event (`PreToolUse`, `Stop`, …).
    pub hook_event: String,
    /// The command as configured.
    pub command: String,
    /// What the run means in one line (empty on plain success).
    pub output: String,
    /// The command's stdout (capped).
    pub stdout: String,
    /// The command's stderr (capped).
    pub stderr: String,
    /// The exit code; None when it was killed or did not start.
    pub exit_code: Option<i32>,
    /// `success`, `error` or `cancelled`.
    pub outcome: HookRunOutcome,
}

/// How a hook run ended (Claude Code's `outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookRunOutcome {
    /// Exit 0, or exit 2 (a decision, not a failure).
    Success,
    /// Another exit code, a timeout, a crash, or no start.
    Error,
    /// The turn was interrupted while it ran.
    Cancelled,
}

/// Why a history was compacted (Claude Code's `compact_metadata.trigger`,
/// plus `fallback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The next request would have passed the context window's threshold,
    /// or the API answered that the prompt is too long.
    Auto,
    /// Asked for by the embedder (`QueryEngine::compact`, `/compact`).
    Manual,
    /// The summary request failed: the oldest tool results, then the oldest
    /// turns, were dropped instead.
    Fallback,
}

/// One todo item as TodoWrite takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// What to do, in imperative form.
    pub content: String,
    /// Where the item stands.
    pub status: TodoStatus,
    /// What is being done, in present continuous form (shown while in progress).
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

/// The state of a todo item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// How a turn ended (L3). Serialized names are the SDK's result subtypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSubtype {
    /// The model finished on its own.
    Success,
    /// The turn limit (`max_turns`) was reached.
    ErrorMaxTurns,
    /// The cost limit (`max_budget_usd`) was reached.
    ErrorMaxBudgetUsd,
    /// The model did not produce output matching the JSON schema within the retries.
    ErrorMaxStructuredOutputRetries,
    /// The model called the same tool with the same input too many times in
    /// a row (the runaway-loop guard).
    ErrorRepeatedToolCall,
    /// The turn failed (model error, interrupt, …).
    ErrorDuringExecution,
}

impl ResultSubtype {
    /// Whether this is anything but `Success`.
    pub fn is_error(self) -> bool {
        self != ResultSubtype::Success
    }
}

/// A tool call the permission gate refused (P1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDenial {
    /// The tool's name.
    pub tool_name: String,
    /// The refused tool_use's id.
    pub tool_use_id: String,
    /// The input the model gave the tool.
    pub tool_input: Value,
}

/// The terminal outcome of `submit_message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalResult {
    /// How the turn ended.
    pub subtype: ResultSubtype,
    /// Model calls made in this turn.
    pub num_turns: u32,
    /// Wall time of the turn, in milliseconds.
    pub duration_ms: u64,
    /// Time spent waiting on model calls, in milliseconds.
    pub duration_api_ms: u64,
    /// Estimated cost of the turn's model calls, in US dollars.
    pub total_cost_usd: f64,
    /// Token usage summed over the turn's model calls.
    pub usage: Usage,
    /// The final assistant text (success), else empty.
    pub result: String,
    /// Stop reason of the last model call, when known.
    pub stop_reason: Option<String>,
    /// Tool calls the permission gate refused during the turn.
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
