//! The stream-json fields Claude Code's SDK readers expect beyond orbit's
//! own events, built in the output writer from what it already sees:
//!
//! - `tool_use_result` on `user` lines: the structured result of the call a
//!   tool_result answers (Bash stdout/stderr/interrupted, Read file info,
//!   Edit/Write file path and patch), from the call's input (remembered from
//!   the `assistant` line) and the result text. orbit's Bash output merges
//!   stdout and stderr, so `stdout` holds both and `stderr` is empty.
//! - the top-level `tool_progress` line's name and elapsed time;
//! - `modelUsage` per model, summed over the session (as Claude Code);
//! - `terminal_reason` from the result's subtype;
//! - `stream_event` lines (`--include-partial-messages`): orbit's stream
//!   events written back as the Anthropic API's raw events.
//!
//! Nothing here runs unless the format is stream-json (or json, for the
//! result); the partial-message mapping runs only with its flag.

use std::collections::HashMap;
use std::time::Instant;

use orbit_protocol::{
    ContentBlock, ResultSubtype, StreamEvent, TerminalResult, ToolResultBlock, ToolResultContent,
    Usage,
};
use serde_json::{Map, Value, json};

/// Lines of context around an Edit's change in its `structuredPatch`.
const PATCH_CONTEXT_LINES: usize = 3;
/// The context window `modelUsage` reports, in tokens.
const MODEL_CONTEXT_WINDOW_TOKENS: u64 = 200_000;

/// A tool call seen on an `assistant` line.
struct Call {
    name: String,
    input: Value,
    started: Option<Instant>,
}

/// What the writer remembers across lines.
#[derive(Default)]
pub struct SdkTracker {
    calls: HashMap<String, Call>,
    /// The facts tools reported with their results, by tool_use id (a
    /// result may be released before its call's `assistant` line).
    details: HashMap<String, Value>,
    /// Per model: its summed usage.
    models: Vec<(String, Usage)>,
    /// `max_tokens` of the requests (`modelUsage.maxOutputTokens`).
    pub max_output_tokens: u64,
}

impl SdkTracker {
    /// Remembers the tool calls of an assistant message and adds its usage.
    pub fn assistant(&mut self, content: &[ContentBlock], model: &str, usage: &Usage) {
        for block in content {
            if let ContentBlock::ToolUse(call) = block {
                self.calls.insert(
                    call.id.clone(),
                    Call {
                        name: call.name.clone(),
                        input: call.input.clone(),
                        started: None,
                    },
                );
            }
        }
        match self.models.iter_mut().find(|(m, _)| m == model) {
            Some((_, total)) => total.add(usage),
            None => self.models.push((model.to_string(), *usage)),
        }
    }

    /// A call began running.
    pub fn started(&mut self, tool_use_id: &str) {
        if let Some(call) = self.calls.get_mut(tool_use_id) {
            call.started = Some(Instant::now());
        }
    }

    /// The facts a call's tool reported with its result.
    pub fn detail(&mut self, tool_use_id: &str, detail: Value) {
        self.details.insert(tool_use_id.to_string(), detail);
    }

    /// The name and seconds since start of a running call.
    pub fn progress(&self, tool_use_id: &str) -> (String, f64) {
        self.calls
            .get(tool_use_id)
            .map_or((String::new(), 0.0), |c| {
                let secs = c.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
                (c.name.clone(), (secs * 1000.0).round() / 1000.0)
            })
    }

    /// The `tool_use_result` for one result block (the call is forgotten).
    pub fn tool_use_result(&mut self, result: &ToolResultBlock) -> Option<Value> {
        let detail = self.details.remove(&result.tool_use_id);
        let call = self.calls.remove(&result.tool_use_id)?;
        let text = result_text(&result.content);
        let is_error = result.is_error == Some(true);
        structured(&call, detail.as_ref(), &text, is_error)
    }

    /// `modelUsage`: per model, Claude Code's keys.
    pub fn model_usage(&self) -> Map<String, Value> {
        self.models
            .iter()
            .map(|(model, u)| {
                let entry = json!({
                    "inputTokens": u.input_tokens,
                    "outputTokens": u.output_tokens,
                    "cacheReadInputTokens": u.cache_read_input_tokens,
                    "cacheCreationInputTokens": u.cache_creation_input_tokens,
                    "webSearchRequests": 0,
                    "costUSD": orbit_model::pricing::cost_usd(model, u),
                    "contextWindow": MODEL_CONTEXT_WINDOW_TOKENS,
                    "maxOutputTokens": self.max_output_tokens,
                });
                (model.clone(), entry)
            })
            .collect()
    }
}

