//! Streamed responses: every block kind assembled from its deltas.

use std::time::{Duration, Instant};

use orbit_protocol::{ContentBlock, StreamEvent, Usage};
use orbit_test_support::{DEFAULT_MODEL, FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::{client, completed, request};
use crate::suite::{hello_world_events, input_fragments, run_ok, tool};

#[tokio::test]
async fn streamed_text_yields_the_exact_event_sequence() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .text("Hello, world!")
            .usage(12, 7)
            .cache_usage(3, 4),
    )]);
    let events = run_ok(&client(&server), &request("hi")).await;
    let start_usage = Usage {
        input_tokens: 12,
        output_tokens: 1,
        cache_creation_input_tokens: 3,
        cache_read_input_tokens: 4,
    };
    let end_usage = Usage {
        output_tokens: 7,
        ..start_usage
    };
    assert_eq!(
        events,
        hello_world_events("msg_fake_1", DEFAULT_MODEL, start_usage, end_usage)
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn tool_use_input_is_assembled_from_json_fragments() {
    let input = json!({"file_path": "src/main.rs", "offset": 10, "limit": 5});
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .text("Let me read it.")
            .tool_use("toolu_01", "Read", input.clone())
            .tool_use("toolu_02", "LS", json!({}))
            .usage(100, 20),
    )]);
    let events = run_ok(&client(&server), &request("read")).await;
    let fragments = input_fragments(&events, 1);
    assert_eq!(
        fragments.len(),
        4,
        "streamed in several fragments: {fragments:?}"
    );
    assert!(events.contains(&StreamEvent::ContentBlockStart {
        index: 1,
        block: tool("toolu_01", "Read", json!({}))
    }));
    assert_eq!(
        completed(&events),
        vec![
            (ContentBlock::text("Let me read it."), None),
            (tool("toolu_01", "Read", input), None),
            (tool("toolu_02", "LS", json!({})), None),
        ]
    );
    assert!(events.contains(&StreamEvent::MessageDelta {
        stop_reason: Some("tool_use".into()),
        usage: Usage {
            input_tokens: 100,
            output_tokens: 20,
            ..Usage::default()
        }
    }));
}

#[tokio::test]
async fn thinking_with_signature_and_redacted_thinking() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .thinking("Consider the file first.", "EqQBCkgIARABGAIiQL")
            .redacted_thinking("EmwKAhgBEgy3va3pzix")
            .text("Done."),
    )]);
    let events = run_ok(&client(&server), &request("think")).await;
    let thinking: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ThinkingDelta { thinking, .. } => Some(thinking.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "Consider the file first.");
    assert_eq!(
        completed(&events),
        vec![
            (
                ContentBlock::Thinking {
                    thinking: "Consider the file first.".into(),
                    signature: "EqQBCkgIARABGAIiQL".into()
                },
                None
            ),
            (
                ContentBlock::RedactedThinking {
                    data: "EmwKAhgBEgy3va3pzix".into()
                },
                None
            ),
            (ContentBlock::text("Done."), None),
        ]
    );
}

#[tokio::test]
async fn llama_cpp_dialect_no_ping_no_input_field_other_ids() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .llama_style()
            .tool_use("call_8f2a", "Bash", json!({"command": "ls"}))
            .tool_use("call_9b3c", "LS", json!({})),
    )]);
    let events = run_ok(&client(&server), &request("ls")).await;
    assert_eq!(
        completed(&events),
        vec![
            (tool("call_8f2a", "Bash", json!({"command": "ls"})), None),
            (tool("call_9b3c", "LS", json!({})), None),
        ]
    );
    assert!(!server.requests()[0].raw_body.is_empty());
}

/// Item 14: input that does not parse stays visible: the block's input is
/// the `__unparsedToolInput` object (raw text and its byte length) and
/// `invalid_input` carries the raw text.
#[tokio::test]
async fn unparsable_tool_input_is_kept_as_an_unparsed_input_object() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .tool_use_raw("toolu_bad", "Bash", &["", "{\"command\": \"ls", " -la"])
            .tool_use_raw("toolu_arr", "Bash", &["[1, 2]"])
            .tool_use("toolu_ok", "Bash", json!({"command": "pwd"})),
    )]);
    let events = run_ok(&client(&server), &request("x")).await;
    let unparsed = |raw: &str| json!({"__unparsedToolInput": {"raw": raw, "len": raw.len()}});
    assert_eq!(
        completed(&events),
        vec![
            (
                tool("toolu_bad", "Bash", unparsed("{\"command\": \"ls -la")),
                Some("{\"command\": \"ls -la".into())
            ),
            (
                tool("toolu_arr", "Bash", unparsed("[1, 2]")),
                Some("[1, 2]".into())
            ),
            (tool("toolu_ok", "Bash", json!({"command": "pwd"})), None),
        ]
    );
    assert_eq!(events.last(), Some(&StreamEvent::MessageStop));
}

/// X3 depends on this: a completed tool_use block reaches the caller while
/// the rest of the message is still streaming.
#[tokio::test]
async fn completed_tool_use_arrives_before_a_slow_message_end() {
    const DRIP_MS: u64 = 600;
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .tool_use("toolu_1", "Read", json!({"file_path": "a"}))
            .text("and more")
            .delay_before_block(1, Duration::from_millis(DRIP_MS)),
    )]);
    let client = client(&server);
    let mut stream = orbit_model::ModelClient::stream(&client, &request("x"));
    let mut tool_done = None;
    let mut stop = None;
    while let Some(ev) = futures::StreamExt::next(&mut stream).await {
        match ev.unwrap() {
            StreamEvent::ContentBlockComplete { index: 0, .. } => tool_done = Some(Instant::now()),
            StreamEvent::MessageStop => stop = Some(Instant::now()),
            _ => {}
        }
    }
    let gap = stop.unwrap() - tool_done.unwrap();
    assert!(
        gap >= Duration::from_millis(DRIP_MS - 100),
        "tool block held back: {gap:?}"
    );
}
