//! Streamed chat completions: text, one tool call, parallel tool calls with
//! fragmented arguments, usage, invalid arguments, a missing `[DONE]`.

use orbit_protocol::{ContentBlock, StreamEvent, Usage};
use orbit_test_support::openai::DEFAULT_OPENAI_MODEL;
use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::{blank_fresh_ids, client, completed, request, run, stop_reason, tool};
use crate::suite::{hello_world_events, input_fragments, run_ok};

#[tokio::test]
async fn streamed_text_yields_the_exact_event_sequence() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("Hello, world!").usage(12, 7),
    )]);
    let events = run_ok(&client(&server), &request("hi")).await;
    let end_usage = Usage {
        input_tokens: 12,
        output_tokens: 7,
        ..Usage::default()
    };
    assert_eq!(
        events,
        hello_world_events(
            "chatcmpl-fake-1",
            DEFAULT_OPENAI_MODEL,
            Usage::default(),
            end_usage
        )
    );
}

#[tokio::test]
async fn one_tool_call_after_text_is_assembled_from_fragments() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("Reading it.").tool_call(
            "call_abc",
            "Read",
            json!({"file_path": "/tmp/config.txt"}),
        ),
    )]);
    let events = run_ok(&client(&server), &request("read")).await;
    let blocks = completed(&events);
    assert_eq!(
        blank_fresh_ids(blocks.clone()),
        vec![
            ContentBlock::text("Reading it."),
            tool("", "Read", json!({"file_path": "/tmp/config.txt"})),
        ]
    );
    // The tool block starts with its (fresh) id and name and an empty
    // input; the arguments arrive as InputJsonDelta fragments that
    // concatenate to JSON.
    let ContentBlock::ToolUse(done) = &blocks[1] else {
        panic!("{blocks:?}")
    };
    let start = events.iter().find_map(|e| match e {
        StreamEvent::ContentBlockStart { index: 1, block } => Some(block.clone()),
        _ => None,
    });
    assert_eq!(start, Some(tool(&done.id, "Read", json!({}))));
    let fragments = input_fragments(&events, 1);
    assert_eq!(fragments.len(), 3);
    assert_eq!(fragments.concat(), r#"{"file_path":"/tmp/config.txt"}"#);
    assert_eq!(stop_reason(&events).as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn parallel_tool_calls_complete_in_order_each_as_soon_as_the_next_begins() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new()
            .tool_call("call_1", "Read", json!({"file_path": "a.txt"}))
            .tool_call_raw("call_2", "Read", &["{\"file_", "path\": \"b", ".txt\"}"])
            .tool_call("call_3", "Bash", json!({"command": "ls -la"}))
            .usage(100, 30),
    )]);
    let events = run_ok(&client(&server), &request("read both")).await;
    assert_eq!(
        blank_fresh_ids(completed(&events)),
        vec![
            tool("", "Read", json!({"file_path": "a.txt"})),
            tool("", "Read", json!({"file_path": "b.txt"})),
            tool("", "Bash", json!({"command": "ls -la"})),
        ]
    );
    // Block 0 completes before block 1 starts (X3: it may run at once).
    let pos = |pred: &dyn Fn(&StreamEvent) -> bool| events.iter().position(pred);
    let complete0 = pos(&|e| matches!(e, StreamEvent::ContentBlockComplete { index: 0, .. }));
    let start1 = pos(&|e| matches!(e, StreamEvent::ContentBlockStart { index: 1, .. }));
    assert!(complete0 < start1, "{events:#?}");
    assert_eq!(stop_reason(&events).as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn usage_maps_cached_prompt_tokens_to_cache_reads() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("ok").usage_cached(1000, 20, 800),
    )]);
    let (events, _) = run(&client(&server), &request("hi")).await;
    let usage = events.iter().find_map(|e| match e {
        StreamEvent::MessageDelta { usage, .. } => Some(*usage),
        _ => None,
    });
    assert_eq!(
        usage,
        Some(Usage {
            input_tokens: 200,
            output_tokens: 20,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 800,
        })
    );
}

