//! The SDK's output formats: maps the engine's [`EngineEvent`]s to what
//! `--output-format json` and `stream-json` print ([`StreamWriter`]).
//!
//! - `json`: the single `result` object (Claude Agent SDK shape) on stdout.
//! - `stream-json`: one JSON object per line as things happen — `system/init`
//!   first, `assistant` and `user` messages, `system/api_retry` for retries,
//!   `system/compact_boundary` when the history was compacted,
//!   with `--verbose` also `system/tool_progress` and Claude Code's top-level
//!   `tool_progress`, with `--include-partial-messages` `stream_event` lines,
//!   and a final `result`. The fields Claude Code's SDKs read beyond orbit's
//!   events (`tool_use_result`, `modelUsage`, …) come from [`SdkTracker`].
//!   Each line is flushed at once so consumers see it live.
//!
//! Model text is printed byte-exact (JSON escapes it). An error result also
//! prints its error lines on stderr as `orbit: error: …` ([`Notices`], the
//! one place a human looks; the binary gives it its terminal filter). Any
//! writer the binary picks is an [`EventSink`].

use std::io::{self, Write};

use orbit_protocol::sdk::{
    CompactMetadata, SdkApiMessage, SdkConversationMessage, SdkMessage, SdkResult, SdkStreamEvent,
    SdkSystem, SdkToolProgress,
};
use orbit_protocol::{
    ContentBlock, EngineEvent, Message, StreamEvent, TerminalResult, ToolResultContent,
    ToolResultContentBlock,
};
use serde::Serialize;
use serde_json::Value;

use crate::lines::{SdkTracker, raw_stream_event, terminal_reason};
use crate::notices::{Notices, fallback_note};

mod assistant;
mod subagent;

/// What the `system/init` line reports.
#[derive(Debug, Clone)]
pub struct InitInfo {
    /// The session's working directory.
    pub cwd: String,
    /// The tools offered, by name.
    pub tools: Vec<String>,
    /// The model.
    pub model: String,
    /// The permission mode's name.
    pub permission_mode: String,
    /// Where the API key came from.
    pub api_key_source: String,
    /// The MCP servers and their state when the run starts.
    pub mcp_servers: Vec<orbit_mcp::ServerStatus>,
    /// The agents `--agents` defines.
    pub agents: Vec<String>,
    /// The custom slash commands (`orbit-commands`), by name.
    pub slash_commands: Vec<String>,
    /// The skills the `Skill` tool offers, by name.
    pub skills: Vec<String>,
    /// The memory files the session loaded (CLAUDE.md and the rest).
    pub memory_paths: Vec<String>,
    /// The output style's name (`default` when none is set).
    pub output_style: String,
}

/// A writer of one run's output, whatever its format.
pub trait EventSink {
    /// The run's first output (stream-json's `system/init`).
    fn init(&mut self, info: InitInfo) -> io::Result<()>;
    /// Handles one engine event. Returns the exit code once the terminal
    /// result has been written.
    fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>>;
}

/// The SDK's two JSON formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFormat {
    /// One `result` object at the end.
    Json,
    /// One line per event.
    StreamJson,
}

/// Writes one run's output as JSON.
pub struct StreamWriter<W: Write, E: Write> {
    format: JsonFormat,
    verbose: bool,
    session_id: String,
    out: W,
    notices: Notices<E>,
    /// `--include-partial-messages`: `stream_event` lines.
    partial: bool,
    tracker: SdkTracker,
    /// Options of the SDK orbit accepts but does not honour, listed in
    /// `system/init` as `orbit_not_honoured`.
    not_honoured: Vec<String>,
    /// What the session's subagents cost (in the result's total).
    subagent_cost_usd: f64,
}

/// `{"type":"system","subtype":"tool_progress",…}`: live output of a running
/// tool, emitted in stream-json with `--verbose` only.
#[derive(Serialize)]
struct ToolProgressLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    subtype: &'static str,
    tool_use_id: &'a str,
    data: &'a Value,
    parent_tool_use_id: Option<String>,
    session_id: String,
    uuid: String,
}

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

