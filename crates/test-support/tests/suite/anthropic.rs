//! The fake Anthropic server's wire output, read with a raw HTTP/1.1 client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

/// POSTs `body` with `connection: close` and returns the raw response text.
fn post(base_url: &str, path: &str, body: &str) -> String {
    let addr = base_url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\nx-api-key: k\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// The `data:` JSON of every SSE event in a chunked response.
fn sse_data(response: &str) -> Vec<Value> {
    response
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[test]
fn turn_renders_anthropic_sse_with_fragmented_tool_input() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new()
            .text("Let me read it.")
            .tool_use("toolu_1", "Read", json!({"file_path": "a.txt"}))
            .usage(100, 20),
    )]);
    let resp = post(
        &server.base_url(),
        "/v1/messages",
        r#"{"model":"m","messages":[]}"#,
    );
    assert!(resp.starts_with("HTTP/1.1 200 OK\r\n"), "{resp}");
    assert!(resp.contains("content-type: text/event-stream\r\n"));
    assert!(resp.contains("event: message_start\ndata: {\"type\":\"message_start\""));
    assert!(resp.contains("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
    let events = sse_data(&resp);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let partial: String = events[7..11]
        .iter()
        .map(|e| e["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(partial, r#"{"file_path":"a.txt"}"#);
    assert_eq!(events[7]["delta"]["partial_json"], "");
    assert_eq!(events[12]["delta"]["stop_reason"], "tool_use");
    assert_eq!(events[12]["usage"]["output_tokens"], 20);
    assert_eq!(events[0]["message"]["usage"]["input_tokens"], 100);
    assert_eq!(events[0]["message"]["id"], "msg_fake_1");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].body["model"], "m");
    assert_eq!(reqs[0].header("X-Api-Key"), Some("k"));
    assert!(reqs[0].responded_at.is_some());
}

#[test]
fn status_reply_exhausted_script_and_unknown_route() {
    let server = FakeAnthropic::start(vec![Reply::overloaded().retry_after_secs(3)]);
    let resp = post(&server.base_url(), "/v1/messages", "{}");
    assert!(resp.starts_with("HTTP/1.1 529 Overloaded\r\n"), "{resp}");
    assert!(resp.contains("retry-after: 3\r\n"));
    assert!(resp.ends_with(orbit_test_support::OVERLOADED_BODY));
    let resp = post(&server.base_url(), "/v1/other", "{}");
    assert!(resp.starts_with("HTTP/1.1 404"), "{resp}");
    let resp = post(&server.base_url(), "/anthropic/v1/messages", "{}");
    assert!(resp.starts_with("HTTP/1.1 500"), "{resp}");
    assert!(resp.contains("script exhausted: request #3 has no scripted reply"));
    assert_eq!(server.wait_for_requests(3, Duration::from_secs(1)).len(), 3);
}

#[test]
fn faults_cut_error_and_malformed() {
    let turn = Turn::new().text("hello");
    assert_eq!(turn.event_count(), 8);
    let server = FakeAnthropic::start(vec![
        Reply::turn(turn.clone().cut_after(3)),
        Reply::turn(
            turn.clone()
                .error_after(2, "overloaded_error", "Overloaded"),
        ),
        Reply::turn(turn.clone().malformed_at(4)),
    ]);
    let cut = post(&server.base_url(), "/v1/messages", "{}");
    assert_eq!(cut.matches("event: ").count(), 3);
    assert!(
        !cut.ends_with("0\r\n\r\n"),
        "a cut stream has no final chunk"
    );
    let err = post(&server.base_url(), "/v1/messages", "{}");
    assert!(err.contains(
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
    ));
    assert!(err.ends_with("0\r\n\r\n"));
    let bad = post(&server.base_url(), "/v1/messages", "{}");
    assert_eq!(bad.matches("event: ").count(), 9);
    assert!(bad.contains("\"text\":\"tru\n\n"));
}

#[test]
fn body_helpers_read_tool_results() {
    let b = json!({"system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
    "tools": [{"name": "Read"}, {"name": "Bash"}],
    "messages": [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"a": 1}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
        {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}], "is_error": true, "cache_control": {"type": "ephemeral"}}
    ]}]});
    assert_eq!(body::tool_result_texts(&b), ["one", "x\ny"]);
    assert!(body::tool_results(&b)[1].is_error);
    assert_eq!(
        body::tool_uses(&b),
        [("t1".into(), "Read".into(), json!({"a": 1}))]
    );
    assert_eq!(body::system_text(&b), "sys");
    assert_eq!(body::tool_names(&b), ["Read", "Bash"]);
    assert!(
        !body::without_cache_control(&b)
            .to_string()
            .contains("cache_control")
    );
}
