//! The runaway-loop guard through the real client: a model that repeats one
//! tool call with the same input gets a reminder after `limit` calls in a
//! row and is stopped after twice as many (`error_repeated_tool_call`); a
//! change of input resets the count.

use orbit_protocol::ResultSubtype;
use orbit_test_support::{FakeAnthropic, Reply, body};
use orbit_tool::texts::engine::repeated_tool_call_reminder;
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn the_same_call_is_reminded_at_the_limit_and_stopped_at_twice_it() {
    let same = |i: u32| Reply::tool_use(format!("toolu_{i}"), "Slow", json!({"ms": 1}));
    let server = FakeAnthropic::start((1..=12).map(same).collect());
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.repeated_tool_call_limit = 3;
    let mut engine = engine(&server, cfg, vec![sleeper("Slow", &Log::default()).arc()]);
    let events = run(&mut engine, "loop").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::ErrorRepeatedToolCall);
    assert_eq!(
        r.errors,
        vec!["Stopped a runaway loop: the model called Slow with the same input 6 times in a row"]
    );
    assert_eq!(server.request_count(), 6);
    assert_paired(engine.messages());
    let reminder = repeated_tool_call_reminder("Slow", 3);
    let reminded: Vec<usize> = server
        .bodies()
        .iter()
        .enumerate()
        .filter(|(_, body)| body::last_message_texts(body).contains(&reminder))
        .map(|(i, _)| i)
        .collect();
    // Sent once, with the results of the third call (in request 4).
    assert_eq!(reminded, vec![3]);
}

#[tokio::test]
async fn a_changing_input_is_not_a_loop() {
    let varying = |i: u64| Reply::tool_use(format!("toolu_{i}"), "Slow", json!({"ms": i}));
    let mut replies: Vec<Reply> = (1..=8).map(varying).collect();
    replies.push(Reply::text("done"));
    let server = FakeAnthropic::start(replies);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.repeated_tool_call_limit = 2;
    let mut engine = engine(&server, cfg, vec![sleeper("Slow", &Log::default()).arc()]);
    let events = run(&mut engine, "vary").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(server.request_count(), 9);
}
