//! The fake Anthropic server's answers to a tool's side requests
//! (`orbit_tool::side_query`): WebFetch's prompt over a page and
//! WebSearch's request with the server-side `web_search` tool.
//!
//! Data flow: [`FakeAnthropic::serve_side_requests`] installs a side
//! responder on the script server ([`crate::ScriptServer::answer_side_requests`]):
//! a Messages request without tools is answered with a streamed text that
//! quotes its user message ([`SIDE_ANSWER_PREFIX`] + the text, so a test
//! sees what the side model was given); a request offering a
//! `web_search_*` tool gets a non-streamed message as the API sends it:
//! `server_tool_use` + `web_search_tool_result` (the [`SearchHit`]s the
//! request's `allowed_domains`/`blocked_domains` leave) and
//! `stop_reason: pause_turn`, then — when the client sends that content
//! back as the assistant's turn, as the API requires — a final text
//! ([`SEARCH_SUMMARY`]) with `end_turn`. Side requests are captured apart
//! from the script's ([`crate::ScriptServer::side_requests`]).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::anthropic::{FakeAnthropic, Turn};
use crate::fake::Dialect;
use crate::http::WireReply;

/// How the fake's answer to a side request without tools begins.
pub const SIDE_ANSWER_PREFIX: &str = "Side answer to: ";
/// The text the fake's web search ends with.
pub const SEARCH_SUMMARY: &str = "The fake search found these pages.";
/// The id of the fake's `server_tool_use` block.
pub const SEARCH_TOOL_USE_ID: &str = "srvtoolu_fake_1";

/// One page a fake search finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// A snippet (SearXNG's `content`).
    pub snippet: String,
}

impl SearchHit {
    /// A hit with a snippet naming its title.
    pub fn new(title: impl Into<String>, url: impl Into<String>) -> Self {
        let title = title.into();
        Self {
            snippet: format!("About {title}."),
            title,
            url: url.into(),
        }
    }

    /// Whether `domains` (lower-case names) hold this hit's host or a
    /// parent of it.
    pub fn host_in(&self, domains: &[String]) -> bool {
        let host = self
            .url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split(['/', ':', '?']).next())
            .unwrap_or_default()
            .to_ascii_lowercase();
        domains
            .iter()
            .any(|d| host == *d || host.ends_with(&format!(".{d}")))
    }
}

impl FakeAnthropic {
    /// Answers WebFetch's and WebSearch's side requests (see the module
    /// docs) outside the script; `hits` are what a web search finds.
    pub fn serve_side_requests(&self, hits: Vec<SearchHit>) {
        self.answer_side_requests(
            Arc::new(is_side_request),
            Arc::new(move |_, body| Some(side_reply(body, &hits))),
        );
    }
}

/// The request's `web_search_*` server tool, if it offers one.
fn web_search_tool(body: &Value) -> Option<&Value> {
    body["tools"].as_array()?.iter().find(|t| {
        t["type"]
            .as_str()
            .is_some_and(|k| k.starts_with("web_search"))
    })
}

fn is_side_request(body: &Value) -> bool {
    let no_tools = body["tools"].as_array().is_none_or(Vec::is_empty);
    no_tools || web_search_tool(body).is_some()
}

/// The text of the first user message.
fn first_user_text(body: &Value) -> String {
    crate::body::content_text(&body["messages"][0]["content"])
}

fn side_reply(body: &Value, hits: &[SearchHit]) -> WireReply {
    match web_search_tool(body) {
        None => Turn::new()
            .text(format!("{SIDE_ANSWER_PREFIX}{}", first_user_text(body)))
            .render(1),
        Some(tool) => search_reply(body, tool, hits),
    }
}

fn domains(tool: &Value, key: &str) -> Vec<String> {
    tool[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default()
}

fn search_reply(body: &Value, tool: &Value, hits: &[SearchHit]) -> WireReply {
    let continued = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .is_some_and(|m| m["role"] == "assistant");
    let (content, stop) = if continued {
        (
            json!([{"type": "text", "text": SEARCH_SUMMARY}]),
            "end_turn",
        )
    } else {
        let (allowed, blocked) = (
            domains(tool, "allowed_domains"),
            domains(tool, "blocked_domains"),
        );
        let results: Vec<Value> = hits
            .iter()
            .filter(|h| allowed.is_empty() || h.host_in(&allowed))
            .filter(|h| !h.host_in(&blocked))
            .map(|h| {
                json!({"type": "web_search_result", "url": h.url, "title": h.title,
                       "encrypted_content": "ZmFrZQ==", "page_age": null})
            })
            .collect();
        let query = first_user_text(body);
        let query = query.rsplit(": ").next().unwrap_or_default();
        let content = json!([
            {"type": "text", "text": "I'll search the web."},
            {"type": "server_tool_use", "id": SEARCH_TOOL_USE_ID, "name": "web_search",
             "input": {"query": query}},
            {"type": "web_search_tool_result", "tool_use_id": SEARCH_TOOL_USE_ID,
             "content": results},
        ]);
        (content, "pause_turn")
    };
    let message = json!({
        "id": "msg_fake_search", "type": "message", "role": "assistant",
        "model": body["model"], "content": content, "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5,
                  "server_tool_use": {"web_search_requests": 1}},
    });
    WireReply::json(200, message.to_string())
}