impl<W: Write, E: Write> StreamWriter<W, E> {
    /// A writer of `format` to `out`, notices to `notices`.
    pub fn new(
        format: JsonFormat,
        verbose: bool,
        session_id: String,
        out: W,
        notices: Notices<E>,
    ) -> Self {
        Self {
            format,
            verbose,
            session_id,
            out,
            notices,
            partial: false,
            tracker: SdkTracker::default(),
            not_honoured: Vec::new(),
            subagent_cost_usd: 0.0,
        }
    }

    /// The SDK's options orbit accepts but does not honour (flags such as
    /// `--effort`, `initialize` fields such as `initialize.title`): the
    /// `system/init` line lists them as `orbit_not_honoured`.
    pub fn with_not_honoured(mut self, names: Vec<String>) -> Self {
        self.not_honoured = names;
        self
    }

    /// Emits `stream_event` lines (stream-json only).
    pub fn with_partial_messages(mut self, on: bool) -> Self {
        self.partial = on;
        self
    }

    /// The requests' `max_tokens`, reported in `modelUsage`.
    pub fn with_max_output_tokens(mut self, tokens: u64) -> Self {
        self.tracker.max_output_tokens = tokens;
        self
    }

    /// The session's window if set (`ORBIT_CONTEXT_WINDOW`), reported in
    /// `modelUsage` (else the model catalog's window of each model).
    pub fn with_context_window(mut self, tokens: Option<u64>) -> Self {
        self.tracker.context_window_tokens = tokens;
        self
    }

    fn stream(&self) -> bool {
        self.format == JsonFormat::StreamJson
    }

    /// The main model was overloaded: a `system` `model_fallback` line
    /// (orbit's; the fields of Claude Code's `model_refusal_fallback`),
    /// or one stderr note with `json`.
    fn model_fallback(&mut self, original: &str, fallback: &str) -> io::Result<()> {
        if !self.stream() {
            self.notices.line(&fallback_note(original, fallback));
            return Ok(());
        }
        self.line(&serde_json::json!({
            "type": "system",
            "subtype": "model_fallback",
            "trigger": "overloaded",
            "direction": "retry",
            "scope": "session",
            "original_model": original,
            "fallback_model": fallback,
            "session_id": self.session_id,
            "uuid": new_uuid(),
        }))
    }

    fn conversation(&self, message: SdkApiMessage, uuid: &str) -> SdkConversationMessage {
        SdkConversationMessage {
            message,
            parent_tool_use_id: None,
            session_id: self.session_id.clone(),
            uuid: uuid.to_string(),
            tool_use_result: None,
        }
    }

