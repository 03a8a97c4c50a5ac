//! Regressions of issue 9's loop review: each test failed on the engine
//! before the fix it names. The real `AnthropicClient` against
//! `FakeAnthropic`, the real engine, real files where a side effect matters.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use orbit_engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::{EngineEvent, ResultSubtype, Role};
use orbit_test_support::body;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::ToolOutput;
use orbit_tools::builtin::default_tools;
use serde_json::{Value, json};

use super::support::*;

/// A tool that is not read-only and counts its calls.
fn counter(name: &str, calls: &Arc<AtomicUsize>) -> TestTool {
    let calls = Arc::clone(calls);
    TestTool::new(name, move |_input, _call| {
        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
        async move { ToolOutput::text(format!("call {n}")) }
    })
    .unsafe_()
    .writes()
}

/// A tool with a side effect: after `delay` (not watching its cancel token)
/// it writes `path` and says `wrote FILE_NAME`.
fn file_writer(name: &str, path: &std::path::Path, delay: Duration) -> TestTool {
    let path = path.to_path_buf();
    TestTool::new(name, move |_input, _call| {
        let path = path.clone();
        async move {
            tokio::time::sleep(delay).await;
            fs::write(&path, "written").unwrap();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            ToolOutput::text(format!("wrote {name}"))
        }
    })
    .writes()
}

/// Item 1: Read's results are never persisted, so the per-message budget
/// must not replace them either (three parallel Reads of 72 KB files).
#[tokio::test]
async fn the_message_budget_never_replaces_read_results() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let line = format!("{}\n", "r".repeat(71));
    for name in ["a.txt", "b.txt", "c.txt"] {
        fs::write(root.join(name), line.repeat(1_000)).unwrap();
    }
    let read = |id: &str, name: &str| {
        (
            id.to_string(),
            json!({"file_path": root.join(name).to_string_lossy()}),
        )
    };
    let mut turn = Turn::new();
    for (id, input) in [
        read("toolu_a", "a.txt"),
        read("toolu_b", "b.txt"),
        read("toolu_c", "c.txt"),
    ] {
        turn = turn.tool_use(id, "Read", input);
    }
    let server = FakeAnthropic::start(vec![Reply::turn(turn), Reply::text("done")]);
    let mut engine =
        orbit_engine::QueryEngine::new(config(dir.path()), client(&server), default_tools());
    let events = run(&mut engine, "read them").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    let sent = body::tool_results(&server.bodies()[1]);
    assert_eq!(sent.len(), 3);
    let total: usize = sent.iter().map(|r| r.text.chars().count()).sum();
    assert!(
        total > 200_000,
        "the three results exceed the budget: {total}"
    );
    for r in &sent {
        assert!(!r.text.contains("<persisted-output>"), "{}", r.tool_use_id);
        assert!(r.text.starts_with("     1\t") || r.text.starts_with("1\t"));
    }
}

