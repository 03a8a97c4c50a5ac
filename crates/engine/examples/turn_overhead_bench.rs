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
//! Turn 1 and turn 500 are measured in one run, interleaved: each round
//! drives a session to turn 480 unmeasured, then alternates its turns
//! 481–500 with turns 1–20 of a new session, so both ends see the same
//! load; a round's figure is the median of its 20 turns at each end, and
//! the ratio reported is the median over the rounds (with the load
//! average, from `/proc/loadavg`). Besides the overhead (wall time), each
//! turn's CPU time on the engine's thread is measured
//! (`/proc/thread-self/schedstat`): the work itself, without the time the
//! thread waited for a CPU, which on a loaded machine dominates the wall
//! time.
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
/// Turns measured at each end (their median).
const WINDOW_TURNS: usize = 20;
/// Rounds per window (a new pair of sessions each); the ratio reported is
/// the median of the rounds' ratios.
const ROUNDS: usize = 5;

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

fn median_f64(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One session: its fake server and engine.
struct Session {
    server: FakeAnthropic,
    engine: QueryEngine,
    turns: usize,
    compactions: usize,
    _dir: tempfile::TempDir,
}

impl Session {
    fn new(window: u64) -> Self {
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
        let engine = QueryEngine::new(config, Arc::new(client), tools);
        Self {
            server,
            engine,
            turns: 0,
            compactions: 0,
            _dir: dir,
        }
    }

    /// Runs the next prompt: its client overhead (wall time minus the
    /// server's time on its requests) and the CPU time of this thread
    /// during it (the engine and the client: the runtime is
    /// single-threaded, the fake server runs on its own thread).
    async fn turn(&mut self) -> Sample {
        let before = self.server.request_count();
        let cpu_before = thread_cpu_time();
        let started = Instant::now();
        let events: Vec<EngineEvent> = self
            .engine
            .submit_message(format!("echo item {}", self.turns))
            .collect()
            .await;
        let wall = started.elapsed();
        let cpu = thread_cpu_time().saturating_sub(cpu_before);
        self.turns += 1;
        self.compactions += events
            .iter()
            .filter(|e| matches!(e, EngineEvent::CompactBoundary { .. }))
            .count();
        // Only the timings: copying the turn's captured bodies here would
        // leave their garbage for the next turn's allocations to sweep.
        let server_time: Duration = self.server.server_times_since(before).iter().sum();
        Sample {
            overhead: wall.saturating_sub(server_time),
            cpu,
        }
    }
}

/// One turn's measurements.
#[derive(Clone, Copy)]
struct Sample {
    /// Wall time minus the server's time.
    overhead: Duration,
    /// CPU time of the engine's thread.
    cpu: Duration,
}

/// CPU time this thread has run, from `/proc/thread-self/schedstat`
/// (nanoseconds on a CPU; unlike wall time it does not count the time
/// the thread waited for a CPU, which on a loaded machine is most of it).
fn thread_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

/// The medians of `samples`: overhead, CPU time.
fn medians(samples: &[Sample]) -> (Duration, Duration) {
    (
        median(samples.iter().map(|s| s.overhead).collect()),
        median(samples.iter().map(|s| s.cpu).collect()),
    )
}

/// One round: a long session is driven to turn `TURNS - WINDOW_TURNS`
/// unmeasured, then its last `WINDOW_TURNS` turns alternate with the first
/// `WINDOW_TURNS` turns of a new session (which goes first alternates too),
/// so both ends are measured under the same load. The samples of both ends.
async fn round(window: u64, index: usize) -> (Vec<Sample>, Vec<Sample>, Session) {
    let mut long = Session::new(window);
    for _ in 0..TURNS - WINDOW_TURNS {
        long.turn().await;
    }
    let mut short = Session::new(window);
    let (mut first, mut last) = (Vec::new(), Vec::new());
    for i in 0..WINDOW_TURNS {
        if (i + index).is_multiple_of(2) {
            first.push(short.turn().await);
            last.push(long.turn().await);
        } else {
            last.push(long.turn().await);
            first.push(short.turn().await);
        }
    }
    (first, last, long)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn ratio(last: Duration, first: Duration) -> f64 {
    last.as_secs_f64() / first.as_secs_f64()
}

fn summary(ratios: &[f64]) -> String {
    format!(
        "median {:.2}× (min {:.2}×, max {:.2}×)",
        median_f64(ratios.to_vec()),
        ratios.iter().copied().fold(f64::INFINITY, f64::min),
        ratios.iter().copied().fold(0.0, f64::max),
    )
}

async fn bench_window(window: u64) {
    let (mut wall_ratios, mut cpu_ratios) = (Vec::new(), Vec::new());
    let (mut firsts, mut lasts) = (Vec::new(), Vec::new());
    for index in 0..ROUNDS {
        let (first, last, long) = round(window, index).await;
        let ((first_wall, first_cpu), (last_wall, last_cpu)) = (medians(&first), medians(&last));
        println!(
            "  {window}-token window, round {}: overhead turns 1–{WINDOW_TURNS} {first_wall:?}, turns {}–{TURNS} {last_wall:?} ({:.2}×); CPU {first_cpu:?} vs {last_cpu:?} ({:.2}×); {} compactions, {} messages at the end; load {}",
            index + 1,
            TURNS - WINDOW_TURNS + 1,
            ratio(last_wall, first_wall),
            ratio(last_cpu, first_cpu),
            long.compactions,
            long.engine.messages().len(),
            load_average(),
        );
        wall_ratios.push(ratio(last_wall, first_wall));
        cpu_ratios.push(ratio(last_cpu, first_cpu));
        firsts.extend(first);
        lasts.extend(last);
    }
    let ((first_wall, first_cpu), (last_wall, last_cpu)) = (medians(&firsts), medians(&lasts));
    let later = TURNS - WINDOW_TURNS + 1;
    println!(
        "{window}-token window, {ROUNDS} rounds: overhead (wall − server) turns 1–{WINDOW_TURNS} {first_wall:?}, turns {later}–{TURNS} {last_wall:?}, round ratios {}",
        summary(&wall_ratios)
    );
    println!(
        "{window}-token window, {ROUNDS} rounds: CPU time of the engine thread turns 1–{WINDOW_TURNS} {first_cpu:?}, turns {later}–{TURNS} {last_cpu:?}, round ratios {}",
        summary(&cpu_ratios)
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    println!("load average at start: {}", load_average());
    bench_window(50_000).await;
    bench_window(20_000).await;
    println!("load average at end: {}", load_average());
}
