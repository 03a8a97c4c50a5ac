//! Issue 2 acceptance: a 3-turn scripted session (Read → Bash → text)
//! through the built binary yields the exact stream-json sequence, exact
//! tool_result texts, a success result with the right turn count, usage and
//! cost, and the request the model sees on turn 2 is snapshotted.

use std::collections::HashSet;

use orbit_protocol::Usage;
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, TEST_SYSTEM_PROMPT, run_stream_json, s};
use super::harness::strs;

const MODEL: &str = "claude-sonnet-4-5";

fn three_turn_script(scratch: &Scratch) -> Vec<Reply> {
    let notes = scratch.write("notes.txt", "alpha\nbeta\n");
    vec![
        Reply::turn(
            Turn::new()
                .text("Reading the notes.")
                .tool_use("toolu_01", "Read", json!({"file_path": s(&notes)}))
                .usage(100, 20)
                .cache_usage(1000, 0),
        ),
        Reply::turn(
            Turn::new()
                .tool_use(
                    "toolu_02",
                    "Bash",
                    json!({"command": "echo out; echo err >&2"}),
                )
                .usage(200, 30)
                .cache_usage(0, 1000),
        ),
        Reply::turn(Turn::new().text("All done.").usage(300, 40)),
    ]
}

/// The only block of a `user` line, a tool_result: (id, text, is_error).
fn user_tool_result(line: &Value) -> (String, String, bool) {
    let message = &line["message"];
    assert_eq!(body::blocks(message).len(), 1, "one block expected: {line}");
    let results = body::message_tool_results(message);
    let [result] = results.as_slice() else {
        panic!("a tool_result expected: {line}")
    };
    (
        result.tool_use_id.clone(),
        result.text.clone(),
        result.is_error,
    )
}

/// Runs "Summarize notes.txt" over `three_turn_script` with `--model MODEL
/// --allowedTools Bash` and `extra`.
fn run_three_turns(extra: &[&str]) -> (Scratch, FakeAnthropic, Outcome) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(three_turn_script(&scratch));
    let mut args = vec!["--model", MODEL, "--allowedTools", "Bash"];
    args.extend_from_slice(extra);
    let out = run_stream_json(&scratch, &server, "Summarize notes.txt", &args);
    (scratch, server, out)
}

#[test]
fn three_turn_session_streams_exact_sequence_and_success_result() {
    let (scratch, server, out) = run_three_turns(&[]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.kinds(),
        // One `assistant` line per content block, as Claude Code 2.1.332
        // writes them: the first reply's text, then its tool_use.
        vec![
            "system/init",
            "assistant",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "result"
        ]
    );
    let lines = out.lines();

    // Every line: same session id, a unique uuid; messages at top level.
    let session_id = lines[0]["session_id"]
        .as_str()
        .expect("session_id")
        .to_string();
    assert_eq!(session_id.len(), 36, "a UUID: {session_id}");
    let mut uuids = HashSet::new();
    for line in &lines {
        assert_eq!(line["session_id"], session_id.as_str(), "{line}");
        assert!(
            uuids.insert(line["uuid"].as_str().expect("uuid").to_string()),
            "{line}"
        );
        if line["type"] == "assistant" || line["type"] == "user" {
            assert_eq!(line["parent_tool_use_id"], Value::Null);
        }
    }

    let init = &lines[0];
    assert_eq!(init["cwd"], s(&scratch.path()));
    assert_eq!(init["model"], MODEL);
    assert_eq!(init["permissionMode"], "default");
    assert_eq!(init["apiKeySource"], "ANTHROPIC_API_KEY");
    assert_eq!(init["mcp_servers"], json!([]));
    assert_eq!(init["output_style"], "default");
    let tools = strs(&init["tools"]);
    assert!(
        tools.contains(&"Read") && tools.contains(&"Bash"),
        "{tools:?}"
    );

    let first = &lines[1]["message"];
    let first_call = &lines[2]["message"];
    for message in [first, first_call] {
        assert_eq!(message["id"], "msg_fake_1");
        assert_eq!(message["type"], "message");
        assert_eq!(message["role"], "assistant");
        assert_eq!(message["model"], orbit_test_support::DEFAULT_MODEL);
        // Claude Code's per-block lines carry no stop reason (the
        // result line does).
        assert_eq!(message["stop_reason"], Value::Null);
        assert_eq!(message["usage"]["input_tokens"], 100);
        assert_eq!(message["usage"]["output_tokens"], 20);
    }
    assert_eq!(
        first["content"],
        json!([{"type": "text", "text": "Reading the notes."}])
    );
    assert_eq!(first_call["content"].as_array().unwrap().len(), 1);
    assert_eq!(first_call["content"][0]["type"], "tool_use");
    assert_eq!(first_call["content"][0]["id"], "toolu_01");
    assert_eq!(first_call["content"][0]["name"], "Read");

    assert_eq!(
        user_tool_result(&lines[3]),
        (
            "toolu_01".to_string(),
            "1\talpha\n2\tbeta\n3\t".to_string(),
            false
        )
    );
    assert_eq!(lines[4]["message"]["content"][0]["name"], "Bash");
    assert_eq!(
        user_tool_result(&lines[5]),
        ("toolu_02".to_string(), "out\nerr".to_string(), false)
    );
    assert_eq!(
        lines[6]["message"]["content"],
        json!([{"type": "text", "text": "All done."}])
    );

    let result = out.result();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["num_turns"], 3);
    assert_eq!(result["result"], "All done.");
    assert_eq!(result["stop_reason"], "end_turn");
    assert_eq!(result["permission_denials"], json!([]));
    assert_eq!(result["errors"], json!([]));
    let usage = Usage {
        input_tokens: 600,
        output_tokens: 90,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 1000,
    };
    assert_eq!(result["usage"], serde_json::to_value(usage).unwrap());
    let expected_cost = orbit_model::pricing::cost_usd(MODEL, &usage);
    assert!(expected_cost > 0.0);
    let cost = result["total_cost_usd"].as_f64().expect("total_cost_usd");
    assert!(
        (cost - expected_cost).abs() < 1e-9,
        "cost {cost} != {expected_cost}"
    );
    assert!(result["duration_ms"].as_u64().is_some());
    assert!(result["duration_api_ms"].as_u64().is_some());

    assert_eq!(server.request_count(), 3);
}

#[test]
fn second_request_shows_the_model_its_tool_use_and_result() {
    let (scratch, server, out) = run_three_turns(&["--system-prompt", TEST_SYSTEM_PROMPT]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let second = &requests[1];
    assert_eq!(second.path, "/v1/messages");
    assert_eq!(second.header("x-api-key"), Some("test-key"));
    assert_eq!(second.header("anthropic-version"), Some("2023-06-01"));

    // Tool schemas belong to the tools' own tests; the snapshot keeps their
    // names and everything else byte for byte.
    let mut body: Value = serde_json::from_str(&scratch.redact(&second.raw_body)).unwrap();
    let names: Vec<Value> = body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    body["tools"] = Value::Array(names);
    insta::assert_json_snapshot!("second_request_body", body);
}
