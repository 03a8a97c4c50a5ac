//! The StreamingToolExecutor through the real loop (X1–X5): concurrency
//! proven with barriers, batches, the cap, ordering, sibling abort, and
//! tools that start while the model is still streaming.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orbit_engine::{EngineConfig, ToolRunner};
use orbit_protocol::{ContentBlock, EngineEvent, ResultSubtype, StreamEvent, ToolUseBlock};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::{ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio::sync::{Barrier, watch};
use tokio_util::sync::CancellationToken;

use super::support::*;

/// How long a barrier waits before declaring the calls were not concurrent.
const BARRIER_TIMEOUT: Duration = Duration::from_secs(5);

/// A safe tool whose calls wait at a barrier of `parties`: they can only
/// finish if that many run at the same time. Tracks the peak concurrency.
fn meeting(name: &str, parties: usize, log: &Log, peak: &Arc<AtomicUsize>) -> TestTool {
    let barrier = Arc::new(Barrier::new(parties));
    let active = Arc::new(AtomicUsize::new(0));
    let (log, peak) = (log.clone(), Arc::clone(peak));
    TestTool::new(name, move |_, call| {
        let (barrier, active, log, peak) = (
            Arc::clone(&barrier),
            Arc::clone(&active),
            log.clone(),
            Arc::clone(&peak),
        );
        async move {
            let now = active.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            log.push(format!("enter:{}", call.tool_use_id));
            let met = tokio::time::timeout(BARRIER_TIMEOUT, barrier.wait())
                .await
                .is_ok();
            log.push(format!("leave:{}", call.tool_use_id));
            active.fetch_sub(1, Ordering::SeqCst);
            if met {
                ToolOutput::text("met")
            } else {
                ToolOutput::error("alone at the barrier")
            }
        }
    })
}

#[tokio::test]
async fn three_safe_calls_run_concurrently() {
    let log = Log::default();
    let peak = Arc::new(AtomicUsize::new(0));
    let calls: Vec<_> = (1..=3)
        .map(|i| (format!("toolu_{i}"), "Meet", json!({})))
        .collect();
    let calls: Vec<_> = calls
        .iter()
        .map(|(id, n, v)| (id.as_str(), *n, v.clone()))
        .collect();
    let server = FakeAnthropic::start(vec![Reply::turn(turn_of(&calls)), Reply::text("ok")]);
    let mut engine = temp_engine(&server, vec![meeting("Meet", 3, &log, &peak).arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    let texts: Vec<String> = last_results(engine.messages())
        .iter()
        .map(result_text)
        .collect();
    assert_eq!(texts, vec!["met"; 3]);
    let entries = log.entries();
    assert!(
        entries[..3].iter().all(|e| e.starts_with("enter:")),
        "all enter before any leaves: {entries:?}"
    );
    assert_eq!(peak.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn safe_unsafe_safe_runs_as_three_batches_in_order() {
    let log = Log::default();
    let server = FakeAnthropic::start(vec![
        Reply::turn(turn_of(&[
            ("toolu_a", "Slow", json!({"ms": 50})),
            ("toolu_b", "Seq", json!({"ms": 50})),
            ("toolu_c", "Slow", json!({"ms": 50})),
        ])),
        Reply::text("ok"),
    ]);
    let tools = vec![
        sleeper("Slow", &log).arc(),
        sleeper("Seq", &log).unsafe_().arc(),
    ];
    let mut engine = temp_engine(&server, tools);
    run(&mut engine, "go").await;
    assert_eq!(
        log.entries(),
        vec![
            "start:toolu_a",
            "end:toolu_a",
            "start:toolu_b",
            "end:toolu_b",
            "start:toolu_c",
            "end:toolu_c"
        ]
    );
    assert_paired(engine.messages());
}

#[tokio::test]
async fn the_cap_is_honoured_with_twelve_safe_calls_and_a_cap_of_four() {
    let log = Log::default();
    let peak = Arc::new(AtomicUsize::new(0));
    let ids: Vec<String> = (1..=12).map(|i| format!("toolu_{i:02}")).collect();
    let calls: Vec<_> = ids
        .iter()
        .map(|id| (id.as_str(), "Meet", json!({})))
        .collect();
    let server = FakeAnthropic::start(vec![Reply::turn(turn_of(&calls)), Reply::text("ok")]);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.max_tool_use_concurrency = 4;
    // A barrier of 4: every call finishes only if 4 run together.
    let mut engine = engine(&server, cfg, vec![meeting("Meet", 4, &log, &peak).arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(peak.load(Ordering::SeqCst), 4);
    let results = last_results(engine.messages());
    assert_eq!(results.len(), 12);
    assert!(results.iter().all(|r| result_text(r) == "met"));
    assert_eq!(released_ids(&events), ids);
}

#[tokio::test]
async fn results_keep_tool_use_order_when_completion_order_is_reversed() {
    // Each call waits until the call after it has finished.
    let (done_tx, done_rx) = watch::channel(Vec::<String>::new());
    let done_tx = Arc::new(done_tx);
    let log = Log::default();
    let chain_log = log.clone();
    let chain = TestTool::new("Chain", move |input: Value, call| {
        let (done_tx, mut done_rx, log) =
            (Arc::clone(&done_tx), done_rx.clone(), chain_log.clone());
        async move {
            if let Some(after) = input.get("after").and_then(Value::as_str) {
                let after = after.to_string();
                let waited = tokio::time::timeout(
                    BARRIER_TIMEOUT,
                    done_rx.wait_for(|done| done.contains(&after)),
                )
                .await;
                if waited.is_err() {
                    return ToolOutput::error("not concurrent");
                }
            }
            log.push(format!("end:{}", call.tool_use_id));
            done_tx.send_modify(|done| done.push(call.tool_use_id.clone()));
            ToolOutput::text(format!("result of {}", call.tool_use_id))
        }
    });
    let server = FakeAnthropic::start(vec![
        Reply::turn(turn_of(&[
            ("toolu_1", "Chain", json!({"after": "toolu_2"})),
            ("toolu_2", "Chain", json!({"after": "toolu_3"})),
            ("toolu_3", "Chain", json!({})),
        ])),
        Reply::text("ok"),
    ]);
    let mut engine = temp_engine(&server, vec![chain.arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(
        log.entries(),
        vec!["end:toolu_3", "end:toolu_2", "end:toolu_1"]
    );
    assert_eq!(released_ids(&events), vec!["toolu_1", "toolu_2", "toolu_3"]);
    let texts: Vec<String> = last_results(engine.messages())
        .iter()
        .map(result_text)
        .collect();
    assert_eq!(
        texts,
        vec![
            "result of toolu_1",
            "result of toolu_2",
            "result of toolu_3"
        ]
    );
}

/// A test-only tool named "Bash": `false` fails after 100 ms, anything else
/// sleeps `ms` (or until cancelled). Concurrency-safe and read-only, like
/// read-only Bash, and its failure cancels siblings, like Bash's.
fn fake_bash(log: &Log) -> TestTool {
    let log = log.clone();
    TestTool::new("Bash", move |input: Value, call| {
        let log = log.clone();
        async move {
            let command = input["command"].as_str().unwrap_or_default().to_string();
            if command == "false" {
                tokio::time::sleep(Duration::from_millis(100)).await;
                log.push(format!("failed:{}", call.tool_use_id));
                return ToolOutput::error("Exit code 1");
            }
            let ms = input["ms"].as_u64().unwrap_or(10_000);
            let done = ToolOutput::text(format!("ran {command}"));
            sleep_unless_cancelled(&log, &call, ms, done, ToolOutput::error("killed")).await
        }
    })
    .cancels_siblings()
}

/// X5: a read-only sibling of a failing Bash call is never cancelled (as in
/// Claude Code 2.1.332): each call of the batch keeps its own result.
#[tokio::test]
async fn read_only_siblings_of_a_failing_bash_call_keep_their_own_results() {
    let log = Log::default();
    let server = FakeAnthropic::start(vec![
        Reply::turn(turn_of(&[
            (
                "toolu_1",
                "Bash",
                json!({"command": "sleep 0.4", "ms": 400}),
            ),
            ("toolu_2", "Bash", json!({"command": "false"})),
            (
                "toolu_3",
                "Bash",
                json!({"command": "sleep 0.2", "ms": 200}),
            ),
        ])),
        Reply::text("ok"),
    ]);
    let mut engine = temp_engine(&server, vec![fake_bash(&log).arc()]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(
        last_said(engine.messages()),
        vec![
            ("ran sleep 0.4".to_string(), false),
            ("Exit code 1".to_string(), true),
            ("ran sleep 0.2".to_string(), false),
        ]
    );
    log.assert_has(&["end:toolu_1", "end:toolu_3"]);
}

/// X5: what sibling abort still applies to — a concurrency-safe call that
/// is not read-only (a tool may declare so) and shares the fact
/// `failure_cancels_siblings`.
#[tokio::test]
async fn a_failing_bash_call_cancels_only_its_running_siblings_with_side_effects() {
    let log = Log::default();
    let server = FakeAnthropic::start(vec![
        Reply::turn(turn_of(&[
            ("toolu_1", "Bash", json!({"command": "sleep 10"})),
            ("toolu_2", "Bash", json!({"command": "false"})),
            ("toolu_3", "Slow", json!({"ms": 300})),
            ("toolu_4", "Seq", json!({"ms": 1})),
            (
                "toolu_5",
                "Bash",
                json!({"command": "sleep 0.05", "ms": 50}),
            ),
        ])),
        Reply::text("ok"),
    ]);
    let tools = vec![
        fake_bash(&log).writes().arc(),
        sleeper("Slow", &log).arc(),
        sleeper("Seq", &log).unsafe_().arc(),
    ];
    let mut engine = temp_engine(&server, tools);
    let started = Instant::now();
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the sleeping sibling was cancelled"
    );
    assert_eq!(
        last_said(engine.messages()),
        vec![
            (
                "Cancelled: parallel tool call Bash(false) errored".to_string(),
                true
            ),
            ("Exit code 1".to_string(), true),
            ("slept 300 ms".to_string(), false),
            ("slept 1 ms".to_string(), false),
            ("ran sleep 0.05".to_string(), false),
        ]
    );
    // The non-Bash sibling finished.
    log.assert_has(&["cancelled:toolu_1", "end:toolu_3"]);
}

#[tokio::test]
async fn a_tool_completed_early_in_a_slow_stream_runs_before_message_stop() {
    const STREAM_DRIP: Duration = Duration::from_millis(1000);
    const TOOL_MS: u64 = 800;
    let log = Log::default();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Slow", json!({"ms": TOOL_MS}))
                .text("Meanwhile, more text drips in.")
                .delay_before_block(1, STREAM_DRIP),
        ),
        Reply::text("ok"),
    ]);
    let mut engine = slow_engine(&server, &log);
    let mut stream = engine.submit_message("go".into());
    let mut timeline: Vec<(Instant, EngineEvent)> = Vec::new();
    use futures::StreamExt;
    while let Some(event) = stream.next().await {
        timeline.push((Instant::now(), event));
    }
    drop(stream);
    let at =
        |pred: &dyn Fn(&EngineEvent) -> bool| timeline.iter().position(|(_, e)| pred(e)).unwrap();
    let tool_complete = at(&|e| {
        matches!(
            e,
            EngineEvent::Stream(StreamEvent::ContentBlockComplete {
                block: ContentBlock::ToolUse(_),
                ..
            })
        )
    });
    let started = at(&|e| matches!(e, EngineEvent::ToolStarted { .. }));
    let next_block = at(&|e| {
        matches!(
            e,
            EngineEvent::Stream(StreamEvent::ContentBlockStart { index: 1, .. })
        )
    });
    let released = at(&|e| matches!(e, EngineEvent::ToolResult { .. }));
    let stop = at(&|e| matches!(e, EngineEvent::Stream(StreamEvent::MessageStop)));
    let user = at(&|e| matches!(e, EngineEvent::UserMessage { .. }));
    assert_eq!(
        started,
        tool_complete + 1,
        "the tool starts at its content_block_stop"
    );
    assert!(
        started < next_block,
        "before the rest of the message streams"
    );
    assert!(released < stop, "the tool finished before message_stop");
    let request = timeline[0].0;
    let turn = timeline[user].0 - request;
    let sum = STREAM_DRIP + Duration::from_millis(TOOL_MS);
    assert!(
        turn < sum - Duration::from_millis(300),
        "turn took {turn:?}: ≈ max, not the sum {sum:?}"
    );
    assert_eq!(log.entries(), vec!["start:toolu_1", "end:toolu_1"]);
}

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock {
        id: id.into(),
        name: name.into(),
        input,
    }
}

fn x1_registry(log: &Log) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(sleeper("Slow", log).arc());
    registry.register(sleeper("Seq", log).unsafe_().arc());
    registry.register(sleeper("Panicky", log).panicking_safety_check().arc());
    let typed_schema = json!({
        "type": "object",
        "properties": {"ms": {"type": "number"}},
        "additionalProperties": false
    });
    registry.register(sleeper("Typed", log).schema(typed_schema).arc());
    registry
}

/// X1 for a whole message added at once (a provider that does not stream
/// blocks): consecutive safe calls run together, every other call alone,
/// rejected calls answered at once, results in tool_use order.
#[tokio::test]
async fn a_whole_message_runs_in_x1_batches_in_order() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let config = EngineConfig {
        session_id: "s".into(),
        cwd: dir.path().to_path_buf(),
        data_dir: dir.path().join(".orbit"),
        ..EngineConfig::default()
    };
    let runner = ToolRunner::new(&config, x1_registry(&log));
    let blocks = vec![
        block("a", "Slow", json!({"ms": 60})),
        block("b", "Slow", json!({"ms": 20})),
        block("c", "Seq", json!({"ms": 1})),
        block("d", "Missing", json!({})),
        block("e", "Typed", json!({"ms": "soon"})),
        block("f", "Panicky", json!({"ms": 1})),
        block("g", "Typed", json!({"ms": "5"})),
        block("h", "Slow", json!({"ms": 1})),
    ];
    let mut executor = runner.executor(CancellationToken::new());
    for b in blocks {
        executor.add_tool(b, None);
    }
    let mut events = Vec::new();
    while let Some(e) = executor.next_event().await {
        events.push(e);
    }
    // a and b overlap (b ends first); c only after both; g and h together
    // (d and e are rejected; f's facts panic, so it gets the most
    // conservative ones: unsafe, not read-only, so the gate asks, which
    // nobody answers here: it never runs).
    assert_eq!(
        log.entries(),
        vec![
            "start:a", "start:b", "end:b", "end:a", "start:c", "end:c", "start:g", "start:h",
            "end:h", "end:g"
        ]
    );
    let results: Vec<_> = executor.take_results().into_iter().flatten().collect();
    let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, vec!["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(
        results[3].content.as_text(),
        "<tool_use_error>Error: No such tool available: Missing</tool_use_error>"
    );
    assert!(results[4].is_error() && results[5].is_error() && !results[6].is_error());
    assert_eq!(
        released_ids(&events),
        vec!["a", "b", "c", "d", "e", "f", "g", "h"]
    );
}
