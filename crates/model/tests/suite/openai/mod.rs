//! The OpenAI chat-completions client against `FakeOpenAi`: shared helpers.

mod faults;
mod history;
mod recovery;
mod request;
mod stream;

use orbit_model::openai::{OpenAiClient, OpenAiConfig};
use orbit_model::{ModelRequest, ToolSpec};
use orbit_protocol::{ContentBlock, Message, StreamEvent, ToolUseBlock};
use orbit_test_support::FakeOpenAi;
use serde_json::json;

use super::{TEST_IDLE_TIMEOUT_MS, fast_retry, run};

pub fn client(server: &FakeOpenAi) -> OpenAiClient {
    client_with(server, |_| {})
}

fn client_with(server: &FakeOpenAi, edit: impl FnOnce(&mut OpenAiConfig)) -> OpenAiClient {
    let mut config = OpenAiConfig {
        base_url: server.base_url(),
        api_key: Some("test-key".into()),
        retry: fast_retry(),
        idle_timeout_ms: TEST_IDLE_TIMEOUT_MS,
        ..OpenAiConfig::default()
    };
    edit(&mut config);
    OpenAiClient::new(config).unwrap()
}

fn tool_spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("The {name} tool."),
        input_schema: json!({"type": "object", "properties": {"file_path": {"type": "string"}}}),
    }
}

pub fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        model: "gpt-4.1-mini".into(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text(prompt)],
        tools: vec![tool_spec("Read"), tool_spec("Bash")],
        max_tokens: 1024,
        ..Default::default()
    }
}

/// The completed blocks after the last `Retry` (the attempt that counted).
fn completed(events: &[StreamEvent]) -> Vec<ContentBlock> {
    let last_retry = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::Retry { .. }))
        .map_or(0, |i| i + 1);
    events[last_retry..]
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ContentBlockComplete { block, .. } => Some(block.clone()),
            _ => None,
        })
        .collect()
}

/// Whether `id` is one of ours: `call_` + 32 lowercase hex digits.
fn is_fresh_id(id: &str) -> bool {
    id.strip_prefix("call_").is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Tool_use ids are the client's own, never the server's (item 8): asserts
/// each is fresh ([`is_fresh_id`]) and all are distinct, then blanks them
/// so a test compares the rest of the blocks.
fn blank_fresh_ids(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    let mut seen = std::collections::HashSet::new();
    blocks
        .into_iter()
        .map(|b| match b {
            ContentBlock::ToolUse(t) => {
                assert!(is_fresh_id(&t.id), "not a fresh id: {}", t.id);
                assert!(seen.insert(t.id.clone()), "id used twice: {}", t.id);
                tool("", &t.name, t.input)
            }
            other => other,
        })
        .collect()
}

fn tool(id: &str, name: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolUse(ToolUseBlock {
        id: id.into(),
        name: name.into(),
        input,
    })
}

/// The `stop_reason` of the final `MessageDelta`.
fn stop_reason(events: &[StreamEvent]) -> Option<String> {
    events.iter().rev().find_map(|e| match e {
        StreamEvent::MessageDelta { stop_reason, .. } => stop_reason.clone(),
        _ => None,
    })
}
