//! Output lines of the headless CLI (`--output-format json|stream-json`),
//! shaped like the Claude Agent SDK's messages so existing consumers work.
//!
//! Every line carries `session_id` and `uuid`; `assistant` and `user` lines
//! carry the API-shaped `message` and `parent_tool_use_id` (null at top level).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, Role};
use crate::events::{CompactTrigger, HookRunOutcome, PermissionDenial, ResultSubtype};
use crate::usage::Usage;

/// One output line, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SdkMessage {
    /// A `system` line.
    System(SdkSystem),
    /// An `assistant` line: one model message.
    Assistant(SdkConversationMessage),
    /// A `user` line: tool results sent back to the model.
    User(SdkConversationMessage),
    /// A running tool's heartbeat (Claude Code's top-level `tool_progress`).
    ToolProgress(SdkToolProgress),
    /// A raw API stream event (`--include-partial-messages`).
    StreamEvent(SdkStreamEvent),
    /// The `result` line, always the last.
    Result(SdkResult),
}

/// A `system` line, tagged by `subtype`.
// `Init` is the large one: a value is built once per output line and
// written at once, never kept in bulk, so its size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SdkSystem {
    /// The first line of a session: its setup.
    Init {
        /// Working directory.
        cwd: String,
        /// The session's id.
        session_id: String,
        /// Names of the tools the model can call.
        tools: Vec<String>,
        /// MCP servers: `{"name", "status"}` (`connected`, `failed`, `pending`).
        mcp_servers: Vec<Value>,
        /// The model's name.
        model: String,
        /// The permission mode's name.
        #[serde(rename = "permissionMode")]
        permission_mode: String,
        /// Where the API key came from.
        #[serde(rename = "apiKeySource")]
        api_key_source: String,
        /// The output style's name.
        output_style: String,
        /// The version the SDK reads (Claude Code's key; orbit's version).
        claude_code_version: String,
        /// orbit's version (the same value, under orbit's own name).
        orbit_version: String,
        /// Slash commands the session offers (none headless).
        slash_commands: Vec<String>,
        /// Agent names given with `--agents`.
        agents: Vec<String>,
        /// Skills the `Skill` tool offers, by name.
        skills: Vec<String>,
        /// Plugins loaded (orbit has none).
        plugins: Vec<Value>,
        /// The memory files the session loaded, as `{"files": [paths]}`.
        /// Claude Code's object names its auto-memory folders instead
        /// (`auto`, `team`), which orbit does not have.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        memory_paths: Option<Value>,
        /// This line's id.
        uuid: String,
    },
    /// The history was compacted (Claude Code's `compact_boundary` line).
    CompactBoundary {
        /// The session's id.
        session_id: String,
        /// What was compacted and why.
        compact_metadata: CompactMetadata,
        /// This line's id.
        uuid: String,
    },
    /// A hook ran (Claude Code's `hook_response` line).
    HookResponse {
        /// This run's id.
        hook_id: String,
        /// `EVENT:subject` or the event's name.
        hook_name: String,
        /// The event.
        hook_event: String,
        /// What the run means in one line.
        output: String,
        /// The command's stdout (capped).
        stdout: String,
        /// The command's stderr (capped).
        stderr: String,
        /// The exit code, when it exited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// `success`, `error` or `cancelled`.
        outcome: HookRunOutcome,
        /// The session's id.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
    /// A model call failed and will be retried.
    ApiRetry {
        /// Which retry this is, from 1.
        attempt: u32,
        /// How many retries are allowed.
        max_retries: u32,
        /// Wait before the retry, in milliseconds.
        retry_delay_ms: u64,
        /// HTTP status, or null for a connection error or cut stream.
        error_status: Option<u16>,
        /// What went wrong.
        error: String,
        /// The session's id.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
}

/// The `compact_metadata` of a `compact_boundary` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactMetadata {
    /// `auto`, `manual` or `fallback`.
    pub trigger: CompactTrigger,
    /// Estimated tokens of the next request before compaction.
    pub pre_tokens: u64,
    /// Estimated tokens of the next request after compaction.
    pub post_tokens: u64,
}

/// The API-shaped message inside an `assistant`/`user` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkApiMessage {
    /// API message id (`msg_…`), when the provider gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The API's `type` field (`message`), when present.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Who wrote the message.
    pub role: Role,
    /// The model that answered (assistant messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The message's blocks.
    pub content: Vec<ContentBlock>,
    /// Why the model stopped (assistant messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Token usage of the model call (assistant messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// The body of an `assistant` or `user` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkConversationMessage {
    /// The API-shaped message.
    pub message: SdkApiMessage,
    /// The tool_use this message belongs to; null at top level.
    pub parent_tool_use_id: Option<String>,
    /// The session's id.
    pub session_id: String,
    /// This line's id.
    pub uuid: String,
    /// `user` lines: the structured result of the tool call they answer
    /// (Bash stdout/stderr, Read file info, Edit/Write patch), as Claude Code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
}

/// The `result` line: the outcome of the turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkResult {
    /// How the turn ended.
    pub subtype: ResultSubtype,
    /// Whether `subtype` is an error.
    pub is_error: bool,
    /// Wall time of the turn, in milliseconds.
    pub duration_ms: u64,
    /// Time spent waiting on model calls, in milliseconds.
    pub duration_api_ms: u64,
    /// Model calls made in the turn.
    pub num_turns: u32,
    /// The final assistant text; absent on error subtypes (as Claude Code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Stop reason of the last model call, when known.
    pub stop_reason: Option<String>,
    /// The session's id.
    pub session_id: String,
    /// Estimated cost of the turn's model calls, in US dollars.
    pub total_cost_usd: f64,
    /// Token usage summed over the turn's model calls.
    pub usage: Usage,
    /// Tool calls the permission gate refused.
    pub permission_denials: Vec<PermissionDenial>,
    /// Human-readable error lines.
    pub errors: Vec<String>,
    /// `--json-schema` output, when requested and valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Why the turn ended, in Claude Code's words (`completed`, `max_turns`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// Token and cost totals per model, cumulative over the session.
    #[serde(rename = "modelUsage", default)]
    pub model_usage: serde_json::Map<String, Value>,
    /// This line's id.
    pub uuid: String,
}

/// A top-level `tool_progress` line: which tool runs and for how long,
/// with orbit's live output (`data`) as an extra field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkToolProgress {
    /// The running call.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Null at top level.
    pub parent_tool_use_id: Option<String>,
    /// Seconds since the call started.
    pub elapsed_time_seconds: f64,
    /// What the tool reported (a line of output, an MCP progress value).
    pub data: Value,
    /// The session's id.
    pub session_id: String,
    /// This line's id.
    pub uuid: String,
}

/// A `stream_event` line: one raw event of the model's streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkStreamEvent {
    /// The event as the API sent it (`message_start`, `content_block_delta`, …).
    pub event: Value,
    /// Null at top level.
    pub parent_tool_use_id: Option<String>,
    /// The session's id.
    pub session_id: String,
    /// This line's id.
    pub uuid: String,
}
