//! Assertion helpers over a captured Messages API request body (a
//! `serde_json::Value`), so tests read what the model would see in one line.
//!
//! All helpers are lenient: a missing field yields an empty result rather
//! than a panic, so the assertion that follows reports the real difference.

use serde_json::Value;

/// One tool_result block as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResultView {
    pub tool_use_id: String,
    /// String content, or the text blocks joined with `\n`.
    pub text: String,
    pub is_error: bool,
}

/// The `messages` array (empty when absent).
pub fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// The newest message (`Value::Null` when none).
pub fn last_message(body: &Value) -> Value {
    messages(body).last().cloned().unwrap_or(Value::Null)
}

/// The content blocks of a message (a string content becomes one text block).
pub fn blocks(message: &Value) -> Vec<Value> {
    match &message["content"] {
        Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

/// A content value's text: the string, or the blocks' texts joined with
/// `\n` (a tool result's content, a message's).
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The tool_result blocks of the newest message, in order.
pub fn tool_results(body: &Value) -> Vec<ToolResultView> {
    message_tool_results(&last_message(body))
}

/// The tool_result blocks of `message` (a Messages API message, as in a
/// request body or an SDK `user` line), in order.
pub fn message_tool_results(message: &Value) -> Vec<ToolResultView> {
    blocks(message)
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| ToolResultView {
            tool_use_id: b["tool_use_id"].as_str().unwrap_or_default().to_string(),
            text: content_text(&b["content"]),
            is_error: b["is_error"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// Every text of the newest message, in order: text blocks and the text of
/// tool_result blocks.
pub fn last_message_texts(body: &Value) -> Vec<String> {
    blocks(&last_message(body))
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("tool_result") => content_text(&b["content"]),
            _ => b["text"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

/// The texts of the tool_result blocks of the newest message, in order.
pub fn tool_result_texts(body: &Value) -> Vec<String> {
    tool_results(body).into_iter().map(|r| r.text).collect()
}

/// `(id, name, input)` of every tool_use block in the history, in order.
pub fn tool_uses(body: &Value) -> Vec<(String, String, Value)> {
    messages(body)
        .iter()
        .flat_map(blocks)
        .filter(|b| b["type"] == "tool_use")
        .map(|b| {
            (
                b["id"].as_str().unwrap_or_default().to_string(),
                b["name"].as_str().unwrap_or_default().to_string(),
                b["input"].clone(),
            )
        })
        .collect()
}

/// The system prompt text (string or text blocks joined).
pub fn system_text(body: &Value) -> String {
    content_text(&body["system"])
}

/// Names of the tools offered, in order.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The definition of the offered tool `name` (its description, input
/// schema), if offered.
pub fn tool(body: &Value, name: &str) -> Option<Value> {
    body["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
}

/// A copy with every `cache_control` key removed: compare the history of
/// consecutive requests byte for byte while the cache breakpoint moves.
pub fn without_cache_control(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "cache_control")
                .map(|(k, v)| (k.clone(), without_cache_control(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_cache_control).collect()),
        other => other.clone(),
    }
}
