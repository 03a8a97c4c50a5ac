//! WebSearch with the Anthropic provider: the Messages API's server-side
//! web search, as Claude Code does it — the tool makes its own request
//! (the session's side query, small fast model) offering only the
//! `web_search_20250305` server tool with the call's domain filters, and
//! turns the answer's blocks into [`Part`]s.
//!
//! Flow: one request (`side_request(query)` as the user message) → the
//! response's content: `text` → [`Part::Text`], `web_search_tool_result`
//! → [`Part::Links`] (or [`Part::Error`] for a
//! `web_search_tool_result_error`), `server_tool_use` skipped. A response
//! that stops with `pause_turn` (the server paused a long search) is sent
//! back unchanged as the assistant's turn — the API requires the
//! `server_tool_use` and `web_search_tool_result` blocks kept as they came
//! — and the search goes on, at most [`MAX_SEARCH_ROUNDS`] requests.

use orbit_tool::side_query::SharedSideQuery;
use orbit_tool::texts::tools::web_search as texts;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::results::{DomainFilter, Hit, Part};

/// The server tool's type (Claude Code 2.1.332's).
pub(crate) const WEB_SEARCH_TOOL_TYPE: &str = "web_search_20250305";
/// Searches the server may run for one call (Claude Code's `max_uses`).
pub(crate) const MAX_SERVER_SEARCHES: u32 = 8;
/// Requests of one call (the first plus `pause_turn` continuations).
pub(crate) const MAX_SEARCH_ROUNDS: usize = 4;
/// Most tokens of the search model's reply per request.
pub(crate) const SEARCH_MAX_TOKENS: u32 = 4_096;

/// The server tool as the request offers it.
fn server_tool(filter: &DomainFilter) -> Value {
    let mut tool = json!({
        "type": WEB_SEARCH_TOOL_TYPE,
        "name": "web_search",
        "max_uses": MAX_SERVER_SEARCHES,
    });
    if !filter.allowed.is_empty() {
        tool["allowed_domains"] = json!(filter.allowed);
    }
    if !filter.blocked.is_empty() {
        tool["blocked_domains"] = json!(filter.blocked);
    }
    tool
}

/// Runs the server-side search for `query`; `Err` is one line.
pub(crate) async fn search(
    side: &SharedSideQuery,
    query: &str,
    filter: &DomainFilter,
    cancel: &CancellationToken,
) -> Result<Vec<Part>, String> {
    let tool = server_tool(filter);
    let mut messages = vec![json!({
        "role": "user",
        "content": [{"type": "text", "text": texts::side_request(query)}],
    })];
    let mut parts = Vec::new();
    for _ in 0..MAX_SEARCH_ROUNDS {
        let body = json!({
            "max_tokens": SEARCH_MAX_TOKENS,
            "system": texts::SIDE_SYSTEM,
            "messages": messages,
            "tools": [tool],
            "tool_choice": {"type": "auto"},
        });
        let reply = side
            .messages(body, cancel)
            .await
            .map_err(|e| e.to_string())?;
        let content = reply["content"].clone();
        parts.extend(parts_of(&content));
        if reply["stop_reason"] != "pause_turn" {
            break;
        }
        messages.push(json!({"role": "assistant", "content": content}));
    }
    Ok(parts)
}

/// The parts of a response's content blocks, in order.
pub(crate) fn parts_of(content: &Value) -> Vec<Part> {
    let blocks = content.as_array().map(Vec::as_slice).unwrap_or_default();
    blocks
        .iter()
        .filter_map(|block| match block["type"].as_str()? {
            "text" => Some(Part::Text(block["text"].as_str()?.to_string())),
            "web_search_tool_result" => Some(result_part(&block["content"])),
            _ => None,
        })
        .collect()
}

fn result_part(content: &Value) -> Part {
    match content.as_array() {
        Some(results) => Part::Links(
            results
                .iter()
                .filter(|r| r["type"] == "web_search_result")
                .map(|r| Hit {
                    title: r["title"].as_str().unwrap_or_default().to_string(),
                    url: r["url"].as_str().unwrap_or_default().to_string(),
                    snippet: None,
                })
                .collect(),
        ),
        None => Part::Error(
            content["error_code"]
                .as_str()
                .unwrap_or("unknown_error")
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_parts() {
        let content = json!([
            {"type": "text", "text": "I'll search."},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [
                {"type": "web_search_result", "url": "https://a.com/", "title": "A", "encrypted_content": "x"}]},
            {"type": "web_search_tool_result", "tool_use_id": "s2",
             "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
        ]);
        assert_eq!(
            parts_of(&content),
            vec![
                Part::Text("I'll search.".into()),
                Part::Links(vec![Hit {
                    title: "A".into(),
                    url: "https://a.com/".into(),
                    snippet: None
                }]),
                Part::Error("max_uses_exceeded".into()),
            ]
        );
    }

    #[test]
    fn the_tool_carries_the_filters() {
        let filter = DomainFilter::new(&["example.com".into()], &[]);
        let tool = server_tool(&filter);
        assert_eq!(tool["allowed_domains"], json!(["example.com"]));
        assert!(tool.get("blocked_domains").is_none());
        assert_eq!(tool["max_uses"], 8);
    }
}
