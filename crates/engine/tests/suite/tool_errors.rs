//! What the model sees when a call cannot run (T2, T3, P1, panics) and how
//! a model error or a retry mid-stream keeps the history paired (L2).

use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::{EngineEvent, PermissionDenial, ResultSubtype, StreamEvent};
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use orbit_tools::ToolOutput;
use serde_json::{Value, json};

use super::support::*;

/// A tool with Read-like parameters that echoes the input it received.
fn probe() -> TestTool {
    TestTool::new("Probe", |input: Value, _| async move {
        ToolOutput::text(input.to_string())
    })
    .schema(json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "offset": {"type": "number"}
        },
        "required": ["file_path"],
        "additionalProperties": false
    }))
}

/// Runs one turn calling tools as scripted, then returns the tool_results
/// of the second request (what the model sees) as (text, is_error).
async fn second_request_results(
    first: Turn,
    tools: Vec<std::sync::Arc<dyn orbit_tools::Tool>>,
) -> Vec<(String, bool)> {
    let server = FakeAnthropic::start(vec![Reply::turn(first), Reply::text("ok")]);
    let mut engine = temp_engine(&server, tools);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_paired(engine.messages());
    body::tool_results(&server.bodies()[1])
        .into_iter()
        .map(|r| (r.text, r.is_error))
        .collect()
}

