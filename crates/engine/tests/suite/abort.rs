//! Interrupts (L5): one abort answers every tool_use, keeps the history
//! paired and ends the turn within 200 ms.

use std::time::Duration;

use orbit_engine::{CANCEL_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE};
use orbit_protocol::{EngineEvent, ResultSubtype};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::support::*;

/// How long the test waits between the trigger event and the abort: tools
/// already spawned get going first (a call cancelled before its tool runs
/// never starts, and is not logged).
const SETTLE: Duration = Duration::from_millis(20);

/// L5's bound from abort to the terminal result.
const ABORT_DEADLINE: Duration = Duration::from_millis(200);

#[tokio::test]
async fn abort_while_tools_run_answers_running_and_queued_calls() {
    let log = Log::default();
    let server = FakeAnthropic::start(vec![Reply::turn(turn_of(&[
        ("toolu_1", "Slow", json!({"ms": 30_000})),
        ("toolu_2", "Seq", json!({"ms": 1})),
    ]))]);
    let tools = vec![
        sleeper("Slow", &log).arc(),
        sleeper("Seq", &log).unsafe_().arc(),
    ];
    let mut engine = temp_engine(&server, tools);
    let (r, took) = run_and_abort(&mut engine, SETTLE, |e| {
        matches!(e, EngineEvent::AssistantMessage { .. })
    })
    .await;
    assert!(took < ABORT_DEADLINE, "abort took {took:?}");
    assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution);
    assert!(r.interrupted);
    assert_eq!(r.errors, vec!["[Request interrupted by user]"]);
    assert_eq!(log.entries(), vec!["start:toolu_1", "cancelled:toolu_1"]);
    let messages = engine.messages();
    assert_paired(messages);
    assert_eq!(
        last_said(messages),
        vec![
            (INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string(), true),
            (CANCEL_MESSAGE.to_string(), true),
        ]
    );
    assert_eq!(
        CANCEL_MESSAGE,
        "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."
    );
    assert_eq!(
        INTERRUPT_MESSAGE_FOR_TOOL_USE,
        "[Request interrupted by user for tool use]"
    );
}

#[tokio::test]
async fn abort_mid_stream_keeps_completed_blocks_and_answers_their_tools() {
    let log = Log::default();
    let blocks = Turn::new()
        .text("Looking.")
        .tool_use("toolu_1", "Slow", json!({"ms": 30_000}));
    let before_delta = blocks.event_count() - 2;
    let server = FakeAnthropic::start(vec![Reply::turn(
        blocks
            .text("this block never arrives")
            .hang_after(before_delta),
    )]);
    let mut engine = slow_engine(&server, &log);
    let (r, took) = run_and_abort(&mut engine, SETTLE, |e| {
        matches!(e, EngineEvent::ToolStarted { .. })
    })
    .await;
    assert!(took < ABORT_DEADLINE, "abort took {took:?}");
    assert!(r.interrupted);
    assert_eq!(r.num_turns, 1);
    let messages = engine.messages();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1].text(), "Looking.");
    assert_paired(messages);
    let results = last_results(messages);
    assert_eq!(result_text(&results[0]), INTERRUPT_MESSAGE_FOR_TOOL_USE);
}

#[tokio::test]
async fn abort_before_any_block_leaves_the_prompt_alone() {
    let server = FakeAnthropic::start(vec![Reply::hang()]);
    let mut engine = temp_engine(&server, vec![]);
    let (r, took) = run_and_abort(&mut engine, SETTLE, |e| {
        matches!(e, EngineEvent::RequestStart { .. })
    })
    .await;
    assert!(took < ABORT_DEADLINE, "abort took {took:?}");
    assert!(r.interrupted);
    assert_eq!(engine.messages().len(), 1);
}

/// Issue 9 item 4: an abort requested before the turn starts (an early
/// Ctrl-C, the CLI's "stdout closed" stop) is not lost: the turn ends
/// interrupted without any model request, and the abort is consumed by it,
/// so the next turn runs normally.
#[tokio::test]
async fn an_abort_before_submit_cancels_that_turn_without_calling_the_model() {
    let server = FakeAnthropic::start(vec![Reply::text("fine")]);
    let mut engine = temp_engine(&server, vec![]);
    engine.abort_handle().abort();
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution);
    assert!(r.interrupted);
    assert_eq!(r.num_turns, 0);
    assert_eq!(server.request_count(), 0, "the model was called");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EngineEvent::RequestStart { .. })),
        "{events:?}"
    );
    assert!(!engine.abort_handle().is_aborted(), "the turn consumed it");

    let events = run(&mut engine, "again").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert!(!r.interrupted);
    assert_eq!(r.result, "fine");
    assert_eq!(server.request_count(), 1);
}

/// An abort after a turn ended waits for the next turn instead of vanishing.
#[tokio::test]
async fn an_abort_between_turns_cancels_the_next_one() {
    let server = FakeAnthropic::start(vec![Reply::text("fine"), Reply::text("unused")]);
    let mut engine = temp_engine(&server, vec![]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    engine.abort_handle().abort();
    let events = run(&mut engine, "again").await;
    assert!(result(&events).interrupted);
    assert_eq!(server.request_count(), 1);
}
