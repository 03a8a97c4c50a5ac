//! Round trips against JSON as the Anthropic Messages API documents and
//! sends it: what deserializes must serialize back to the same JSON, so the
//! history orbit sends is byte-for-byte what the API gave it.

use orbit_protocol::sdk::SdkApiMessage;
use orbit_protocol::{
    ContentBlock, ImageSource, Message, Role, StreamEvent, ToolResultContent,
    ToolResultContentBlock, Usage,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Parses `json` as `T` and asserts it serializes back to the same value.
fn round_trip<T: DeserializeOwned + Serialize>(json: &str) -> T {
    let original: Value = serde_json::from_str(json).unwrap();
    let parsed: T = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), original);
    parsed
}

/// A full non-streaming response (tool use), as returned by `POST /v1/messages`.
const RESPONSE: &str = r#"{
  "id": "msg_01Aq9w938a90dw8q",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "text", "text": "I'll check the current weather in San Francisco for you."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
     "input": {"location": "San Francisco, CA", "unit": "celsius"}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 472, "output_tokens": 91, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard"}
}"#;

#[test]
fn full_response_message_parses() {
    let m: SdkApiMessage = serde_json::from_str(RESPONSE).unwrap();
    assert_eq!(m.id.as_deref(), Some("msg_01Aq9w938a90dw8q"));
    assert_eq!(m.kind.as_deref(), Some("message"));
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        m.usage,
        Some(Usage {
            input_tokens: 472,
            output_tokens: 91,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0
        })
    );
    // The same JSON read as a history message keeps role and content only.
    let msg: Message = serde_json::from_str(RESPONSE).unwrap();
    assert_eq!(
        msg.text(),
        "I'll check the current weather in San Francisco for you."
    );
    let uses: Vec<_> = msg.tool_uses().collect();
    assert_eq!(uses.len(), 1);
    assert_eq!(uses[0].id, "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(
        uses[0].input,
        json!({"location": "San Francisco, CA", "unit": "celsius"})
    );
    // Content blocks serialize back exactly.
    let original: Value = serde_json::from_str(RESPONSE).unwrap();
    assert_eq!(
        serde_json::to_value(&msg.content).unwrap(),
        original["content"]
    );
}

#[test]
fn tool_result_string_blocks_and_is_error() {
    let m: Message = round_trip(
        r#"{"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": "15 degrees"},
          {"type": "tool_result", "tool_use_id": "toolu_02", "content": [
             {"type": "text", "text": "Error: file not found"},
             {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
           ], "is_error": true}
        ]}"#,
    );
    let results: Vec<_> = m.tool_results().collect();
    assert_eq!(
        results[0].content,
        ToolResultContent::Text("15 degrees".into())
    );
    assert!(!results[0].is_error());
    assert!(results[1].is_error());
    assert!(results[1].content.has_image());
    assert_eq!(results[1].content.as_text(), "Error: file not found");
    assert_eq!(
        results[1].content,
        ToolResultContent::Blocks(vec![
            ToolResultContentBlock::Text {
                text: "Error: file not found".into()
            },
            ToolResultContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into()
                }
            }
        ])
    );
}

#[test]
fn thinking_with_signature_and_redacted_thinking() {
    let m: Message = round_trip(
        r#"{"role": "assistant", "content": [
          {"type": "thinking", "thinking": "Let me analyze this step by step...",
           "signature": "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL"},
          {"type": "redacted_thinking",
           "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
          {"type": "text", "text": "Based on my analysis..."}
        ]}"#,
    );
    assert!(
        matches!(&m.content[0], ContentBlock::Thinking { signature, .. } if signature.starts_with("WaUj"))
    );
    assert!(
        matches!(&m.content[1], ContentBlock::RedactedThinking { data } if data.starts_with("EmwK"))
    );
}

#[test]
fn images_base64_and_url() {
    let m: Message = round_trip(
        r#"{"role": "user", "content": [
          {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQSkZJRg=="}},
          {"type": "image", "source": {"type": "url", "url": "https://upload.wikimedia.org/a.jpg"}},
          {"type": "text", "text": "Describe these images."}
        ]}"#,
    );
    assert_eq!(
        m.content[1],
        ContentBlock::Image {
            source: ImageSource::Url {
                url: "https://upload.wikimedia.org/a.jpg".into()
            }
        }
    );
}

#[test]
fn text_with_citations_round_trips() {
    round_trip::<Message>(
        r#"{"role": "assistant", "content": [{"type": "text", "text": "the grass is green",
          "citations": [{"type": "char_location", "cited_text": "The grass is green.",
            "document_index": 0, "document_title": "Example", "start_char_index": 0, "end_char_index": 20}]}]}"#,
    );
}

#[test]
fn string_content_shorthand_becomes_one_text_block() {
    let m: Message =
        serde_json::from_str(r#"{"role": "user", "content": "Hello, Claude"}"#).unwrap();
    assert_eq!(m, Message::user_text("Hello, Claude"));
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        json!({"role": "user", "content": [{"type": "text", "text": "Hello, Claude"}]})
    );
}

#[test]
fn tool_use_without_input_defaults_to_empty_object() {
    let b: ContentBlock =
        serde_json::from_str(r#"{"type": "tool_use", "id": "call_1", "name": "LS"}"#).unwrap();
    assert_eq!(
        serde_json::to_value(&b).unwrap(),
        json!({"type": "tool_use", "id": "call_1", "name": "LS", "input": {}})
    );
}

#[test]
fn usage_merges_message_delta_counts() {
    let mut start: Usage = serde_json::from_str(
        r#"{"input_tokens": 25, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 0, "output_tokens": 1}"#,
    )
    .unwrap();
    start.merge_delta(&serde_json::from_str(r#"{"output_tokens": 15}"#).unwrap());
    assert_eq!(
        start,
        Usage {
            input_tokens: 25,
            output_tokens: 15,
            cache_creation_input_tokens: 10,
            cache_read_input_tokens: 0
        }
    );
}

#[test]
fn stream_events_round_trip() {
    round_trip::<StreamEvent>(
        r#"{"type": "content_block_complete", "index": 1,
            "block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}},
            "invalid_input": "{\"command\": \"ls"}"#,
    );
    round_trip::<StreamEvent>(
        r#"{"type": "retry", "attempt": 1, "max_retries": 10, "delay_ms": 500,
            "error_status": 529, "message": "Overloaded"}"#,
    );
}