/// Item 14: arguments that do not parse stay visible: the input is the
/// `__unparsedToolInput` object (raw text and its byte length) and
/// `invalid_input` carries the raw text.
#[tokio::test]
async fn unparsable_arguments_are_kept_as_an_unparsed_input_object() {
    let raw = "{\"file_path\": \"a.txt\"";
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new()
            .tool_call_raw("call_x", "Read", &["{\"file_path\": ", "\"a.txt\""])
            .tool_call_raw("call_y", "Bash", &["\"ls\""]),
    )]);
    let events = run_ok(&client(&server), &request("read")).await;
    let complete = crate::suite::completed_with_invalid_input(&events);
    let (blocks, invalid): (Vec<_>, Vec<_>) = complete.into_iter().unzip();
    assert_eq!(
        blank_fresh_ids(blocks),
        vec![
            tool(
                "",
                "Read",
                json!({"__unparsedToolInput": {"raw": raw, "len": raw.len()}})
            ),
            tool(
                "",
                "Bash",
                json!({"__unparsedToolInput": {"raw": "\"ls\"", "len": 4}})
            ),
        ]
    );
    assert_eq!(
        invalid,
        vec![Some(raw.to_string()), Some("\"ls\"".to_string())]
    );
}

#[tokio::test]
async fn finish_reasons_map_to_stop_reasons() {
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().text("cut").finish_reason("length")),
        OpenAiReply::completion(Completion::new().text("done").finish_reason("stop")),
    ]);
    let c = client(&server);
    let (events, _) = run(&c, &request("a")).await;
    assert_eq!(stop_reason(&events).as_deref(), Some("max_tokens"));
    let (events, _) = run(&c, &request("b")).await;
    assert_eq!(stop_reason(&events).as_deref(), Some("end_turn"));
}

#[tokio::test]
async fn a_clean_end_without_done_after_finish_reason_is_complete() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("no done marker").no_done(),
    )]);
    let events = run_ok(&client(&server), &request("hi")).await;
    assert_eq!(
        completed(&events),
        vec![ContentBlock::text("no done marker")]
    );
    assert_eq!(events.last(), Some(&StreamEvent::MessageStop));
    assert_eq!(server.request_count(), 1);
}

/// One tool call per reply (the small-model profile): the body says
/// `parallel_tool_calls: false`, and the start of a second call ends the
/// message after the first. The fake then hangs: without the cut the
/// client would wait for its idle timeout; with it, the body is dropped
/// and the next request of the same client is answered at once.
#[tokio::test]
async fn one_tool_call_per_reply_ends_the_reply_at_the_second_call() {
    let first = json!({"file_path": "a.txt"});
    let chained = Completion::new()
        .tool_call("call_1", "Read", first.clone())
        .tool_call("call_2", "Bash", json!({"command": "rm -rf build"}));
    // Role chunk, call 1 (start + 3 fragments), then the start of call 2.
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(chained.hang_after(6)),
        OpenAiReply::completion(Completion::new().text("done")),
    ]);
    let cutting = client(&server);
    let mut one = request("fix it");
    one.one_tool_call = true;
    let bounded = std::time::Duration::from_secs(10);
    let Ok((events, err)) = tokio::time::timeout(bounded, run(&cutting, &one)).await else {
        panic!("the reply was not cut at the second call");
    };
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        blank_fresh_ids(completed(&events)),
        vec![tool("", "Read", first)]
    );
    assert_eq!(stop_reason(&events).as_deref(), Some("tool_use"));
    assert!(matches!(events.last(), Some(StreamEvent::MessageStop)));
    assert_eq!(server.bodies()[0]["parallel_tool_calls"], json!(false));

    let Ok((events, err)) = tokio::time::timeout(bounded, run(&cutting, &one)).await else {
        panic!("the next request waited for the dropped body");
    };
    assert!(err.is_none(), "{err:?}");
    assert_eq!(completed(&events), vec![ContentBlock::text("done")]);
    // Off (every other profile): all calls, and no such field.
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new()
            .tool_call("call_1", "Read", json!({"file_path": "a.txt"}))
            .tool_call("call_2", "Read", json!({"file_path": "b.txt"})),
    )]);
    let events = run_ok(&client(&server), &request("read both")).await;
    assert_eq!(completed(&events).len(), 2);
    assert_eq!(server.bodies()[0].get("parallel_tool_calls"), None);
}
