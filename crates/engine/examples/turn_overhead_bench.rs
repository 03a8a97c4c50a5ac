//! Per-turn client overhead at turn 500 vs turn 1 (issue 11), through the
//! real Anthropic client over local HTTP.
//!
//! A session of 500 prompts; each prompt makes one tool call (a 2 KB
//! result) and gets a final answer, so the history grows by four messages
//! per turn. The fake server answers from the request (a summary request
//! gets a summary) and reports input tokens as body bytes / 4. A turn's
//! client overhead is its wall time minus the time the server spent on its
//! requests (from a request's first byte to the end of its response), so
//! what is left is the engine: building the budgeted view, estimating and
//! compacting, serializing, parsing, running the tool, committing.
//!
//! Two windows, 50,000 and 20,000 tokens, so the session compacts every
//! few dozen turns (with the model's own 200,000 the fake server, which
//! keeps every request body, would hold gigabytes by turn 500).
//!
//! Run: `cargo run --release -p orbit-engine --example turn_overhead_bench`
//! (results go to docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/bench.rs"]
mod bench;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::BenchTool;
use futures::StreamExt;
use orbit_engine::{CompactConfig, EngineConfig, QueryEngine};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::EngineEvent;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::texts::compact::COMPACT_INSTRUCTIONS;
use orbit_tool::{ToolOutput, ToolRegistry, typed};
use serde_json::{Value, json};

const TURNS: usize = 500;
const RESULT_BYTES: usize = 2_000;
/// Turns averaged at each end.
const WINDOW_TURNS: usize = 20;

fn last_block(body: &Value) -> Value {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .and_then(|c| c.last())
        .cloned()
        .unwrap_or(Value::Null)
}

fn serve(server: &FakeAnthropic) {
    let head = COMPACT_INSTRUCTIONS.lines().next().unwrap_or_default();
    server.respond_with(move |index, body| {
        let input = (body.to_string().len() / 4) as u64;
        let last = last_block(body);
        Some(
            if last["text"].as_str().is_some_and(|t| t.starts_with(head)) {
                Reply::turn(Turn::new().text("SUMMARY: echoed items.").usage(input, 10))
            } else if last["type"] == "tool_result" {
                Reply::turn(Turn::new().text("done").usage(input, 2))
            } else {
                Reply::turn(
                    Turn::new()
                        .tool_use(format!("toolu_{index}"), "Echo", json!({"n": index}))
                        .usage(input, 10),
                )
            },
        )
    });
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn session(window: u64) {
    let server = FakeAnthropic::start(vec![]);
    serve(&server);
    let dir = tempfile::tempdir().unwrap();
    let client = bench::client(server.base_url());
    let config = EngineConfig {
        model: "claude-sonnet-4-5".into(),
        system_prompt: "bench".into(),
        max_tokens: 1024,
        permissions: PermissionConfig {
            mode: PermissionMode::BypassPermissions,
            headless: true,
            ..PermissionConfig::default()
        },
        session_id: "bench".into(),
        cwd: dir.path().to_path_buf(),
        data_dir: dir.path().join(".orbit"),
        compact: CompactConfig {
            context_window: Some(window),
            ..CompactConfig::default()
        },
        ..EngineConfig::default()
    };
    let mut tools = ToolRegistry::new();
    tools.register(typed(BenchTool {
        name: "Echo",
        schema: json!({"type": "object", "properties": {"n": {"type": "number"}}}),
        call: Box::new(|input| {
            let text = format!("{input}: {}", "x".repeat(RESULT_BYTES));
            Box::pin(async move { ToolOutput::text(text) })
        }),
    }));
    let mut engine = QueryEngine::new(config, Arc::new(client), tools);
    let mut overheads = Vec::with_capacity(TURNS);
    let mut compactions = 0;
    for turn in 0..TURNS {
        let before = server.request_count();
        let started = Instant::now();
        let events: Vec<EngineEvent> = engine
            .submit_message(format!("echo item {turn}"))
            .collect()
            .await;
        let wall = started.elapsed();
        compactions += events
            .iter()
            .filter(|e| matches!(e, EngineEvent::CompactBoundary { .. }))
            .count();
        // Only the timings: copying the turn's captured bodies here would
        // leave their garbage for the next turn's allocations to sweep.
        let server_time: Duration = server.server_times_since(before).iter().sum();
        overheads.push(wall.saturating_sub(server_time));
    }
    let first = median(overheads[..WINDOW_TURNS].to_vec());
    let last = median(overheads[TURNS - WINDOW_TURNS..].to_vec());
    println!(
        "{window}-token window: median client overhead per turn, turns 1–{WINDOW_TURNS}: {first:?}; turns {}–{TURNS}: {last:?} ({:.2}×); {compactions} compactions; {} messages at the end",
        TURNS - WINDOW_TURNS + 1,
        last.as_secs_f64() / first.as_secs_f64(),
        engine.messages().len()
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    session(50_000).await;
    session(20_000).await;
}
