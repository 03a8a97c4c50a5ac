//! Assembles streamed chat-completion chunks into normalized
//! [`StreamEvent`]s — the same sequence the Anthropic client yields, so the
//! engine cannot tell the providers apart.
//!
//! Data flow: each SSE `data:` JSON chunk → [`ChunkAssembler::feed`] →
//! events appended to the driver's queue; `[DONE]` (or a clean end after a
//! `finish_reason`) → [`ChunkAssembler::finish`] → the closing events. Mapping:
//! - the first chunk → `MessageStart` (its `id`, `model`);
//! - `delta.content` → a text block (`ContentBlockStart`, `TextDelta`s);
//! - `delta.tool_calls[i]` → one tool_use block per OpenAI `index`: the
//!   first fragment with a name starts it, `function.arguments` fragments
//!   become `InputJsonDelta`s, and it completes (`ContentBlockComplete`, input
//!   parsed; the `__unparsedToolInput` object and `invalid_input` when the
//!   arguments do not parse as a JSON object, see `crate::tool_input`;
//!   read tolerantly, see `crate::tolerant_json`) as
//!   soon as the next tool call starts or the choice finishes — so a tool
//!   can start while the model is still generating (X3). Every call gets a
//!   fresh id ([`fresh_call_id`]); the server's `id` is ignored;
//! - `finish_reason` → `stop_reason` (stop→end_turn, tool_calls→tool_use,
//!   length→max_tokens); `usage` (prompt/completion tokens, cached prompt
//!   tokens as cache reads) → the `MessageDelta` usage.
//!
//! With fenced-JSON recovery on ([`super::fenced`]), text from the first
//! possible call marker on is held back until the end of the message, then
//! either becomes tool_use blocks or is flushed as text.
//!
//! With one tool call per reply (`ModelRequest::one_tool_call`),
//! the start of a second call ends the message after the first
//! ([`ChunkAssembler::cut_after_first_call`]; the driver then drops the
//! body, which stops the server's generation), and fenced recovery keeps
//! the first block only.

use orbit_protocol::{ContentBlock, StreamEvent, ToolUseBlock, Usage};
use serde_json::{Map, Value};

use super::fenced;
use crate::ModelError;
use crate::driver::Events;
use crate::tolerant_json::parse_tool_input;

/// An open text block.
#[derive(Debug, Default)]
struct TextState {
    /// Block index, once the block was started.
    index: Option<usize>,
    /// All text received so far.
    full: String,
    /// Bytes of `full` already sent as `TextDelta`s.
    emitted: usize,
}

/// One streamed tool call (by OpenAI `index`).
#[derive(Debug)]
struct ToolState {
    openai_index: u64,
    block_index: Option<usize>,
    id: String,
    name: String,
    arguments: String,
    closed: bool,
}

/// Turns one response's chunks into normalized events.
#[derive(Debug)]
pub(super) struct ChunkAssembler {
    started: bool,
    next_index: usize,
    text: Option<TextState>,
    tools: Vec<ToolState>,
    finish_reason: Option<String>,
    usage: Usage,
    /// Names of the offered tools when fenced recovery is on.
    recovery: Option<Vec<String>>,
    /// Keep only the first tool call of a reply.
    one_tool_call: bool,
    /// A second tool call began and was dropped: the message ends here.
    cut: bool,
    finished: bool,
}

impl ChunkAssembler {
    /// `recovery`: the offered tool names when fenced-JSON recovery is on;
    /// `one_tool_call`: a reply ends with its first tool call.
    pub(super) fn new(recovery: Option<Vec<String>>, one_tool_call: bool) -> Self {
        Self {
            started: false,
            next_index: 0,
            text: None,
            tools: Vec::new(),
            finish_reason: None,
            usage: Usage::default(),
            recovery,
            one_tool_call,
            cut: false,
            finished: false,
        }
    }

    /// Forgets everything but the settings (a new attempt).
    pub(super) fn reset(&mut self) {
        *self = Self::new(self.recovery.take(), self.one_tool_call);
    }

    /// Whether the reply was cut at the start of its second tool call
    /// (the rest of the body is not wanted).
    pub(super) fn cut_after_first_call(&self) -> bool {
        self.cut
    }

