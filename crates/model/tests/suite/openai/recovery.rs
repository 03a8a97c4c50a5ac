//! Fenced-JSON tool-call recovery through the real client: on, a text that
//! ends with a fenced call of an offered tool becomes a tool_use block; a
//! JSON example naming no tool stays text; off (the default), nothing changes.

use orbit_protocol::{ContentBlock, StreamEvent};
use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::{client, client_with, completed, request, run, stop_reason};
use crate::suite::run_ok;

const FENCED_READ: &str = "I will read it.\n```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"config.txt\"}}\n```";

fn recovering(server: &FakeOpenAi) -> orbit_model::openai::OpenAiClient {
    client_with(server, |c| c.fenced_tool_recovery = true)
}

/// The text of every `TextDelta`, concatenated.
fn streamed_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_fenced_call_of_a_known_tool_becomes_a_tool_use_block() {
    let chunks = [
        "I will read it.\n`",
        "``json\n{\"name\": \"Read\", ",
        "\"arguments\": {\"file_path\": \"config.txt\"}}\n```",
    ];
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text_chunks(&chunks),
    )]);
    let events = run_ok(&recovering(&server), &request("what is MAGIC?")).await;
    let blocks = completed(&events);
    assert_eq!(blocks.len(), 2, "{events:#?}");
    assert_eq!(blocks[0], ContentBlock::text("I will read it."));
    match &blocks[1] {
        ContentBlock::ToolUse(t) => {
            assert_eq!(t.name, "Read");
            assert_eq!(t.input, json!({"file_path": "config.txt"}));
            assert!(t.id.starts_with("call_"), "{}", t.id);
        }
        other => panic!("expected a tool_use, got {other:?}"),
    }
    // The fence itself was never streamed as text.
    let streamed = streamed_text(&events);
    assert_eq!(streamed, "I will read it.\n");
    assert_eq!(stop_reason(&events).as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn a_json_example_naming_no_tool_stays_text() {
    let answer = "A package.json looks like:\n```json\n{\"name\": \"my-app\", \"arguments\": {\"x\": 1}}\n```";
    let server = FakeOpenAi::start(vec![OpenAiReply::text(answer)]);
    let events = run_ok(&recovering(&server), &request("example?")).await;
    assert_eq!(completed(&events), vec![ContentBlock::text(answer)]);
    let streamed = streamed_text(&events);
    assert_eq!(streamed, answer, "held-back text is flushed at the end");
    assert_eq!(stop_reason(&events).as_deref(), Some("end_turn"));
}

#[tokio::test]
async fn recovery_is_off_by_default() {
    let server = FakeOpenAi::start(vec![OpenAiReply::text(FENCED_READ)]);
    let (events, _) = run(&client(&server), &request("what is MAGIC?")).await;
    assert_eq!(completed(&events), vec![ContentBlock::text(FENCED_READ)]);
}

#[tokio::test]
async fn real_tool_calls_win_over_recovery() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text(FENCED_READ).tool_call(
            "call_real",
            "Bash",
            json!({"command": "ls"}),
        ),
    )]);
    let (events, _) = run(&recovering(&server), &request("x")).await;
    let blocks = completed(&events);
    assert_eq!(blocks[0], ContentBlock::text(FENCED_READ));
    assert_eq!(blocks.len(), 2);
}

#[tokio::test]
async fn a_bare_fence_yields_only_a_tool_block() {
    let fence = "```json\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"cargo test\"}}\n```";
    let server = FakeOpenAi::start(vec![OpenAiReply::text(fence)]);
    let (events, _) = run(&recovering(&server), &request("run tests")).await;
    let blocks = completed(&events);
    assert_eq!(blocks.len(), 1, "{events:#?}");
    assert!(matches!(&blocks[0], ContentBlock::ToolUse(t) if t.name == "Bash"));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { .. }))
    );
}

/// With one tool call per reply, a text of several fenced calls (a small
/// model writing a whole chain, each call guessing the result of the one
/// before) becomes its first call only.
#[tokio::test]
async fn one_tool_call_per_reply_keeps_the_first_fenced_call() {
    let read = "```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a.py\"}}\n```";
    let bash = "```json\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"python3 a.py\"}}\n```";
    let chain = format!("{read}\n{bash}");
    for (one_tool_call, calls) in [(true, 1), (false, 2)] {
        let server = FakeOpenAi::start(vec![OpenAiReply::text(&chain)]);
        let mut req = request("fix a.py");
        req.one_tool_call = one_tool_call;
        let events = run_ok(&recovering(&server), &req).await;
        let blocks = completed(&events);
        assert_eq!(blocks.len(), calls, "{blocks:#?}");
        assert!(matches!(&blocks[0], ContentBlock::ToolUse(t) if t.name == "Read"));
    }
}