    /// A user message of tool results is one `user` line per result (as
    /// Claude Code), each with its `tool_use_result`; the first keeps the
    /// history entry's id. Any other user message is one line.
    fn user_lines(&mut self, uuid: &str, message: &Message) -> io::Result<()> {
        let results: Vec<&orbit_protocol::ToolResultBlock> = message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult(r) => Some(r),
                _ => None,
            })
            .collect();
        if results.is_empty() || results.len() != message.content.len() {
            let line = SdkMessage::User(self.conversation(user_api_message(message), uuid));
            return self.line(&line);
        }
        for (i, result) in results.into_iter().enumerate() {
            // An MCP tool's result is content blocks, in the message and
            // as `tool_use_result` (as Claude Code sends it).
            let mcp =
                self.tracker.is_mcp_call(&result.tool_use_id) && result.is_error != Some(true);
            let mut result = result.clone();
            if mcp && let ToolResultContent::Text(text) = &result.content {
                result.content = ToolResultContent::Blocks(vec![ToolResultContentBlock::Text {
                    text: text.clone(),
                }]);
            }
            let part = Message {
                role: message.role,
                content: vec![ContentBlock::ToolResult(result.clone())],
            };
            let id = if i == 0 { uuid.to_string() } else { new_uuid() };
            let mut line = self.conversation(user_api_message(&part), &id);
            line.tool_use_result = self.tracker.tool_use_result(&result);
            if mcp {
                line.tool_use_result = serde_json::to_value(&result.content).ok();
            }
            self.line(&SdkMessage::User(line))?;
        }
        Ok(())
    }

    /// Writes the terminal result; returns the exit code.
    fn result(&mut self, result: &TerminalResult) -> io::Result<i32> {
        let mut sdk = to_sdk_result(result, &self.session_id);
        sdk.model_usage = self.tracker.model_usage();
        sdk.total_cost_usd += self.subagent_cost_usd;
        if sdk.is_error {
            self.notices.report_errors(result);
        }
        self.line(&SdkMessage::Result(sdk))?;
        Ok(exit_code(result))
    }

    fn stream_event(&mut self, event: &EngineEvent) -> io::Result<()> {
        match event {
            EngineEvent::Stream(stream) if self.partial => {
                if let Some(event) = raw_stream_event(stream) {
                    let line = SdkMessage::StreamEvent(SdkStreamEvent {
                        event,
                        parent_tool_use_id: None,
                        session_id: self.session_id.clone(),
                        uuid: new_uuid(),
                    });
                    self.line(&line)?;
                }
            }
            EngineEvent::ToolStarted { tool_use_id, .. } => self.tracker.started(tool_use_id),
            EngineEvent::Stream(StreamEvent::Retry {
                attempt,
                max_retries,
                delay_ms,
                error_status,
                message,
            }) => {
                let line = SdkMessage::System(SdkSystem::ApiRetry {
                    attempt: *attempt,
                    max_retries: *max_retries,
                    retry_delay_ms: *delay_ms,
                    error_status: *error_status,
                    error: message.clone(),
                    session_id: self.session_id.clone(),
                    uuid: new_uuid(),
                });
                self.line(&line)?;
            }
            EngineEvent::AssistantMessage { .. } => {
                for line in self.assistant_lines(event) {
                    self.line(&line)?;
                }
            }
            // Before each model request, with partial messages (Claude
            // Code 2.1.332's `status: requesting`).
            EngineEvent::RequestStart { .. } if self.partial => {
                self.line(&serde_json::json!({
                    "type": "system",
                    "subtype": "status",
                    "status": "requesting",
                    "session_id": self.session_id,
                    "uuid": new_uuid(),
                }))?;
            }
            EngineEvent::CompactBoundary {
                trigger,
                pre_tokens,
                post_tokens,
            } => {
                let line = SdkMessage::System(SdkSystem::CompactBoundary {
                    session_id: self.session_id.clone(),
                    compact_metadata: CompactMetadata {
                        trigger: *trigger,
                        pre_tokens: *pre_tokens,
                        post_tokens: *post_tokens,
                    },
                    uuid: new_uuid(),
                });
                self.line(&line)?;
            }
            EngineEvent::HookResponse(report) => {
                let line = SdkMessage::System(SdkSystem::HookResponse {
                    hook_id: report.hook_id.clone(),
                    hook_name: report.hook_name.clone(),
                    hook_event: report.hook_event.clone(),
                    output: report.output.clone(),
                    stdout: report.stdout.clone(),
                    stderr: report.stderr.clone(),
                    exit_code: report.exit_code,
                    outcome: report.outcome,
                    session_id: self.session_id.clone(),
                    uuid: new_uuid(),
                });
                self.line(&line)?;
            }
            EngineEvent::ToolResult {
                result,
                detail: Some(detail),
            } => self.tracker.detail(&result.tool_use_id, detail),
            EngineEvent::UserMessage { uuid, message } => self.user_lines(uuid, message)?,
            EngineEvent::ToolProgress { tool_use_id, data } if self.verbose => {
                self.progress_lines(tool_use_id, data)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `--verbose`: orbit's `system/tool_progress` line and Claude Code's
    /// top-level `tool_progress`.
    fn progress_lines(&mut self, tool_use_id: &str, data: &Value) -> io::Result<()> {
        let line = ToolProgressLine {
            kind: "system",
            subtype: "tool_progress",
            tool_use_id,
            data,
            parent_tool_use_id: None,
            session_id: self.session_id.clone(),
            uuid: new_uuid(),
        };
        self.line(&line)?;
        let (tool_name, elapsed_time_seconds) = self.tracker.progress(tool_use_id);
        let line = SdkMessage::ToolProgress(SdkToolProgress {
            tool_use_id: tool_use_id.to_string(),
            tool_name,
            parent_tool_use_id: None,
            elapsed_time_seconds,
            data: data.clone(),
            session_id: self.session_id.clone(),
            uuid: new_uuid(),
        });
        self.line(&line)
    }

    fn line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.out.write_all(&bytes)?;
        self.out.flush()
    }
}

impl<W: Write, E: Write> EventSink for StreamWriter<W, E> {
    /// The first line of a stream-json run.
    fn init(&mut self, info: InitInfo) -> io::Result<()> {
        if !self.stream() {
            return Ok(());
        }
        let line = SdkMessage::System(SdkSystem::Init {
            cwd: info.cwd,
            session_id: self.session_id.clone(),
            tools: info.tools,
            mcp_servers: info
                .mcp_servers
                .iter()
                .map(|s| serde_json::json!({"name": s.name, "status": s.state.as_str()}))
                .collect(),
            model: info.model,
            permission_mode: info.permission_mode,
            api_key_source: info.api_key_source,
            output_style: info.output_style,
            claude_code_version: env!("CARGO_PKG_VERSION").to_string(),
            orbit_version: env!("CARGO_PKG_VERSION").to_string(),
            slash_commands: info.slash_commands,
            agents: info.agents,
            skills: info.skills,
            plugins: Vec::new(),
            memory_paths: Some(serde_json::json!({"files": info.memory_paths})),
            uuid: new_uuid(),
        });
        if self.not_honoured.is_empty() {
            return self.line(&line);
        }
        let mut value = serde_json::to_value(&line).map_err(io::Error::other)?;
        value["orbit_not_honoured"] = serde_json::json!(self.not_honoured);
        self.line(&value)
    }

    fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>> {
        match event {
            EngineEvent::Result(result) => return self.result(result).map(Some),
            EngineEvent::AssistantMessage {
                message,
                model,
                usage,
                ..
            } if !self.stream() => {
                self.tracker.assistant(&message.content, model, usage);
            }
            EngineEvent::ModelFallback {
                original_model,
                fallback_model,
            } => self.model_fallback(original_model, fallback_model)?,
            EngineEvent::ToolProgress { tool_use_id, data } if subagent::is_subagent(data) => {
                self.subagent(tool_use_id, data)?;
            }
            _ if !self.stream() => {}
            _ => self.stream_event(event)?,
        }
        Ok(None)
    }
}

/// The `user` line's message: role and content only, as the SDK prints it.
fn user_api_message(message: &Message) -> SdkApiMessage {
    SdkApiMessage {
        id: None,
        kind: None,
        role: message.role,
        model: None,
        content: message.content.clone(),
        stop_reason: None,
        usage: None,
    }
}

/// The SDK result object for a terminal result.
pub fn to_sdk_result(result: &TerminalResult, session_id: &str) -> SdkResult {
    SdkResult {
        subtype: result.subtype,
        is_error: result.subtype.is_error() || result.interrupted,
        duration_ms: result.duration_ms,
        duration_api_ms: result.duration_api_ms,
        num_turns: result.num_turns,
        result: (!result.subtype.is_error()).then(|| result_field(result)),
        stop_reason: result.stop_reason.clone(),
        session_id: session_id.to_string(),
        total_cost_usd: result.total_cost_usd,
        usage: result.usage,
        permission_denials: result.permission_denials.clone(),
        errors: result.errors.clone(),
        structured_output: result.structured_output.clone(),
        terminal_reason: Some(terminal_reason(result).to_string()),
        model_usage: serde_json::Map::new(),
        uuid: new_uuid(),
    }
}

/// The result's text; with structured output, the value as compact JSON
/// (what Claude Code puts there).
fn result_field(result: &TerminalResult) -> String {
    match &result.structured_output {
        Some(value) => serde_json::to_string(value).unwrap_or_else(|_| result.result.clone()),
        None => result.result.clone(),
    }
}

/// Process exit code for a result: 0 success, 130 interrupted, 1 otherwise.
pub fn exit_code(result: &TerminalResult) -> i32 {
    if result.interrupted {
        130
    } else if result.subtype.is_error() {
        1
    } else {
        0
    }
}
