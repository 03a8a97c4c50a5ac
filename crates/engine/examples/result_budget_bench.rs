//! Benchmark (not a test) of the result pipeline: total request bytes over a
//! 20-turn session whose tools return large outputs, with and without R1
//! (persist-if-large) and R2 (per-message budget).
//!
//! Each turn the "model" calls tools and their outputs are appended to the
//! history exactly as the engine does; before each of the 20 requests the
//! messages are serialized as they would be sent. Deterministic (fixed
//! pseudo-random content), so the byte counts are reproducible.
//!
//! Run: `cargo run --release -p orbit-engine --example result_budget_bench`

use std::path::Path;
use std::time::{Duration, Instant};

use orbit_engine::{
    ContentReplacementState, DEFAULT_PER_MESSAGE_BUDGET_CHARS, ToolResultStorage,
    enforce_tool_result_budget, process_tool_result,
};
use orbit_protocol::{ContentBlock, Message, ToolResultBlock};
use orbit_tools::ToolOutput;

const TURNS: usize = 20;
const BASH_MAX_RESULT_SIZE_CHARS: usize = 30_000;
const GREP_MAX_RESULT_SIZE_CHARS: usize = 20_000;

/// One tool call of the script: (tool, threshold, output size in chars).
type Call = (&'static str, usize, usize);

/// The tool calls of turn `t`: a mix of build logs, big file reads in
/// parallel (Read is never persisted by R1, so only R2 bounds them), greps
/// and small outputs.
fn script(t: usize) -> Vec<Call> {
    match t % 5 {
        0 => vec![("Bash", BASH_MAX_RESULT_SIZE_CHARS, 120_000)],
        1 => vec![
            ("Read", usize::MAX, 70_000),
            ("Read", usize::MAX, 70_000),
            ("Read", usize::MAX, 70_000),
        ],
        2 => vec![
            ("Grep", GREP_MAX_RESULT_SIZE_CHARS, 18_000),
            ("Bash", BASH_MAX_RESULT_SIZE_CHARS, 2_000),
        ],
        3 => vec![("Bash", BASH_MAX_RESULT_SIZE_CHARS, 45_000)],
        _ => vec![("Read", usize::MAX, 150_000), ("Read", usize::MAX, 90_000)],
    }
}

/// Log-like deterministic text of exactly `n` ASCII chars.
fn text(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut s = String::with_capacity(n + 80);
    let mut line = 0u64;
    while s.len() < n {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s.push_str(&format!(
            "{line:06} src/module_{:x}.rs: value {:016x}\n",
            x >> 60,
            x
        ));
        line += 1;
    }
    s.truncate(n);
    s
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Raw,
    R1Only,
    Pipeline,
}

struct Outcome {
    total_request_bytes: usize,
    last_request_bytes: usize,
    pipeline_time: Duration,
}

async fn run(mode: Mode, data_dir: &Path) -> Outcome {
    let storage = ToolResultStorage::new(data_dir, Path::new("/bench/project"), "bench");
    let mut state = ContentReplacementState::default();
    let mut history = vec![Message::user_text("Investigate the failing build.")];
    let mut total = 0;
    let mut last = 0;
    let mut pipeline_time = Duration::ZERO;
    for turn in 0..TURNS {
        let started = Instant::now();
        let view = if mode == Mode::Pipeline {
            enforce_tool_result_budget(
                &history,
                &mut state,
                DEFAULT_PER_MESSAGE_BUDGET_CHARS,
                &storage,
                &|_: &str| false,
            )
            .await
        } else {
            history.clone()
        };
        pipeline_time += started.elapsed();
        last = serde_json::to_vec(&view).map_or(0, |b| b.len());
        total += last;

        let calls = script(turn);
        let mut uses = Vec::new();
        let mut results = Vec::new();
        for (i, (tool, threshold, size)) in calls.into_iter().enumerate() {
            let id = format!("toolu_{turn:02}_{i}");
            uses.push(ContentBlock::tool_use(
                id.clone(),
                tool,
                serde_json::json!({}),
            ));
            let output = text((turn * 10 + i) as u64, size);
            let started = Instant::now();
            let block = if mode == Mode::Raw {
                ToolResultBlock::text(id, output, false)
            } else {
                process_tool_result(&storage, tool, threshold, &id, ToolOutput::text(output)).await
            };
            pipeline_time += started.elapsed();
            results.push(ContentBlock::ToolResult(block));
        }
        history.push(Message::assistant(uses));
        history.push(Message::user(results));
    }
    Outcome {
        total_request_bytes: total,
        last_request_bytes: last,
        pipeline_time,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let dir = tempfile::tempdir()?;
    println!("{TURNS}-turn session, messages bytes per request (system/tools excluded)");
    println!(
        "{:<28} {:>20} {:>18} {:>14}",
        "mode", "total request bytes", "last request bytes", "pipeline time"
    );
    for (name, mode) in [
        ("no pipeline", Mode::Raw),
        ("R1 only (persist-if-large)", Mode::R1Only),
        ("R1 + R2 budget (200k)", Mode::Pipeline),
    ] {
        let sub = dir.path().join(name.replace(' ', "_"));
        let o = run(mode, &sub).await;
        println!(
            "{name:<28} {:>20} {:>18} {:>11.1} ms",
            o.total_request_bytes,
            o.last_request_bytes,
            o.pipeline_time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
