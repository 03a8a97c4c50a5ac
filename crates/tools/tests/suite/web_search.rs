//! WebSearch's Brave and Tavily backends against a local server that
//! captures what they send (the SearXNG one runs through the binary in
//! the cli suite): the request each API expects, its results read, the
//! domain filters applied to what comes back, and the one-line refusals of
//! unusable settings.

use std::sync::{Arc, Mutex};

use orbit_tool::typed;
use orbit_tools::builtin::web_search::WebSearchTool;
use orbit_tools::builtin::web_search::backend::SearchBackend;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::glob::Tree;
use super::harness::{output, run, text};

/// Answers every request with `answer` (JSON); returns the base URL and
/// the requests seen (head and body).
async fn capture(answer: Value) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let body = answer.to_string();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // Head, then as many body bytes as content-length says.
            loop {
                let n = sock.read(&mut chunk).await.unwrap_or(0);
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                let Some(end) = text.find("\r\n\r\n") else {
                    if n == 0 {
                        break;
                    }
                    continue;
                };
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length: ")
                            .map(String::from)
                    })
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if n == 0 || buf.len() >= end + 4 + length {
                    break;
                }
            }
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf).to_string());
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(reply.as_bytes()).await;
        }
    });
    (base, seen)
}

async fn search(backend: &str, url: &str, key: Option<&str>, input: Value) -> String {
    let t = Tree::new();
    let ctx = t.ctx("");
    SearchBackend::install(&ctx, Some(backend), Some(url), key);
    let out = output(run(&typed(WebSearchTool::new()), &ctx, input).await);
    text(&out).to_string()
}

#[tokio::test]
async fn brave_gets_its_token_and_its_results_are_read() {
    let answer = json!({"web": {"results": [
        {"title": "Tokio", "url": "https://tokio.rs/", "description": "An async runtime."},
        {"title": "Spam", "url": "https://spam.example/x", "description": "no"},
    ]}});
    let (base, seen) = capture(answer).await;
    let input = json!({"query": "rust async", "blocked_domains": ["spam.example"]});
    let said = search("brave", &base, Some("brave-token"), input).await;
    let request = seen.lock().unwrap()[0].to_ascii_lowercase();
    assert!(
        request.starts_with("get /res/v1/web/search?q=rust+async&count=10 "),
        "{request}"
    );
    assert!(
        request.contains("x-subscription-token: brave-token"),
        "{request}"
    );
    assert!(
        said.contains(r#"Links: [{"title":"Tokio","url":"https://tokio.rs/"}]"#),
        "{said}"
    );
    assert!(said.contains("- Tokio: An async runtime."), "{said}");
    assert!(!said.contains("spam.example"), "{said}");
}

#[tokio::test]
async fn tavily_gets_a_bearer_key_and_the_domain_filter() {
    let answer = json!({"results": [
        {"title": "Docs", "url": "https://docs.rs/tokio", "content": "Tokio's API."},
        {"title": "Other", "url": "https://other.org/", "content": "elsewhere"},
    ]});
    let (base, seen) = capture(answer).await;
    let input = json!({"query": "tokio docs", "allowed_domains": ["docs.rs"]});
    let said = search("tavily", &base, Some("tvly-key"), input).await;
    let request = seen.lock().unwrap()[0].clone();
    assert!(request.starts_with("POST /search "), "{request}");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("authorization: bearer tvly-key"),
        "{request}"
    );
    let body: Value =
        serde_json::from_str(request.split("\r\n\r\n").nth(1).unwrap_or("{}")).unwrap();
    assert_eq!(body["query"], "tokio docs");
    assert_eq!(body["include_domains"], json!(["docs.rs"]));
    assert!(
        said.contains("https://docs.rs/tokio") && !said.contains("other.org"),
        "{said}"
    );
}

#[tokio::test]
async fn unusable_settings_are_one_line() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let tool = typed(WebSearchTool::new());
    for (backend, key, expected) in [
        (
            "brave",
            None,
            "WebSearch is not available: the brave backend needs ORBIT_WEBSEARCH_API_KEY.",
        ),
        (
            "bing",
            Some("k"),
            "WebSearch is not available: ORBIT_WEBSEARCH_BACKEND=bing is not searxng, brave or tavily.",
        ),
    ] {
        SearchBackend::install(&ctx, Some(backend), None, key);
        let out = output(run(&tool, &ctx, json!({"query": "q q"})).await);
        assert!(out.is_error);
        assert_eq!(text(&out), expected);
    }
}