pub(crate) fn result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| serde_json::to_value(b).ok())
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn str_of<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Claude Code's structured result of one built-in tool call; errors and
/// other tools carry the result text (as Claude Code's error results do).
fn structured(call: &Call, detail: Option<&Value>, text: &str, is_error: bool) -> Option<Value> {
    let (name, input) = (call.name.as_str(), &call.input);
    let interrupted = is_error && text.to_lowercase().contains("interrupt");
    match name {
        "Bash" => Some(json!({
            "stdout": text,
            "stderr": "",
            "interrupted": interrupted,
            "isImage": false,
        })),
        _ if is_error => Some(Value::String(format!("Error: {text}"))),
        "Read" => Some(read_result(input, text)),
        "Write" => Some(write_result(input, detail)),
        "Edit" => Some(edit_result(input)),
        _ => None,
    }
}

/// Read: the file's lines without orbit's `N\t` prefixes.
fn read_result(input: &Value, text: &str) -> Value {
    let path = str_of(input, "file_path");
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split_once('\t').map_or(l, |(_, rest)| rest))
        .collect();
    let start = input.get("offset").and_then(Value::as_u64).unwrap_or(1);
    // Counted as orbit numbers lines: a final newline starts an empty line.
    let total = std::fs::read_to_string(path).map_or(lines.len(), |t| t.split('\n').count());
    json!({
        "type": "text",
        "file": {
            "filePath": path,
            "content": lines.join("\n"),
            "numLines": lines.len(),
            "startLine": start,
            "totalLines": total,
        }
    })
}

/// Write: a create has no patch and no original (as Claude Code); an
/// overwrite's patch is the diff from the content it replaced (the
/// tool's `originalFile` detail) to the new content.
fn write_result(input: &Value, detail: Option<&Value>) -> Value {
    let content = str_of(input, "content");
    let original = detail
        .and_then(|d| d.get("originalFile"))
        .and_then(Value::as_str);
    let (kind, patch) = match (detail, original) {
        (None, _) => ("create", Vec::new()),
        (Some(_), Some(original)) => ("update", diff_hunks(original, content)),
        // An overwrite of a file that was not text: no patch.
        (Some(_), None) => ("update", Vec::new()),
    };
    json!({
        "type": kind,
        "filePath": str_of(input, "file_path"),
        "content": content,
        "structuredPatch": patch,
        "originalFile": original,
    })
}

/// The unified-diff hunks `old` → `new` (`similar`, 3 lines of context),
/// in `structuredPatch`'s shape: 1-based starts, lines prefixed with ` `,
/// `-` or `+`, without their newlines.
fn diff_hunks(old: &str, new: &str) -> Vec<Value> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(PATCH_CONTEXT_LINES);
    unified
        .iter_hunks()
        .filter_map(|hunk| {
            let (first, last) = (hunk.ops().first()?, hunk.ops().last()?);
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let lines: Vec<String> = hunk
                .iter_changes()
                .map(|change| {
                    let sign = match change.tag() {
                        similar::ChangeTag::Equal => ' ',
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                    };
                    let text = change.value();
                    format!("{sign}{}", text.strip_suffix('\n').unwrap_or(text))
                })
                .collect();
            Some(json!({
                "oldStart": old_range.start + 1,
                "oldLines": old_range.len(),
                "newStart": new_range.start + 1,
                "newLines": new_range.len(),
                "lines": lines,
            }))
        })
        .collect()
}

