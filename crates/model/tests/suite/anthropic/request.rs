//! What goes on the wire: headers, the JSON body (cache_control placement),
//! connection reuse.

use orbit_model::{ModelRequest, ToolSpec};
use orbit_protocol::{
    ContentBlock, Message, ToolResultBlock, ToolResultContent, ToolResultContentBlock,
};
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::json;

use super::{client, client_with, request, run};
use crate::suite::{run_ok, tool};

#[tokio::test]
async fn api_key_headers_and_endpoint() {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let client = client_with(&server, |c| {
        c.extra_headers = vec![(
            "anthropic-beta".into(),
            "fine-grained-tool-streaming-2025-05-14".into(),
        )];
    });
    run_ok(&client, &request("hi")).await;
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(req.header("x-api-key"), Some("test-key"));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    // Claude Code's beta first, then the custom header's.
    let betas = req.header("anthropic-beta").unwrap_or_default();
    assert!(
        betas.starts_with("claude-code-20250219,")
            && betas.ends_with(",fine-grained-tool-streaming-2025-05-14"),
        "{betas}"
    );
    assert!(
        req.header("user-agent")
            .is_some_and(|u| u.starts_with("orbit/"))
    );
    assert_eq!(req.body["stream"], true);
}

#[tokio::test]
async fn auth_token_is_sent_as_bearer() {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let client = client_with(&server, |c| {
        c.api_key = None;
        c.auth_token = Some("tok-123".into());
        c.base_url = format!("{}/", server.base_url());
    });
    run_ok(&client, &request("hi")).await;
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(req.header("x-api-key"), None);
}

/// A turn with text, two tool calls and their results (one an error with
/// a block list), with one tool offered.
fn history_request() -> ModelRequest {
    let messages = vec![
        Message::user_text("Read a.txt and list the dir"),
        Message::assistant(vec![
            ContentBlock::text("Reading."),
            tool("toolu_01", "Read", json!({"file_path": "/tmp/a.txt"})),
            tool("toolu_02", "Bash", json!({"command": "ls"})),
        ]),
        Message::user(vec![
            ContentBlock::ToolResult(ToolResultBlock::text("toolu_01", "1\thello", false)),
            ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id: "toolu_02".into(),
                content: ToolResultContent::Blocks(vec![ToolResultContentBlock::Text {
                    text: "Exit code 2\nls: cannot access".into(),
                }]),
                is_error: Some(true),
            }),
        ]),
    ];
    let read = ToolSpec {
        name: "Read".into(),
        description: "Reads a file.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"],
            "additionalProperties": false
        }),
    };
    ModelRequest {
        model: "claude-sonnet-4-5-20250929".into(),
        system: "You are orbit.".into(),
        messages: messages.into_iter().map(Into::into).collect(),
        tools: vec![read],
        max_tokens: 32000,
        temperature: Some(0.5),
        ..Default::default()
    }
}

#[tokio::test]
async fn request_body_with_history_and_cache_control() {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let req = history_request();
    let before =
        serde_json::to_value(req.messages.iter().map(|m| m.as_ref()).collect::<Vec<_>>()).unwrap();
    run_ok(&client(&server), &req).await;
    let sent = &server.requests()[0].body;
    insta::assert_json_snapshot!("anthropic_request_body", sent);
    // cache_control lives in the body only; the history is unchanged.
    assert_eq!(
        serde_json::to_value(req.messages.iter().map(|m| m.as_ref()).collect::<Vec<_>>()).unwrap(),
        before
    );
    assert_eq!(body::without_cache_control(&sent["messages"]), before);
}

#[tokio::test]
async fn connection_is_reused_between_calls() {
    let server = FakeAnthropic::start(vec![Reply::text("one"), Reply::text("two")]);
    let client = client(&server);
    for _ in 0..2 {
        let (events, err) = run(&client, &request("hi")).await;
        assert!(err.is_none() && !events.is_empty(), "{err:?}");
    }
    let reqs = server.requests();
    assert_eq!(
        reqs[0].connection_id, reqs[1].connection_id,
        "a new connection per turn"
    );
}

/// Item 14: a tool_use whose input did not parse goes back to the API with
/// the `__unparsedToolInput` object as its input.
#[tokio::test]
async fn unparsed_tool_input_goes_back_as_the_unparsed_input_object() {
    let raw = "{\"command\": \"ls";
    let server = FakeAnthropic::start(vec![
        Reply::turn(Turn::new().tool_use_raw("toolu_1", "Bash", &["", raw])),
        Reply::text("sorry"),
    ]);
    let client = client(&server);
    let mut req = request("list");
    let (events, _) = run(&client, &req).await;
    let blocks: Vec<ContentBlock> = super::completed(&events)
        .into_iter()
        .map(|(b, _)| b)
        .collect();
    req.messages.push(Message::assistant(blocks).into());
    req.messages.push(
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::text(
            "toolu_1",
            "<tool_use_error>bad input</tool_use_error>",
            true,
        ))])
        .into(),
    );
    run_ok(&client, &req).await;
    assert_eq!(
        body::tool_uses(&server.bodies()[1]),
        vec![(
            "toolu_1".to_string(),
            "Bash".to_string(),
            json!({"__unparsedToolInput": {"raw": raw, "len": raw.len()}})
        )]
    );
}
