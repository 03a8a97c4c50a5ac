//! Headless output: maps the engine's [`EngineEvent`]s to what the chosen
//! `--output-format` prints.
//!
//! - `text`: the final result text on stdout (with `--json-schema`, the
//!   structured output as one line of JSON).
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
//! In every format an error result also prints its error lines on stderr as
//! `orbit: error: …` (the one place a human looks), each error on one line.
//! In `text`, each retry of a model call is announced on stderr:
//! `orbit: MESSAGE; retry N/M in S s` ([`retry_line`]).
//! stderr is best effort: failing to write it never stops the run.
//!
//! What `text` prints (the answer on stdout, every stderr line) is
//! terminal-safe ([`orbit_tui::sanitize`], [`Mode::Terminal`]): colour is
//! kept, every other control sequence is shown (`␛]52;c;…␇`), never obeyed.
//! `json` and `stream-json` print model text byte-exact (JSON escapes it).

use std::io::{self, Write};

use orbit_protocol::sdk::{
    CompactMetadata, SdkApiMessage, SdkConversationMessage, SdkMessage, SdkResult, SdkStreamEvent,
    SdkSystem, SdkToolProgress,
};
use orbit_protocol::{ContentBlock, EngineEvent, Message, StreamEvent, TerminalResult};
use orbit_tui::sanitize::{Mode, sanitize};
use serde::Serialize;
use serde_json::Value;

use crate::args::OutputFormat;
use crate::sdk_lines::{SdkTracker, raw_stream_event, terminal_reason};

/// What the `system/init` line reports.
#[derive(Debug, Clone)]
pub struct InitInfo {
    pub cwd: String,
    pub tools: Vec<String>,
    pub model: String,
    pub permission_mode: String,
    pub api_key_source: String,
    /// The MCP servers and their state when the run starts.
    pub mcp_servers: Vec<orbit_mcp::ServerStatus>,
    /// The agents `--agents` defines.
    pub agents: Vec<String>,
}

/// Writes one run's output in one format.
pub struct OutputWriter<W: Write, E: Write> {
    format: OutputFormat,
    verbose: bool,
    session_id: String,
    out: W,
    err: E,
    /// `--include-partial-messages`: `stream_event` lines.
    partial: bool,
    tracker: SdkTracker,
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

impl<W: Write, E: Write> OutputWriter<W, E> {
    pub fn new(format: OutputFormat, verbose: bool, session_id: String, out: W, err: E) -> Self {
        Self {
            format,
            verbose,
            session_id,
            out,
            err,
            partial: false,
            tracker: SdkTracker::default(),
        }
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

    /// The first line of a stream-json run.
    pub fn init(&mut self, info: InitInfo) -> io::Result<()> {
        if self.format != OutputFormat::StreamJson {
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
            output_style: "default".to_string(),
            claude_code_version: env!("CARGO_PKG_VERSION").to_string(),
            orbit_version: env!("CARGO_PKG_VERSION").to_string(),
            slash_commands: Vec::new(),
            agents: info.agents,
            skills: Vec::new(),
            plugins: Vec::new(),
            uuid: new_uuid(),
        });
        self.line(&line)
    }