#[tokio::test]
async fn unknown_tool_unparsable_json_and_schema_errors_have_exact_texts() {
    let turn = Turn::new()
        .tool_use("toolu_1", "Nope", json!({}))
        .tool_use_raw(
            "toolu_2",
            "Probe",
            &[r#"{"file_path": "a.txt", "#, r#""offset": "#],
        )
        .tool_use("toolu_3", "Probe", json!({"offset": "abc", "bogus": 1}))
        .tool_use(
            "toolu_4",
            "Probe",
            json!({"file_path": "a.txt", "offset": "5"}),
        )
        .tool_use("toolu_5", "Probe", json!({"file_path": 7}));
    let results = second_request_results(turn, vec![probe().arc()]).await;
    assert_eq!(
        results,
        vec![
            ("<tool_use_error>Error: No such tool available: Nope</tool_use_error>".to_string(), true),
            (
                "<tool_use_error>InputValidationError: Probe was called with input that could not be \
                 parsed as JSON.\nYou sent (first 33 of 33 bytes): {\"file_path\": \"a.txt\", \"offset\": \n\
                 Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control \
                 characters, or truncated output. Retry with valid JSON.</tool_use_error>"
                    .to_string(),
                true
            ),
            (
                "<tool_use_error>InputValidationError: Probe failed due to the following issues:\n\
                 The required parameter `file_path` is missing\n\
                 An unexpected parameter `bogus` was provided\n\
                 The parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>"
                    .to_string(),
                true
            ),
            // A numeric string is coerced, the tool gets a number.
            (r#"{"file_path":"a.txt","offset":5}"#.to_string(), false),
            (
                "<tool_use_error>InputValidationError: Probe failed due to the following issue:\n\
                 The parameter `file_path` type is expected as `string` but provided as `number`</tool_use_error>"
                    .to_string(),
                true
            ),
        ]
    );
}

#[tokio::test]
async fn business_validation_errors_are_wrapped() {
    let turn = Turn::new().tool_use("toolu_1", "Picky", json!({}));
    let picky = TestTool::new("Picky", |_, _| async { ToolOutput::text("ran") })
        .rejecting("File has not been read yet. Read it first before writing to it.");
    let results = second_request_results(turn, vec![picky.arc()]).await;
    assert_eq!(
        results,
        vec![(
            "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
                .to_string(),
            true
        )]
    );
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result() {
    let turn = Turn::new().tool_use("toolu_1", "Boom", json!({})).tool_use(
        "toolu_2",
        "Slow",
        json!({"ms": 1}),
    );
    let boom = TestTool::new("Boom", |_, _| async { panic!("kaboom") });
    let results = second_request_results(
        turn,
        vec![boom.arc(), sleeper("Slow", &Log::default()).arc()],
    )
    .await;
    assert_eq!(
        results,
        vec![
            (
                "<tool_use_error>Error calling tool (Boom): the tool crashed: kaboom</tool_use_error>"
                    .to_string(),
                true
            ),
            ("slept 1 ms".to_string(), false),
        ]
    );
}

#[tokio::test]
async fn a_headless_ask_is_denied_and_recorded() {
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Writer", json!({"path": "x"}))
                .tool_use("toolu_2", "Reader", json!({})),
        ),
        Reply::text("ok"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.permissions = PermissionConfig {
        mode: PermissionMode::Default,
        headless: true,
        ..PermissionConfig::default()
    };
    let log = Log::default();
    let writer_log = log.clone();
    let writer = TestTool::new("Writer", move |_, _| {
        let log = writer_log.clone();
        async move {
            log.push("writer ran");
            ToolOutput::text("written")
        }
    })
    .unsafe_()
    .writes();
    let reader = TestTool::new("Reader", |_, _| async { ToolOutput::text("read") });
    let mut engine = engine(&server, cfg, vec![writer.arc(), reader.arc()]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(
        r.permission_denials,
        vec![PermissionDenial {
            tool_name: "Writer".into(),
            tool_use_id: "toolu_1".into(),
            tool_input: json!({"path": "x"}),
        }]
    );
    assert!(log.entries().is_empty(), "a denied tool never runs");
    let results = body::tool_results(&server.bodies()[1]);
    assert_eq!(
        results[0].text,
        "orbit requested permissions to use Writer, but you haven't granted it yet."
    );
    assert!(results[0].is_error);
    assert_eq!(
        (results[1].text.as_str(), results[1].is_error),
        ("read", false)
    );
}

#[tokio::test]
async fn a_model_error_after_a_tool_started_keeps_the_history_paired() {
    let log = Log::default();
    let blocks = Turn::new()
        .tool_use("toolu_1", "Slow", json!({"ms": 300}))
        .tool_use("toolu_2", "Seq", json!({"ms": 1}));
    let through_tools = events_through_blocks(&blocks);
    let turn = blocks
        .text("and then")
        .error_after(through_tools, "invalid_request_error", "boom");
    let server = FakeAnthropic::start(vec![Reply::turn(turn)]);
    let tools = vec![
        sleeper("Slow", &log).arc(),
        sleeper("Seq", &log).unsafe_().arc(),
    ];
    let mut engine = temp_engine(&server, tools);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    let error = "API error in stream (invalid_request_error): boom";
    assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution);
    assert_eq!(r.errors, vec![error]);
    assert!(!r.interrupted);
    // The started safe call was awaited; the queued unsafe one never ran.
    assert_eq!(log.entries(), vec!["start:toolu_1", "end:toolu_1"]);
    let messages = engine.messages();
    assert_eq!(messages.len(), 3);
    assert_eq!(tool_use_ids(&messages[1]), vec!["toolu_1", "toolu_2"]);
    assert_paired(messages);
    let results = last_results(messages);
    assert_eq!(result_text(&results[0]), "slept 300 ms");
    assert!(!results[0].is_error());
    assert_eq!(result_text(&results[1]), error);
    assert!(results[1].is_error());
}

#[tokio::test]
async fn a_model_error_before_any_block_leaves_only_the_prompt() {
    let server = FakeAnthropic::start(vec![Reply::api_error(
        400,
        "invalid_request_error",
        "bad model",
    )]);
    let mut engine = temp_engine(&server, vec![]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution);
    assert_eq!(r.errors.len(), 1);
    assert!(r.errors[0].contains("bad model"), "{:?}", r.errors);
    assert_eq!(engine.messages().len(), 1);
}

#[tokio::test]
async fn a_retry_voids_the_attempt_and_cancels_the_tools_it_started() {
    let log = Log::default();
    let blocks = Turn::new().tool_use("toolu_void", "Slow", json!({"ms": 10_000}));
    let through_tool = events_through_blocks(&blocks);
    let server = FakeAnthropic::start(vec![
        // The completed tool_use sits 20 ms (the voided call starts), then
        // the stream is cut inside the next block.
        Reply::turn(
            blocks
                .text("cut here")
                .delay_before_block(1, std::time::Duration::from_millis(20))
                .cut_after(through_tool + 1),
        ),
        Reply::turn(Turn::new().tool_use("toolu_real", "Slow", json!({"ms": 1}))),
        Reply::text("done"),
    ]);
    let mut engine = slow_engine(&server, &log);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success, "{r:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Stream(StreamEvent::Retry { .. })))
    );
    log.assert_has(&["start:toolu_void", "cancelled:toolu_void"]);
    let messages = engine.messages();
    assert_paired(messages);
    assert_eq!(tool_use_ids(&messages[1]), vec!["toolu_real"]);
    assert!(
        !serde_json::to_string(messages)
            .unwrap()
            .contains("toolu_void"),
        "the void attempt left no trace in the history"
    );
    assert_eq!(r.num_turns, 2);
}

#[tokio::test]
async fn malformed_events_on_every_attempt_end_cleanly_with_a_paired_history() {
    let log = Log::default();
    let blocks = Turn::new().tool_use("toolu_1", "Slow", json!({"ms": 1}));
    let through_tool = events_through_blocks(&blocks);
    let bad = || Reply::turn(blocks.clone().text("tail").malformed_at(through_tool));
    // The test client retries twice: three attempts, all malformed.
    let server = FakeAnthropic::start(vec![bad(), bad(), bad(), Reply::text("unused")]);
    let mut engine = slow_engine(&server, &log);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution, "{r:?}");
    assert_eq!(r.errors.len(), 1);
    assert!(
        r.errors[0].starts_with("malformed stream event: "),
        "{:?}",
        r.errors
    );
    assert_eq!(server.request_count(), 3);
    let messages = engine.messages();
    assert_paired(messages);
    assert_eq!(tool_use_ids(&messages[1]), vec!["toolu_1"]);
}
