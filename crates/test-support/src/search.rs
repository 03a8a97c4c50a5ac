//! A fake SearXNG instance: `GET /search?q=…&format=json` answered with
//! its JSON API's shape (`{"query", "results": [{"title", "url",
//! "content", "engine"}]}`), every request captured — the search backend
//! WebSearch uses with OpenAI-compatible and local providers.
//!
//! Data flow: [`FakeSearxng::start`] runs a [`ScriptServer`] whose route is
//! `GET /search` and whose responder answers every request with the same
//! [`SearchHit`]s (domain filters are the client's job, so a test sees
//! them applied); the test reads the query back from [`FakeSearxng::requests`].

use std::sync::Arc;

use serde_json::json;

use crate::anthropic::side::SearchHit;
use crate::http::{CapturedRequest, ScriptServer, WireReply};

/// A fake SearXNG server. Dropping it stops the server.
pub struct FakeSearxng {
    server: ScriptServer,
}

fn is_search(method: &str, path: &str) -> bool {
    method == "GET" && path.starts_with("/search")
}

fn no_answer(_: usize) -> WireReply {
    WireReply::json(500, r#"{"error":"fake searxng: no answer"}"#)
}

impl FakeSearxng {
    /// Serves `hits` for every query on 127.0.0.1 (random port).
    pub fn start(hits: Vec<SearchHit>) -> Self {
        let server = ScriptServer::start(Vec::new(), is_search, no_answer);
        let results: Vec<_> = hits
            .iter()
            .map(
                |h| json!({"title": h.title, "url": h.url, "content": h.snippet, "engine": "fake"}),
            )
            .collect();
        let body = json!({"query": "", "number_of_results": results.len(), "results": results})
            .to_string();
        server.respond_with(Arc::new(move |_, _| {
            Some(WireReply::json(200, body.clone()))
        }));
        Self { server }
    }

    /// `http://127.0.0.1:PORT`: the backend's URL.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Every request so far (the query is in each one's `path`).
    pub fn requests(&self) -> Vec<CapturedRequest> {
        self.server.requests()
    }
}
