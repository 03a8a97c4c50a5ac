//! The fake Anthropic server for `bench/tui_compare.sh` (orbit vs Claude
//! Code in the same tmux setup). Every `POST /v1/messages` gets a streamed
//! reply chosen from the last user text of the request, so side requests
//! (titles, quota checks, haiku calls) never exhaust a script:
//!
//! - the prompt contains `stream please` → `TOKENS` tokens `tokN `, one
//!   every 2 ms (the bytes-per-token measurement);
//! - the prompt contains `turn N` → `answer-N-done` (the 500-turn loop);
//! - anything else → `ok`.
//!
//! Prints `ANTHROPIC_BASE_URL=...` on its first stdout line, then serves
//! until stdin closes. Each request's method/path/model goes to stderr.
//!
//! Run: `cargo run --release -p orbit-tui --example tui_compare_server -- 400`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Write};
use std::time::Duration;

use orbit_test_support::anthropic::Turn;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::Value;

fn main() {
    let tokens: usize = std::env::args()
        .nth(1)
        .and_then(|t| t.parse().ok())
        .unwrap_or(400);
    let server = FakeAnthropic::start(Vec::new());
    server.respond_with(move |_, body| Some(reply_for(&last_user_text(body), tokens)));
    println!("ANTHROPIC_BASE_URL={}", server.base_url());
    std::io::stdout().flush().unwrap();
    // Serve until the script closes our stdin.
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if line.is_err() {
            break;
        }
    }
    for r in server.requests() {
        let model = r
            .body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default();
        eprintln!("{} {} {model}", r.method, r.path);
    }
}

fn reply_for(prompt: &str, tokens: usize) -> Reply {
    if prompt.contains("stream please") {
        let words: Vec<String> = (0..tokens).map(|i| format!("tok{i} ")).collect();
        let chunks: Vec<&str> = words.iter().map(String::as_str).collect();
        return Reply::turn(
            Turn::new()
                .text_chunks(&chunks)
                .event_delay(Duration::from_millis(2)),
        );
    }
    if let Some(n) = prompt
        .rsplit("turn ")
        .next()
        .filter(|_| prompt.contains("turn "))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .filter(|n| !n.is_empty())
    {
        return Reply::text(format!("answer-{n}-done"));
    }
    Reply::text("ok")
}

/// The text of the last user message (string content or text blocks).
fn last_user_text(body: &Value) -> String {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return String::new();
    };
    let Some(last) = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    else {
        return String::new();
    };
    match last.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
