//! Sibling abort (X5: read-only siblings keep their results) and interrupts
//! (L5) with the real Bash tool: real processes, and none may outlive its
//! cancelled call.

use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use orbit_engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
use orbit_protocol::{EngineEvent, ResultSubtype};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::support::*;

/// Whether any process's command line mentions `marker`.
fn process_alive_with(marker: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(Result::ok).any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(marker))
            .unwrap_or(false)
    })
}

/// Polls until no process mentions `marker` (killing is asynchronous).
async fn assert_gone(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while process_alive_with(marker) {
        assert!(
            Instant::now() < deadline,
            "a process of `{marker}` survived"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A read-only (so concurrency-safe) Bash command that runs until killed.
fn endless_read(dir: &Path) -> String {
    let file = dir.join("endless-marker.log");
    std::fs::write(&file, "").unwrap();
    format!("tail -f {}", file.display())
}

/// X5: a failing Bash call leaves its running read-only Bash sibling alone
/// (Claude Code 2.1.332): the sibling's real output reaches the model.
#[tokio::test]
async fn a_failing_bash_call_leaves_its_read_only_bash_sibling_running() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                // Read-only and slow (about 0.5 s): running when `false` fails.
                .tool_use(
                    "toolu_1",
                    "Bash",
                    json!({"command": "seq 20000000 | tail -n 1"}),
                )
                .tool_use("toolu_2", "Slow", json!({"ms": 200}))
                .tool_use("toolu_3", "Bash", json!({"command": "false"})),
        ),
        Reply::text("ok"),
    ]);
    let tools = vec![builtin("Bash"), sleeper("Slow", &Log::default()).arc()];
    let mut engine = engine(&server, config(dir.path()), tools);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    let results = last_results(engine.messages());
    assert_eq!(
        (result_text(&results[0]).as_str(), results[0].is_error()),
        ("20000000", false)
    );
    assert_eq!(
        (result_text(&results[1]).as_str(), results[1].is_error()),
        ("slept 200 ms", false)
    );
    assert!(
        result_text(&results[2]).starts_with("Exit code 1"),
        "{:?}",
        results[2]
    );
}

#[tokio::test]
async fn abort_during_a_bash_call_kills_it_within_200_ms() {
    let dir = tempfile::tempdir().unwrap();
    let endless = endless_read(dir.path());
    let server = FakeAnthropic::start(vec![Reply::turn(Turn::new().tool_use(
        "toolu_1",
        "Bash",
        json!({"command": endless}),
    ))]);
    let mut engine = engine(&server, config(dir.path()), vec![builtin("Bash")]);
    let handle = engine.abort_handle();
    let mut stream = engine.submit_message("go".into());
    let mut aborted_at = None;
    let mut result = None;
    while let Some(event) = tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .unwrap()
    {
        if matches!(event, EngineEvent::ToolStarted { .. }) {
            // Let the process actually start before interrupting it.
            let deadline = Instant::now() + Duration::from_secs(5);
            while !process_alive_with(&endless) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            handle.abort();
            aborted_at = Some(Instant::now());
        }
        if let EngineEvent::Result(r) = event {
            result = Some((r, aborted_at.unwrap().elapsed()));
        }
    }
    drop(stream);
    let (r, took) = result.unwrap();
    assert!(took < Duration::from_millis(200), "abort took {took:?}");
    assert!(r.interrupted);
    assert_paired(engine.messages());
    let results = last_results(engine.messages());
    assert_eq!(result_text(&results[0]), INTERRUPT_MESSAGE_FOR_TOOL_USE);
    assert_gone(&endless).await;
}
