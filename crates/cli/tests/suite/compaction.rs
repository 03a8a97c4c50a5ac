//! Compaction through the binary: a prompt-too-long refusal (Anthropic's
//! 400 `prompt is too long`, llama.cpp's `exceed_context_size_error`)
//! compacts the history, prints a `system` `compact_boundary` line, and
//! retries the request once.

use orbit_test_support::{Completion, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, body};
use serde_json::Value;

use super::common::{Scratch, orbit_with_env, prompt_too_long, run, run_stream_json};

#[test]
fn prompt_too_long_compacts_prints_a_boundary_and_retries_once() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        prompt_too_long(),
        Reply::text("SUMMARY: the user wants a greeting."),
        Reply::text("hello"),
    ]);
    let out = run_stream_json(&scratch, &server, "say hello", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = out.lines();
    let boundary: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "compact_boundary")
        .collect();
    assert_eq!(boundary.len(), 1, "{}", out.stdout);
    assert_eq!(boundary[0]["compact_metadata"]["trigger"], "auto");
    assert!(boundary[0]["session_id"].is_string());
    let result = out.result();
    assert_eq!(
        (result["result"].as_str(), result["num_turns"].as_u64()),
        (Some("hello"), Some(1))
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    // The retried request starts from the summary and keeps the prompt.
    let retried = body::last_message_texts(&bodies[2]).join("\n");
    assert!(
        retried.contains("<summary>\nSUMMARY: the user wants a greeting.\n</summary>"),
        "{retried}"
    );
    assert!(retried.ends_with("say hello"), "{retried}");
}

/// llama.cpp's own error body for a prompt over its context (`-c 8192`),
/// as `tools/server/server-common.cpp` formats it.
const LLAMA_CPP_CONTEXT_ERROR: &str = r#"{"error":{"code":400,"message":"request (9120 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9120,"n_ctx":8192}}"#;

#[test]
fn llama_cpp_context_size_error_compacts_and_retries_once() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![
        OpenAiReply::status(400, LLAMA_CPP_CONTEXT_ERROR),
        OpenAiReply::completion(Completion::new().text("SUMMARY: greet the user.")),
        OpenAiReply::completion(Completion::new().text("hello")),
    ]);
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "say hello", "--output-format", "stream-json"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.kinds().contains(&"system/compact_boundary".to_string()));
    assert_eq!(out.result()["result"], "hello");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[1]
            .raw_body
            .contains("Your task now is to write a summary")
    );
    assert!(requests[2].raw_body.contains("SUMMARY: greet the user."));
    // A second refusal of the same request is not retried again.
    let server = FakeOpenAi::start(vec![
        OpenAiReply::status(400, LLAMA_CPP_CONTEXT_ERROR),
        OpenAiReply::completion(Completion::new().text("SUMMARY")),
        OpenAiReply::status(400, LLAMA_CPP_CONTEXT_ERROR),
    ]);
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "say hello", "--output-format", "json"]);
    let out = run(cmd);
    assert_eq!(out.code, 1);
    assert_eq!(out.result()["subtype"], "error_during_execution");
    assert!(
        out.stderr.contains("exceeds the available context size"),
        "{}",
        out.stderr
    );
    assert_eq!(server.request_count(), 3);
}