/// Edit: Claude Code's fields, the hunk found in the file as it is now.
fn edit_result(input: &Value) -> Value {
    let path = str_of(input, "file_path");
    let old = str_of(input, "old_string");
    let new = str_of(input, "new_string");
    let patch = std::fs::read_to_string(path)
        .ok()
        .and_then(|now| hunk(&now, old, new))
        .map_or_else(Vec::new, |h| vec![h]);
    json!({
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": Value::Null,
        "structuredPatch": patch,
        "userModified": false,
        "replaceAll": input.get("replace_all").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// A unified-diff hunk for `old` → `new`, located by `new` in `now`.
fn hunk(now: &str, old: &str, new: &str) -> Option<Value> {
    let at = now.find(new)?;
    let first = now[..at].matches('\n').count();
    let file: Vec<&str> = now.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let old_lines: Vec<&str> = old.lines().collect();
    let before = first.saturating_sub(PATCH_CONTEXT_LINES);
    let after_start = (first + new_lines.len()).min(file.len());
    let after_end = (after_start + PATCH_CONTEXT_LINES).min(file.len());
    let context = |range: &[&str]| range.iter().map(|l| format!(" {l}")).collect::<Vec<_>>();
    let mut lines = context(file.get(before..first)?);
    lines.extend(old_lines.iter().map(|l| format!("-{l}")));
    lines.extend(new_lines.iter().map(|l| format!("+{l}")));
    lines.extend(context(file.get(after_start..after_end)?));
    let around = (first - before) + (after_end - after_start);
    Some(json!({
        "oldStart": before + 1,
        "oldLines": around + old_lines.len(),
        "newStart": before + 1,
        "newLines": around + new_lines.len(),
        "lines": lines,
    }))
}

/// Claude Code's `terminal_reason` for a result.
pub fn terminal_reason(result: &TerminalResult) -> &'static str {
    if result.interrupted {
        return "aborted_tools";
    }
    match result.subtype {
        ResultSubtype::Success => "completed",
        ResultSubtype::ErrorMaxTurns => "max_turns",
        ResultSubtype::ErrorMaxBudgetUsd => "budget_exhausted",
        ResultSubtype::ErrorMaxStructuredOutputRetries => "structured_output_retry_exhausted",
        _ => "model_error",
    }
}

/// One of orbit's stream events as the API's raw event (None: retries,
/// which are orbit's own and have their `system/api_retry` line).
pub fn raw_stream_event(event: &StreamEvent) -> Option<Value> {
    let value = match event {
        StreamEvent::MessageStart { id, model, usage } => json!({
            "type": "message_start",
            "message": {
                "id": id, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage,
            }
        }),
        StreamEvent::ContentBlockStart { index, block } => {
            json!({"type": "content_block_start", "index": index, "content_block": block})
        }
        StreamEvent::TextDelta { index, text } => delta(*index, "text_delta", "text", text),
        StreamEvent::ThinkingDelta { index, thinking } => {
            delta(*index, "thinking_delta", "thinking", thinking)
        }
        StreamEvent::InputJsonDelta {
            index,
            partial_json,
        } => delta(*index, "input_json_delta", "partial_json", partial_json),
        StreamEvent::ContentBlockComplete { index, .. } => {
            json!({"type": "content_block_stop", "index": index})
        }
        StreamEvent::MessageDelta { stop_reason, usage } => json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": usage,
        }),
        StreamEvent::MessageStop => json!({"type": "message_stop"}),
        StreamEvent::Retry { .. } => return None,
    };
    Some(value)
}

fn delta(index: usize, kind: &str, key: &str, text: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": kind, key: text}})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each built-in's structured result, from its input and result text.
    #[test]
    fn structured_results_per_tool() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one\ntwo\nTHREE\nfour\n").unwrap_or_else(|e| panic!("{e}"));
        let path = file.display().to_string();
        let cases: [(&str, Value, &str, bool, Value); 4] = [
            (
                "Bash",
                json!({"command": "echo hi"}),
                "hi",
                false,
                json!({"stdout": "hi", "stderr": "", "interrupted": false, "isImage": false}),
            ),
            (
                "Read",
                json!({"file_path": path}),
                "1\tone\n2\ttwo",
                false,
                json!({"type": "text", "file": {"filePath": path, "content": "one\ntwo",
                    "numLines": 2, "startLine": 1, "totalLines": 5}}),
            ),
            (
                "Edit",
                json!({"file_path": path, "old_string": "three", "new_string": "THREE"}),
                "ok",
                false,
                json!({"filePath": path, "oldString": "three", "newString": "THREE",
                    "originalFile": null, "userModified": false, "replaceAll": false,
                    "structuredPatch": [{"oldStart": 1, "oldLines": 4, "newStart": 1,
                        "newLines": 4, "lines": [" one", " two", "-three", "+THREE", " four"]}]}),
            ),
            (
                "Glob",
                json!({"pattern": "*"}),
                "boom",
                true,
                json!("Error: boom"),
            ),
        ];
        for (name, input, text, is_error, want) in cases {
            let call = Call {
                name: name.to_string(),
                input,
                started: None,
            };
            assert_eq!(
                structured(&call, None, text, is_error),
                Some(want),
                "{name}"
            );
        }
    }
}
