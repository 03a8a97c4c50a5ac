//! The request body as the server receives it: system message, function
//! tools, assistant `tool_calls`, `role: "tool"` results, sampling options,
//! headers.

use orbit_model::ModelRequest;
use orbit_protocol::{
    ContentBlock, ImageSource, Message, ToolResultBlock, ToolResultContent, ToolResultContentBlock,
};
use orbit_test_support::{FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::{client, request, run, tool, tool_spec};
use crate::suite::run_ok;

/// Thinking (dropped), parallel calls, a text and an image result, a user
/// text after results, an error result.
fn history_request() -> ModelRequest {
    let result = |id: &str, text: &str, is_error| {
        ContentBlock::ToolResult(ToolResultBlock::text(id, text, is_error))
    };
    let image = ToolResultBlock {
        tool_use_id: "call_2".into(),
        content: ToolResultContent::Blocks(vec![ToolResultContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            },
        }]),
        is_error: None,
    };
    ModelRequest {
        model: "gpt-4.1-mini".into(),
        system: "You are orbit.".into(),
        messages: vec![
            Message::user_text("What is in a.txt and b.png?"),
            Message::assistant(vec![
                ContentBlock::Thinking {
                    thinking: "dropped for this provider".into(),
                    signature: "sig".into(),
                },
                ContentBlock::text("Reading both."),
                tool("call_1", "Read", json!({"file_path": "a.txt"})),
                tool("call_2", "Read", json!({"file_path": "b.png"})),
            ]),
            Message::user(vec![
                result("call_1", "1\thello", false),
                ContentBlock::ToolResult(image),
                ContentBlock::text("Now summarize."),
            ]),
            Message::assistant(vec![tool("call_3", "Bash", json!({}))]),
            Message::user(vec![result(
                "call_3",
                "<tool_use_error>Error: bad</tool_use_error>",
                true,
            )]),
        ]
        .into_iter()
        .map(Into::into)
        .collect(),
        tools: vec![tool_spec("Read"), tool_spec("Bash")],
        max_tokens: 2048,
        temperature: Some(0.0),
        seed: Some(42),
        thinking_budget: None,
        one_tool_call: false,
    }
}

#[tokio::test]
async fn request_body_snapshot() {
    let server = FakeOpenAi::start(vec![OpenAiReply::text("ok")]);
    run_ok(&client(&server), &history_request()).await;
    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    insta::assert_json_snapshot!("openai_request_body", req.body);
}

#[tokio::test]
async fn no_key_sends_no_authorization_and_no_tools_sends_no_tools_field() {
    let server = FakeOpenAi::start(vec![OpenAiReply::text("ok")]);
    let c = super::client_with(&server, |c| c.api_key = None);
    let mut req = request("hi");
    req.tools.clear();
    req.system.clear();
    let _ = run(&c, &req).await;
    let captured = &server.requests()[0];
    assert_eq!(captured.header("authorization"), None);
    assert!(captured.body.get("tools").is_none());
    assert!(captured.body.get("temperature").is_none());
    assert!(captured.body.get("seed").is_none());
    assert_eq!(
        captured.body["messages"],
        json!([{"role": "user", "content": "hi"}])
    );
}
