//! The loop's continue/stop decisions (L1), limits (L3), the `max_tokens`
//! continuation (L4) and the result's accounting, through the real client.

use orbit_engine::MAX_TOKENS_CONTINUE_MESSAGE;
use orbit_engine::{EngineConfig, MAX_OUTPUT_TOKENS_RECOVERY_LIMIT, QueryEngine};
use orbit_protocol::{EngineEvent, ResultSubtype, Role, StreamEvent, TerminalResult};
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn end_turn_with_a_tool_use_still_continues() {
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Slow", json!({"ms": 1}))
                .stop_reason("end_turn"),
        ),
        Reply::text("done"),
    ]);
    let log = Log::default();
    let mut engine = slow_engine(&server, &log);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!((r.num_turns, r.result.as_str()), (2, "done"));
    assert_eq!(server.request_count(), 2);
    assert_eq!(log.entries(), vec!["start:toolu_1", "end:toolu_1"]);
    assert_paired(engine.messages());
}

#[tokio::test]
async fn stop_reason_tool_use_without_a_tool_use_block_ends_the_loop() {
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new().text("all done").stop_reason("tool_use"),
    )]);
    let mut engine = temp_engine(&server, vec![]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(r.result, "all done");
    assert_eq!(r.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(r.num_turns, 1);
    assert_eq!(server.request_count(), 1);
    assert_eq!(engine.messages().len(), 2);
}

/// A turn run against `replies` with the `Slow` tool, the config changed
/// by `limit`.
struct Limited {
    server: FakeAnthropic,
    engine: QueryEngine,
    result: TerminalResult,
    _dir: tempfile::TempDir,
}

async fn limited(replies: Vec<Reply>, limit: impl FnOnce(&mut EngineConfig)) -> Limited {
    let server = FakeAnthropic::start(replies);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    limit(&mut cfg);
    let mut engine = engine(&server, cfg, vec![sleeper("Slow", &Log::default()).arc()]);
    let events = run(&mut engine, "go").await;
    let result = result(&events).clone();
    Limited {
        server,
        engine,
        result,
        _dir: dir,
    }
}

#[tokio::test]
async fn max_turns_ends_with_the_exact_error_and_a_paired_history() {
    let tool_turn = |id: &str| Reply::turn(Turn::new().tool_use(id, "Slow", json!({"ms": 1})));
    let replies = vec![
        tool_turn("toolu_1"),
        tool_turn("toolu_2"),
        tool_turn("toolu_3"),
    ];
    let run = limited(replies, |cfg| cfg.max_turns = Some(2)).await;
    let (server, engine, r) = (&run.server, &run.engine, &run.result);
    assert_eq!(r.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(r.errors, vec!["Reached maximum number of turns (2)"]);
    assert_eq!(r.num_turns, 2);
    assert_eq!(r.result, "");
    assert_eq!(server.request_count(), 2);
    let messages = engine.messages();
    assert_eq!(messages.len(), 5, "prompt + 2 × (assistant, results)");
    assert_eq!(messages[4].role, Role::User);
    assert_paired(messages);
}

#[tokio::test]
async fn max_budget_is_checked_after_each_call() {
    // 1M input tokens on Sonnet 4.5 cost $3.
    let costly = Turn::new()
        .tool_use("toolu_1", "Slow", json!({"ms": 1}))
        .usage(1_000_000, 0);
    let replies = vec![Reply::turn(costly), Reply::text("never sent")];
    let run = limited(replies, |cfg| cfg.max_budget_usd = Some(1.0)).await;
    let (server, engine, r) = (&run.server, &run.engine, &run.result);
    assert_eq!(r.subtype, ResultSubtype::ErrorMaxBudgetUsd);
    assert_eq!(r.errors, vec!["Reached maximum budget ($1)"]);
    assert!(
        (r.total_cost_usd - 3.0).abs() < 1e-9,
        "{}",
        r.total_cost_usd
    );
    assert_eq!(server.request_count(), 1);
    assert_paired(engine.messages());
}

#[tokio::test]
async fn usage_and_cost_are_summed_over_calls() {
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .text("Reading.")
                .tool_use("toolu_1", "Slow", json!({"ms": 1}))
                .usage(100, 20),
        ),
        Reply::turn(Turn::new().text("The answer.").usage(200, 30)),
    ]);
    let mut engine = temp_engine(&server, vec![sleeper("Slow", &Log::default()).arc()]);
    let events = run(&mut engine, "question").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(r.result, "The answer.");
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (300, 50));
    let expected = (300.0 * 3.0 + 50.0 * 15.0) / 1_000_000.0;
    assert!(
        (r.total_cost_usd - expected).abs() < 1e-12,
        "{}",
        r.total_cost_usd
    );
    assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
    assert!(r.duration_ms >= r.duration_api_ms);

    // The event sequence of a tool turn.
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::RequestStart { .. } => Some("request"),
            EngineEvent::AssistantMessage { .. } => Some("assistant"),
            EngineEvent::ToolStarted { .. } => Some("started"),
            EngineEvent::UserMessage { .. } => Some("user"),
            EngineEvent::Result(_) => Some("end"),
            EngineEvent::Stream(StreamEvent::MessageStop) => Some("stop"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "request",
            "started",
            "stop",
            "assistant",
            "user",
            "request",
            "stop",
            "assistant",
            "end"
        ]
    );
    // The tool's result is released between its start and the user message.
    let pos = |pred: &dyn Fn(&EngineEvent) -> bool| events.iter().position(pred).unwrap();
    let started = pos(&|e| matches!(e, EngineEvent::ToolStarted { .. }));
    let released = pos(&|e| matches!(e, EngineEvent::ToolResult { .. }));
    let user = pos(&|e| matches!(e, EngineEvent::UserMessage { .. }));
    assert!(started < released && released < user);
    let Some(EngineEvent::AssistantMessage {
        message_id,
        model,
        stop_reason,
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, EngineEvent::AssistantMessage { .. }))
    else {
        unreachable!()
    };
    assert_eq!(message_id.as_deref(), Some("msg_fake_1"));
    assert_eq!(model, orbit_test_support::DEFAULT_MODEL);
    assert_eq!(stop_reason.as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn a_max_tokens_stop_is_continued_a_bounded_number_of_times() {
    let cut = |text: &str| Reply::turn(Turn::new().text(text).stop_reason("max_tokens"));
    let server = FakeAnthropic::start(vec![cut("Part one, "), Reply::text("part two.")]);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(&server, config(dir.path()), vec![]);
    let events = run(&mut engine, "write a lot").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(r.result, "Part one, part two.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let last = body::last_message(&bodies[1]);
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["text"], MAX_TOKENS_CONTINUE_MESSAGE);

    let limit = MAX_OUTPUT_TOKENS_RECOVERY_LIMIT as usize;
    let server = FakeAnthropic::start((0..limit + 2).map(|_| cut("x")).collect());
    let mut engine = super::support::engine(&server, config(dir.path()), vec![]);
    let events = run(&mut engine, "write even more").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(server.request_count(), limit + 1);
    assert_eq!(r.result, "x".repeat(limit + 1));
}

#[tokio::test]
async fn an_engine_keeps_its_history_across_prompts() {
    let server = FakeAnthropic::start(vec![Reply::text("first"), Reply::text("second")]);
    let mut engine = temp_engine(&server, vec![]);
    run(&mut engine, "one").await;
    let events = run(&mut engine, "two").await;
    assert_eq!(result(&events).result, "second");
    assert_eq!(assistant_texts(engine.messages()), vec!["first", "second"]);
    let second = &server.bodies()[1];
    assert_eq!(body::messages(second).len(), 3);
}