    /// Handles one engine event. Returns the exit code once the terminal
    /// result has been written.
    pub fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>> {
        match event {
            EngineEvent::Result(result) => return self.result(result).map(Some),
            EngineEvent::Stream(StreamEvent::Retry {
                attempt,
                max_retries,
                delay_ms,
                message,
                ..
            }) if self.format == OutputFormat::Text => {
                let line = retry_line(message, *attempt, *max_retries, *delay_ms);
                self.err_line(&line);
            }
            EngineEvent::AssistantMessage {
                message,
                model,
                usage,
                ..
            } if self.format == OutputFormat::Json => {
                self.tracker.assistant(&message.content, model, usage);
            }
            EngineEvent::ModelFallback {
                original_model,
                fallback_model,
            } => self.model_fallback(original_model, fallback_model)?,
            _ if self.format != OutputFormat::StreamJson => {}
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
            EngineEvent::AssistantMessage {
                uuid,
                message,
                message_id,
                model,
                stop_reason,
                usage,
            } => {
                self.tracker.assistant(&message.content, model, usage);
                let api = SdkApiMessage {
                    id: message_id.clone(),
                    kind: Some("message".to_string()),
                    role: message.role,
                    model: Some(model.clone()),
                    content: message.content.clone(),
                    stop_reason: stop_reason.clone(),
                    usage: Some(*usage),
                };
                let line = SdkMessage::Assistant(self.conversation(api, uuid));
                self.line(&line)?;
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
            } => self.tracker.detail(&result.tool_use_id, detail.clone()),
            EngineEvent::UserMessage { uuid, message } => self.user_lines(uuid, message)?,
            EngineEvent::ToolProgress { tool_use_id, data } if self.verbose => {
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
                    tool_use_id: tool_use_id.clone(),
                    tool_name,
                    parent_tool_use_id: None,
                    elapsed_time_seconds,
                    data: data.clone(),
                    session_id: self.session_id.clone(),
                    uuid: new_uuid(),
                });
                self.line(&line)?;
            }
            _ => {}
        }
        Ok(None)
    }

    /// The main model was overloaded: a `system` `model_fallback` line
    /// (orbit's; the fields of Claude Code's `model_refusal_fallback`),
    /// or one stderr note outside stream-json.
    fn model_fallback(&mut self, original: &str, fallback: &str) -> io::Result<()> {
        if self.format != OutputFormat::StreamJson {
            self.err_line(&format!(
                "orbit: note: {original} is overloaded; using the fallback model {fallback} for the rest of the session"
            ));
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
            let part = Message {
                role: message.role,
                content: vec![ContentBlock::ToolResult(result.clone())],
            };
            let id = if i == 0 { uuid.to_string() } else { new_uuid() };
            let mut line = self.conversation(user_api_message(&part), &id);
            line.tool_use_result = self.tracker.tool_use_result(result);
            self.line(&SdkMessage::User(line))?;
        }
        Ok(())
    }

    /// Writes the terminal result in the chosen format; returns the exit code.
    fn result(&mut self, result: &TerminalResult) -> io::Result<i32> {
        let mut sdk = to_sdk_result(result, &self.session_id);
        sdk.model_usage = self.tracker.model_usage();
        let code = exit_code(result);
        if sdk.is_error {
            self.report_errors(result);
        }
        match self.format {
            OutputFormat::Text => {
                if !sdk.is_error {
                    // With `--json-schema` the answer is the structured output.
                    let text = match &sdk.structured_output {
                        Some(value) => value.to_string(),
                        None => sdk.result.clone().unwrap_or_default(),
                    };
                    self.out
                        .write_all(sanitize(&text, Mode::Terminal).as_bytes())?;
                    self.out.write_all(b"\n")?;
                    self.out.flush()?;
                }
            }
            OutputFormat::Json | OutputFormat::StreamJson => {
                self.line(&SdkMessage::Result(sdk))?;
            }
        }
        Ok(code)
    }

    fn report_errors(&mut self, result: &TerminalResult) {
        if result.interrupted {
            // The engine's error line only restates the interrupt.
            self.err_line("orbit: interrupted");
            return;
        }
        for error in &result.errors {
            self.err_line(&format!("orbit: error: {}", one_line(error)));
        }
        if result.errors.is_empty() {
            let subtype = serde_json::to_value(result.subtype).unwrap_or(Value::Null);
            self.err_line(&format!("orbit: error: the run ended with {subtype}"));
        }
    }

    /// One line on stderr, terminal-safe, flushed; best effort.
    fn err_line(&mut self, line: &str) {
        let line = sanitize(line, Mode::Terminal);
        let _ = writeln!(self.err, "{line}").and_then(|()| self.err.flush());
    }

    fn line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.out.write_all(&bytes)?;
        self.out.flush()
    }
}

/// `orbit: MESSAGE; retry N/M in S s`: the text-mode retry notice.
pub fn retry_line(message: &str, attempt: u32, max_retries: u32, delay_ms: u64) -> String {
    format!(
        "orbit: {}; retry {attempt}/{max_retries} in {} s",
        one_line(message),
        seconds(delay_ms)
    )
}

/// A delay for people: one decimal below 10 s (`0.5`, `9.9`), whole
/// seconds from there (`10`, `32`), two decimals for the very short delays
/// of test setups (`0.01`) so they do not read as `0.0`.
fn seconds(delay_ms: u64) -> String {
    /// Below this, two decimals are shown.
    const TWO_DECIMALS_BELOW_MS: u64 = 95;
    /// Below this, one decimal is shown.
    const ONE_DECIMAL_BELOW_MS: u64 = 9_950;
    let secs = delay_ms as f64 / 1000.0;
    if delay_ms < TWO_DECIMALS_BELOW_MS {
        format!("{secs:.2}")
    } else if delay_ms < ONE_DECIMAL_BELOW_MS {
        format!("{secs:.1}")
    } else {
        format!("{secs:.0}")
    }
}

/// Joins a multi-line text (an error chain, a server message) into one line.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
        result: (!result.subtype.is_error()).then(|| result.result.clone()),
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

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