/// Item 2: a failing call does not overwrite the result of a sibling that
/// finished: the sibling ignores the cancel and completes its work (as a
/// call whose completion was not yet processed has), so its real result
/// is what the model sees.
#[tokio::test]
async fn a_failing_call_never_cancels_a_sibling_that_already_finished() {
    let calls = turn_of(&[
        ("toolu_fail", "Bash", json!({"command": "false"})),
        ("toolu_ok", "Bash", json!({"command": "echo ok"})),
    ]);
    let server = FakeAnthropic::start(vec![Reply::turn(calls), Reply::text("done")]);
    // A test tool named "Bash" whose failure cancels siblings that may
    // have side effects (it declares it does): `false` fails after 30 ms
    // (the sibling is running by then); the other call finishes at 100 ms,
    // whatever its token says.
    let tool = TestTool::new("Bash", |input: Value, _call| async move {
        if input["command"] == "false" {
            tokio::time::sleep(Duration::from_millis(30)).await;
            ToolOutput::error("Exit code 1")
        } else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ToolOutput::text("ok")
        }
    })
    .cancels_siblings()
    .writes();
    let mut engine = temp_engine(&server, vec![tool.arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    let results = last_results(engine.messages());
    assert_eq!(result_text(&results[0]), "Exit code 1");
    assert_eq!(
        result_text(&results[1]),
        "ok",
        "the finished sibling keeps its result"
    );
    assert!(!results[1].is_error());
}

/// Item 2 (abort): a tool that finished before the abort keeps its result.
#[tokio::test]
async fn an_abort_keeps_the_result_of_a_tool_that_already_finished() {
    let both = turn_of(&[
        ("toolu_fast", "Fast", json!({"ms": 0})),
        ("toolu_slow", "Slow", json!({"ms": 30_000})),
    ]);
    let server = FakeAnthropic::start(vec![Reply::turn(both)]);
    let log = Log::default();
    let tools = vec![sleeper("Fast", &log).arc(), sleeper("Slow", &log).arc()];
    let mut engine = temp_engine(&server, tools);
    // Abort as soon as both have started: the fast one has finished (its
    // completion may not have been processed yet).
    let slow_started = |e: &EngineEvent| matches!(e, EngineEvent::ToolStarted { tool_use_id, .. } if tool_use_id == "toolu_slow");
    let (r, _) = run_and_abort(&mut engine, Duration::from_millis(20), slow_started).await;
    assert!(r.interrupted);
    let results = last_results(engine.messages());
    assert_eq!(result_text(&results[0]), "slept 0 ms");
    assert_eq!(result_text(&results[1]), INTERRUPT_MESSAGE_FOR_TOOL_USE);
}

/// Item 5: a stream cut after a tool with a side effect started is not
/// retried blindly: the tool ran once, the history shows the call with its
/// real result, and the loop goes on.
#[tokio::test]
async fn a_cut_stream_never_runs_a_side_effect_twice() {
    let calls = Arc::new(AtomicUsize::new(0));
    let blocks = Turn::new().tool_use("toolu_once", "Append", json!({"line": "ran"}));
    let cut_at = events_through_blocks(&blocks);
    let server = FakeAnthropic::start(vec![
        Reply::turn(blocks.cut_after(cut_at)),
        Reply::text("done"),
    ]);
    let mut engine = temp_engine(&server, vec![counter("Append", &calls).arc()]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the tool ran exactly once");
    assert_eq!(r.subtype, ResultSubtype::Success, "{r:?}");
    let messages = engine.messages();
    assert_paired(messages);
    assert_eq!(tool_use_ids(&messages[1]), vec!["toolu_once"]);
    assert_eq!(result_text(&last_results(&messages[..3])[0]), "call 1");
    // The second request continues after the kept call; no api_retry.
    let second = &server.bodies()[1];
    assert_eq!(body::tool_results(second)[0].text, "call 1");
    assert!(!events.iter().any(|e| matches!(
        e,
        EngineEvent::Stream(orbit_protocol::StreamEvent::Retry { .. })
    )));
}

/// Item 6: every attempt the API billed is counted.
#[tokio::test]
async fn usage_of_voided_attempts_is_counted() {
    let attempt = Turn::new().text("partial answer").usage(10, 3);
    let cut_at = events_through_blocks(&attempt);
    let server = FakeAnthropic::start(vec![
        Reply::turn(attempt.clone().cut_after(cut_at)),
        Reply::turn(attempt.clone().cut_after(cut_at)),
        Reply::turn(Turn::new().text("done").usage(10, 3)),
    ]);
    let mut engine = temp_engine(&server, vec![]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(server.request_count(), 3);
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert_eq!(r.usage.input_tokens, 30, "{:?}", r.usage);
    let one_call = orbit_model::pricing::cost_usd(
        MODEL,
        &orbit_protocol::Usage {
            input_tokens: 10,
            output_tokens: 3,
            ..Default::default()
        },
    );
    assert!(r.total_cost_usd > 2.0 * one_call, "{}", r.total_cost_usd);
}

/// Item 7: an assistant reply with no content never enters the history or
/// a request (the API rejects empty messages), for a `max_tokens`
/// continuation and for a library caller's next prompt.
#[tokio::test]
async fn an_empty_reply_never_becomes_an_empty_message() {
    let server = FakeAnthropic::start(vec![
        Reply::turn(Turn::new().stop_reason("max_tokens")),
        Reply::text("continued"),
        Reply::turn(Turn::new()),
        Reply::text("second answer"),
    ]);
    let mut engine = temp_engine(&server, vec![]);
    let first = run(&mut engine, "one").await;
    assert_eq!(result(&first).result, "continued");
    let second = run(&mut engine, "two").await;
    assert_eq!(result(&second).subtype, ResultSubtype::Success);
    let third = run(&mut engine, "three").await;
    assert_eq!(result(&third).result, "second answer");
    for (i, request) in server.bodies().iter().enumerate() {
        let messages = body::messages(request);
        for m in &messages {
            assert!(
                !body::blocks(m).is_empty(),
                "request {i} has an empty message: {m}"
            );
        }
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert!(
            roles.windows(2).all(|w| w[0] != w[1]),
            "request {i}: roles alternate: {roles:?}"
        );
    }
    assert!(engine.messages().iter().all(|m| !m.content.is_empty()));
    assert_eq!(engine.messages()[0].role, Role::User);
}

/// Item 8: repeated tool_use ids (OpenAI-compatible servers send `call_0`
/// every turn, sometimes twice in one message) get session-unique ids;
/// each result stays with its own call and no frozen budget decision of an
/// old call is applied to a new one.
#[tokio::test]
async fn repeated_tool_use_ids_are_made_unique_and_paired_by_position() {
    let echo = TestTool::new("Echo", |input: Value, _call| async move {
        ToolOutput::text(input["say"].as_str().unwrap_or_default().to_string())
    });
    let big = "B".repeat(5_000);
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("call_0", "Echo", json!({"say": big}))
                .tool_use("call_0", "Echo", json!({"say": "second"})),
        ),
        Reply::turn(Turn::new().tool_use("call_0", "Echo", json!({"say": "tiny"}))),
        Reply::text("done"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.tool_result_budget_chars = 3_000;
    let mut engine = engine(&server, cfg, vec![echo.arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    let messages = engine.messages();
    assert_paired(messages);
    let ids: Vec<String> = messages.iter().flat_map(tool_use_ids).collect();
    assert_eq!(ids.len(), 3);
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 3, "{ids:?}");
    assert_eq!(ids[0], "call_0", "a first use keeps the provider's id");
    let bodies = server.bodies();
    let second = body::tool_results(&bodies[1]);
    assert!(second[0].text.contains("<persisted-output>"), "the big one");
    assert_eq!(second[1].text, "second");
    let third = body::tool_results(&bodies[2]);
    assert_eq!(third.len(), 1);
    assert_eq!(third[0].text, "tiny", "no old replacement for a reused id");
}

fn tool_started(event: &EngineEvent) -> bool {
    matches!(event, EngineEvent::ToolStarted { .. })
}

/// Item 9: a call cancelled while it validates never reaches `Tool::call`.
#[tokio::test]
async fn a_call_cancelled_before_it_runs_never_acts() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker.txt");
    let writer =
        file_writer("Writer", &marker, Duration::ZERO).slow_validation(Duration::from_millis(300));
    let server = FakeAnthropic::start(vec![Reply::tool_use("toolu_w", "Writer", json!({}))]);
    let mut engine = engine(&server, config(dir.path()), vec![writer.arc()]);
    let (r, _) = run_and_abort(&mut engine, Duration::ZERO, tool_started).await;
    assert!(r.interrupted);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!marker.exists(), "the cancelled call wrote its file");
    let results = last_results(engine.messages());
    assert_eq!(result_text(&results[0]), INTERRUPT_MESSAGE_FOR_TOOL_USE);
}

/// Item 9: a tool that cannot stop in time is awaited (bounded), never
/// detached while it can still write: when the turn ends, its effect is
/// done and its real result is in the history.
#[tokio::test]
async fn a_tool_that_ignores_the_abort_is_awaited_not_detached() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("late.txt");
    let stubborn = file_writer("Stubborn", &marker, Duration::from_millis(300));
    let server = FakeAnthropic::start(vec![Reply::tool_use("toolu_s", "Stubborn", json!({}))]);
    let mut engine = engine(&server, config(dir.path()), vec![stubborn.arc()]);
    // Let the call get going (its cancel check passed), then abort.
    run_and_abort(&mut engine, Duration::from_millis(50), tool_started).await;
    assert!(marker.exists(), "the write happened before the result");
    let results = last_results(engine.messages());
    assert_eq!(
        result_text(&results[0]),
        "wrote late.txt",
        "the real result is kept"
    );
}

/// Item 10: a denial in an attempt voided by a retry is still reported.
#[tokio::test]
async fn denials_of_a_voided_attempt_are_reported() {
    let log = Log::default();
    let denied = turn_of(&[("toolu_denied", "Peek", json!({"ms": 0}))]);
    // Cut right after the tool_use block.
    let cut = denied
        .clone()
        .cut_after(events_through_blocks(&denied))
        .event_delay(Duration::from_millis(5));
    let server = FakeAnthropic::start(vec![Reply::turn(cut), Reply::text("done")]);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.permissions = PermissionConfig {
        mode: PermissionMode::Default,
        headless: true,
        disallowed_tools: vec!["Peek".into()],
        ..PermissionConfig::default()
    };
    let mut engine = engine(&server, cfg, vec![sleeper("Peek", &log).arc()]);
    let events = run(&mut engine, "go").await;
    let r = result(&events);
    assert_eq!(r.subtype, ResultSubtype::Success, "{r:?}");
    assert_eq!(server.request_count(), 2, "a read-only attempt is retried");
    let denied: Vec<&str> = r
        .permission_denials
        .iter()
        .map(|d| d.tool_use_id.as_str())
        .collect();
    assert_eq!(denied, vec!["toolu_denied"]);
}

/// Item 11: the connection is reused across the turns of a session even
/// when the server ends each body 50 ms after `message_stop` (a proxy's
/// timing): five model calls, one TCP connection.
#[tokio::test]
async fn a_five_turn_session_reuses_one_connection() {
    let log = Log::default();
    let late = Duration::from_millis(50);
    let mut replies: Vec<Reply> = (1..=4)
        .map(|i| {
            Reply::turn(
                Turn::new()
                    .tool_use(format!("toolu_{i}"), "Fast", json!({"ms": 1}))
                    .end_body_after(late),
            )
        })
        .collect();
    replies.push(Reply::turn(Turn::new().text("done").end_body_after(late)));
    let server = FakeAnthropic::start(replies);
    let mut engine = temp_engine(&server, vec![sleeper("Fast", &log).arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(server.request_count(), 5);
    assert_eq!(
        server.connection_count(),
        1,
        "one connection for the session"
    );
}
