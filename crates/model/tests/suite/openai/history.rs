//! The history sent back after tool turns: tool_use ids are the client's
//! own, unique even when the server repeats its ids, and paired in the next
//! request (item 8); input that did not parse goes back as the
//! `__unparsedToolInput` object (item 14).

use orbit_model::ModelRequest;
use orbit_protocol::{ContentBlock, Message, ToolResultBlock};
use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::{Value, json};

use super::{client, completed, is_fresh_id, request, run};
use crate::suite::run_ok;

/// Appends the assistant turn and one tool_result per tool_use (as the
/// engine does), returning the tool_use ids.
fn answer_tools(req: &mut ModelRequest, blocks: Vec<ContentBlock>) -> Vec<String> {
    let ids: Vec<String> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t.id.clone()),
            _ => None,
        })
        .collect();
    req.messages.push(Message::assistant(blocks).into());
    req.messages.push(
        Message::user(
            ids.iter()
                .map(|id| {
                    ContentBlock::ToolResult(ToolResultBlock::text(
                        id,
                        format!("result of {id}"),
                        false,
                    ))
                })
                .collect(),
        )
        .into(),
    );
    ids
}

/// (assistant tool_calls ids, tool messages' tool_call_ids), in order.
fn wire_pairs(body: &Value) -> (Vec<String>, Vec<String>) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let calls = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap_or_default().to_string())
        .collect();
    let results = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap_or_default().to_string())
        .collect();
    (calls, results)
}

#[tokio::test]
async fn repeated_server_ids_become_unique_ids_paired_in_the_next_request() {
    // Every call the server sends is `call_0`, as some compatible servers do.
    let call = |c: Completion, name: &str, input| c.tool_call("call_0", name, input);
    let read_both = call(Completion::new(), "Read", json!({"file_path": "a.txt"}));
    let read_both = call(read_both, "Read", json!({"file_path": "b.txt"}));
    let list = call(Completion::new(), "Bash", json!({"command": "ls"}));
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(read_both),
        OpenAiReply::completion(list),
        OpenAiReply::text("done"),
    ]);
    let client = client(&server);
    let mut req = request("read both, then list");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let events = run_ok(&client, &req).await;
        ids.extend(answer_tools(&mut req, completed(&events)));
    }
    run_ok(&client, &req).await;

    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| is_fresh_id(id)), "{ids:?}");
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), 3, "{ids:?}");
    let bodies = server.bodies();
    assert_eq!(
        wire_pairs(&bodies[1]),
        (ids[..2].to_vec(), ids[..2].to_vec())
    );
    assert_eq!(wire_pairs(&bodies[2]), (ids.clone(), ids.clone()));
}

#[tokio::test]
async fn unparsed_arguments_go_back_as_the_unparsed_input_object() {
    let raw = "{\"command\": \"ls";
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().tool_call_raw("call_0", "Bash", &[raw])),
        OpenAiReply::text("sorry"),
    ]);
    let client = client(&server);
    let mut req = request("list");
    let (events, _) = run(&client, &req).await;
    answer_tools(&mut req, completed(&events));
    run_ok(&client, &req).await;
    let body = &server.bodies()[1];
    let arguments = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "assistant"))
        .map(|m| m["tool_calls"][0]["function"]["arguments"].clone());
    let sent: Option<Value> = arguments
        .as_ref()
        .and_then(Value::as_str)
        .and_then(|a| serde_json::from_str(a).ok());
    assert_eq!(
        sent,
        Some(json!({"__unparsedToolInput": {"raw": raw, "len": raw.len()}})),
        "{arguments:?}"
    );
}