    /// Whether a `finish_reason` arrived (a clean end of the body is then
    /// as good as `[DONE]`).
    pub(super) fn saw_finish(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// Feeds one parsed chunk, appending its events to `out`.
    pub(super) fn feed(&mut self, chunk: &Value, out: &mut Events) -> Result<(), ModelError> {
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(err));
        }
        if !chunk.is_object() {
            return Err(ModelError::Malformed(format!(
                "chunk is not an object: {chunk}"
            )));
        }
        if !self.started {
            self.started = true;
            out.push_back(StreamEvent::MessageStart {
                id: chunk["id"].as_str().unwrap_or("chatcmpl").to_string(),
                model: chunk["model"].as_str().unwrap_or_default().to_string(),
                usage: Usage::default(),
            });
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = convert_usage(usage);
        }
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            self.on_text(text, out);
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                self.on_tool_delta(call, out)?;
                if self.cut {
                    return Ok(());
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_string());
            self.close_tools(out);
        }
        Ok(())
    }

    fn alloc_index(&mut self) -> usize {
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    fn on_text(&mut self, text: &str, out: &mut Events) {
        // Text after a tool call is rare; it opens a new text block.
        let mut state = self.text.take().unwrap_or_default();
        state.full.push_str(text);
        let hold = match (&self.recovery, self.tools.is_empty()) {
            (Some(_), true) => fenced::hold_from(&state.full),
            _ => state.full.len(),
        };
        self.emit_text_upto(&mut state, hold, out);
        self.text = Some(state);
    }

    /// Sends `full[emitted..upto]` as a delta (starting the block first),
    /// unless everything so far is whitespace.
    fn emit_text_upto(&mut self, state: &mut TextState, upto: usize, out: &mut Events) {
        if upto <= state.emitted || state.full[..upto].trim().is_empty() {
            return;
        }
        let index = match state.index {
            Some(i) => i,
            None => {
                let i = self.alloc_index();
                state.index = Some(i);
                out.push_back(StreamEvent::ContentBlockStart {
                    index: i,
                    block: ContentBlock::text(""),
                });
                i
            }
        };
        out.push_back(StreamEvent::TextDelta {
            index,
            text: state.full[state.emitted..upto].to_string(),
        });
        state.emitted = upto;
    }

    /// Flushes held text and completes the open text block.
    fn close_text(&mut self, out: &mut Events) {
        let Some(mut state) = self.text.take() else {
            return;
        };
        let len = state.full.len();
        self.emit_text_upto(&mut state, len, out);
        if let Some(index) = state.index {
            out.push_back(StreamEvent::ContentBlockComplete {
                index,
                block: ContentBlock::text(state.full),
                invalid_input: None,
            });
        }
    }

    fn on_tool_delta(&mut self, call: &Value, out: &mut Events) -> Result<(), ModelError> {
        let openai_index = call["index"].as_u64().unwrap_or(self.tools.len() as u64);
        let function = &call["function"];
        let pos = match self
            .tools
            .iter()
            .position(|t| t.openai_index == openai_index)
        {
            Some(p) => p,
            None if self.one_tool_call && !self.tools.is_empty() => {
                // One call per reply: the message ends with the first.
                self.cut = true;
                self.finish_reason = Some("tool_calls".into());
                return Ok(());
            }
            None => {
                // A new call: what came before it is complete.
                self.close_text(out);
                self.close_tools(out);
                self.tools.push(ToolState {
                    openai_index,
                    block_index: None,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    closed: false,
                });
                self.tools.len() - 1
            }
        };
        if self.tools[pos].closed {
            return Err(ModelError::Malformed(format!(
                "tool call {openai_index} continued after a later one began"
            )));
        }
        if let Some(name) = function["name"].as_str() {
            self.tools[pos].name.push_str(name);
        }
        let fragment = function["arguments"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if self.tools[pos].block_index.is_none() && !self.tools[pos].name.is_empty() {
            self.start_tool(pos, out);
        }
        self.tools[pos].arguments.push_str(&fragment);
        if let (Some(index), false) = (self.tools[pos].block_index, fragment.is_empty()) {
            out.push_back(StreamEvent::InputJsonDelta {
                index,
                partial_json: fragment,
            });
        }
        Ok(())
    }

    fn start_tool(&mut self, pos: usize, out: &mut Events) {
        let index = self.alloc_index();
        let tool = &mut self.tools[pos];
        tool.id = fresh_call_id();
        tool.block_index = Some(index);
        out.push_back(StreamEvent::ContentBlockStart {
            index,
            block: ContentBlock::ToolUse(ToolUseBlock {
                id: tool.id.clone(),
                name: tool.name.clone(),
                input: Value::Object(Map::new()),
            }),
        });
        // Fragments that arrived before the name are sent now.
        if !tool.arguments.is_empty() {
            out.push_back(StreamEvent::InputJsonDelta {
                index,
                partial_json: tool.arguments.clone(),
            });
        }
    }

    /// Completes every open tool call.
    fn close_tools(&mut self, out: &mut Events) {
        for pos in 0..self.tools.len() {
            if self.tools[pos].closed {
                continue;
            }
            if self.tools[pos].block_index.is_none() {
                self.start_tool(pos, out);
            }
            let tool = &mut self.tools[pos];
            tool.closed = true;
            let (input, invalid_input) = parse_tool_input(&tool.arguments);
            out.push_back(StreamEvent::ContentBlockComplete {
                index: tool.block_index.unwrap_or_default(),
                block: ContentBlock::ToolUse(ToolUseBlock {
                    id: tool.id.clone(),
                    name: tool.name.clone(),
                    input,
                }),
                invalid_input,
            });
        }
    }

    /// Appends the closing events to `out`: open blocks completed
    /// (recovering fenced calls when on), then `MessageDelta` and
    /// `MessageStop`. Once only.
    pub(super) fn finish(&mut self, out: &mut Events) {
        if self.finished {
            return;
        }
        self.finished = true;
        if !self.started {
            self.started = true;
            out.push_back(StreamEvent::MessageStart {
                id: "chatcmpl".into(),
                model: String::new(),
                usage: Usage::default(),
            });
        }
        self.recover_fenced(out);
        self.close_text(out);
        self.close_tools(out);
        let has_tools = !self.tools.is_empty();
        let stop_reason = match self.finish_reason.as_deref() {
            Some("tool_calls" | "function_call") => "tool_use".to_string(),
            Some("stop") | None if has_tools => "tool_use".to_string(),
            Some("stop") | None => "end_turn".to_string(),
            Some("length") => "max_tokens".to_string(),
            Some(other) => other.to_string(),
        };
        out.push_back(StreamEvent::MessageDelta {
            stop_reason: Some(stop_reason),
            usage: self.usage,
        });
        out.push_back(StreamEvent::MessageStop);
    }

    /// Turns a text that ends with fenced calls into tool_use blocks.
    fn recover_fenced(&mut self, out: &mut Events) {
        let Some(known) = &self.recovery else { return };
        if !self.tools.is_empty() {
            return;
        }
        let Some(state) = &self.text else { return };
        let Some(recovered) = fenced::recover(&state.full, known) else {
            return;
        };
        let Some(mut state) = self.text.take() else {
            return;
        };
        // Everything sent so far lies before the first marker, so it is a
        // prefix of the kept text (up to trailing whitespace).
        let keep = recovered.text.len().max(state.emitted);
        state.full.truncate(keep.min(state.full.len()));
        let len = state.full.len();
        self.emit_text_upto(&mut state, len, out);
        if let Some(index) = state.index {
            out.push_back(StreamEvent::ContentBlockComplete {
                index,
                block: ContentBlock::text(state.full.trim_end().to_string()),
                invalid_input: None,
            });
        }
        let most = if self.one_tool_call { 1 } else { usize::MAX };
        for call in recovered.calls.into_iter().take(most) {
            let index = self.alloc_index();
            let id = fresh_call_id();
            let arguments = call.arguments.to_string();
            out.push_back(StreamEvent::ContentBlockStart {
                index,
                block: ContentBlock::ToolUse(ToolUseBlock {
                    id: id.clone(),
                    name: call.name.clone(),
                    input: Value::Object(Map::new()),
                }),
            });
            out.push_back(StreamEvent::InputJsonDelta {
                index,
                partial_json: arguments.clone(),
            });
            out.push_back(StreamEvent::ContentBlockComplete {
                index,
                block: ContentBlock::ToolUse(ToolUseBlock {
                    id: id.clone(),
                    name: call.name.clone(),
                    input: call.arguments.clone(),
                }),
                invalid_input: None,
            });
            self.tools.push(ToolState {
                openai_index: u64::MAX,
                block_index: Some(index),
                id,
                name: call.name,
                arguments,
                closed: true,
            });
        }
    }
}

/// A new tool-call id, unique across the session: `call_` + 32 hex digits
/// (a random UUID). The server's own id is not used: OpenAI-compatible
/// servers repeat them (`call_0` in every turn, or twice in one message),
/// and chat completions never needs it back — the history we send pairs
/// our ids in assistant `tool_calls` and tool messages' `tool_call_id`.
pub(super) fn fresh_call_id() -> String {
    format!("call_{}", uuid::Uuid::new_v4().simple())
}

/// OpenAI usage → Messages usage (cached prompt tokens count as cache reads,
/// not as input, as Anthropic reports them).
fn convert_usage(usage: &Value) -> Usage {
    let prompt = usage["prompt_tokens"].as_u64().unwrap_or(0);
    let cached = usage["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap_or(0);
    Usage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }
}

/// An `{"error": …}` object inside the stream.
fn stream_error(err: &Value) -> ModelError {
    let message = err["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| err.to_string());
    // OpenAI's `server_error` is Anthropic's `api_error`: retryable.
    let error_type = match err["type"].as_str() {
        None | Some("server_error") => "api_error",
        Some(other) => other,
    }
    .to_string();
    ModelError::StreamError {
        error_type,
        message,
    }
}
