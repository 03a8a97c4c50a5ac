//! Benchmark of the StreamingToolExecutor (issue 4), through the real
//! Anthropic client over local HTTP:
//!
//! 1. start delay: from the moment the server has written a tool_use's
//!    `content_block_stop` to the moment the tool's `call` begins (target < 1 ms);
//! 2. overlap gain: a tool_use that completes early while the rest of the
//!    message drips for 1 s, with an 800 ms tool: the turn takes ≈ max, not
//!    the sum.
//!
//! Run: `cargo run --release -p orbit-engine --example executor_bench`
//! (results go to docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/bench.rs"]
mod bench;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::BenchTool;
use futures::StreamExt;
use orbit_engine::{EngineConfig, QueryEngine};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::EngineEvent;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::{ToolOutput, ToolRegistry, typed};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// Tool_use blocks streamed in the start-delay run.
const START_SAMPLES: usize = 500;
const DRIP_MS: u64 = 1000;
const TOOL_MS: u64 = 800;

fn engine(
    base_url: String,
    dir: &std::path::Path,
    started: mpsc::UnboundedSender<Instant>,
) -> QueryEngine {
    let client = bench::client(base_url);
    let mut tools = ToolRegistry::new();
    tools.register(typed(BenchTool {
        name: "Probe",
        schema: json!({"type": "object", "properties": {"ms": {"type": "number"}}}),
        // Reports when its call begins, then sleeps `input.ms`.
        call: Box::new(move |input| {
            let _ = started.send(Instant::now());
            Box::pin(async move {
                let ms = input["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                ToolOutput::text("ok")
            })
        }),
    }));
    let config = EngineConfig {
        model: "claude-sonnet-4-5".into(),
        max_tokens: 1024,
        permissions: PermissionConfig {
            mode: PermissionMode::BypassPermissions,
            headless: true,
            ..Default::default()
        },
        session_id: "bench".into(),
        cwd: dir.to_path_buf(),
        data_dir: dir.join(".orbit"),
        max_tool_use_concurrency: START_SAMPLES,
        ..EngineConfig::default()
    };
    QueryEngine::new(config, Arc::new(client), tools)
}

fn sse(event: &str, data: Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Reads one HTTP request (headers + content-length body).
async fn read_request(sock: &mut tokio::net::TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = sock.read(&mut chunk).await.unwrap();
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = sock.read(&mut chunk).await.unwrap();
                buf.extend_from_slice(&chunk[..n]);
            }
            return;
        }
    }
}

/// Serves: request 1 streams START_SAMPLES tool_uses, each written only
/// after the previous tool started, recording the write time of each
/// `content_block_stop`; request 2 answers with text.
async fn start_delay_server(
    listener: TcpListener,
    mut started: mpsc::UnboundedReceiver<Instant>,
    delays: mpsc::UnboundedSender<Duration>,
) {
    const HEAD: &str =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    let (mut sock, _) = listener.accept().await.unwrap();
    read_request(&mut sock).await;
    sock.write_all(HEAD.as_bytes()).await.unwrap();
    let start = json!({"type": "message_start", "message": {"id": "msg_b1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}});
    sock.write_all(sse("message_start", start).as_bytes())
        .await
        .unwrap();
    for i in 0..START_SAMPLES {
        let frames = sse(
            "content_block_start",
            json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": "Probe", "input": {}}}),
        ) + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta", "partial_json": "{\"ms\": 0}"}}),
        ) + &sse(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        );
        sock.write_all(frames.as_bytes()).await.unwrap();
        sock.flush().await.unwrap();
        let written = Instant::now();
        let began = started.recv().await.unwrap();
        delays
            .send(began.saturating_duration_since(written))
            .unwrap();
    }
    let tail = sse(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}}),
    ) + &sse("message_stop", json!({"type": "message_stop"}));
    sock.write_all(tail.as_bytes()).await.unwrap();
    drop(sock);

    let (mut sock, _) = listener.accept().await.unwrap();
    read_request(&mut sock).await;
    let text = sse(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_b2", "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ) + &sse(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ) + &sse(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}}),
    ) + &sse(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ) + &sse(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
    ) + &sse("message_stop", json!({"type": "message_stop"}));
    sock.write_all(format!("{HEAD}{text}").as_bytes())
        .await
        .unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

async fn bench_start_delay() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let (started_tx, started_rx) = mpsc::unbounded_channel();
    let (delay_tx, mut delay_rx) = mpsc::unbounded_channel();
    let server = tokio::spawn(start_delay_server(listener, started_rx, delay_tx));
    let mut engine = engine(base_url, dir.path(), started_tx);
    let events: Vec<EngineEvent> = engine.submit_message("bench".into()).collect().await;
    server.await.unwrap();
    let Some(EngineEvent::Result(r)) = events.last() else {
        panic!("no result")
    };
    assert!(!r.subtype.is_error(), "{r:?}");
    let mut delays = Vec::new();
    while let Ok(d) = delay_rx.try_recv() {
        delays.push(d);
    }
    delays.sort();
    println!(
        "start delay (content_block_stop written -> Tool::call begins), {} samples: \
         median {:?}, p90 {:?}, p99 {:?}, max {:?}",
        delays.len(),
        percentile(&delays, 0.5),
        percentile(&delays, 0.9),
        percentile(&delays, 0.99),
        delays[delays.len() - 1],
    );
}

async fn bench_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Probe", json!({"ms": TOOL_MS}))
                .text("more text that drips in slowly")
                .delay_before_block(1, Duration::from_millis(DRIP_MS)),
        ),
        Reply::text("done"),
    ]);
    let (started_tx, _started_rx) = mpsc::unbounded_channel();
    let mut engine = engine(server.base_url(), dir.path(), started_tx);
    let mut stream = engine.submit_message("bench".into());
    let begin = Instant::now();
    let mut turn = None;
    while let Some(event) = stream.next().await {
        if matches!(event, EngineEvent::UserMessage { .. }) && turn.is_none() {
            turn = Some(begin.elapsed());
        }
    }
    let turn = turn.unwrap();
    let sum = Duration::from_millis(DRIP_MS + TOOL_MS);
    println!(
        "overlap: stream drips {DRIP_MS} ms after the tool_use, tool runs {TOOL_MS} ms: \
         turn (request -> tool results ready) {turn:?}; sequential would be >= {sum:?}; \
         saved {:?} ({:.0}%)",
        sum.saturating_sub(turn),
        100.0 * (sum.as_secs_f64() - turn.as_secs_f64()) / sum.as_secs_f64(),
    );
}

#[tokio::main]
async fn main() {
    bench_start_delay().await;
    bench_overlap().await;
}
