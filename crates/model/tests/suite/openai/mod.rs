//! The OpenAI chat-completions client against `FakeOpenAi`: shared helpers.

mod faults;
mod history;
mod recovery;
mod request;
mod stream;

use orbit_model::{ModelRequest, ToolSpec};
use orbit_protocol::{ContentBlock, Message, StreamEvent};
use serde_json::json;

use super::completed_blocks as completed;
use super::run;
pub use super::tool;
pub use super::wire::{client, client_with};

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
        messages: vec![Message::user_text(prompt).into()],
        tools: vec![tool_spec("Read"), tool_spec("Bash")],
        max_tokens: 1024,
        ..Default::default()
    }
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

/// The `stop_reason` of the final `MessageDelta`.
fn stop_reason(events: &[StreamEvent]) -> Option<String> {
    events.iter().rev().find_map(|e| match e {
        StreamEvent::MessageDelta { stop_reason, .. } => stop_reason.clone(),
        _ => None,
    })
}
