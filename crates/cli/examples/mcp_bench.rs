//! MCP benchmark of the `orbit` binary (issue 14), against the fake
//! Anthropic server with server-side timestamps and the Python SDK test
//! server (`tests/fixtures/mcp_server.py`).
//!
//! - start → first request byte with no MCP server and with 3 stdio
//!   servers configured (they connect in the background: the first request
//!   must not wait for them).
//! - per-call overhead of an MCP tool: in one run, turns alternate a call of
//!   the server's `add` and an `LS` of an empty directory; each turn's
//!   client gap (response finished → next request received) is measured.
//!   The server's own time is a direct JSON-RPC `tools/call add` round trip
//!   on the same server's pipes. Overhead = MCP gap − LS gap − direct round
//!   trip.
//!
//! Run with `bench/mcp.sh` (release build). Not a test: it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/measure.rs"]
mod measure;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

/// Runs of the startup measurement.
const RUNS: usize = 10;
/// MCP calls (and as many LS calls) in the overhead run.
const CALLS: usize = 30;

fn python() -> String {
    std::env::var("ORBIT_MCP_PYTHON").unwrap_or_else(|_| {
        format!(
            "{}/.cache/orbit-ci/py/venv/bin/python",
            std::env::var("HOME").unwrap()
        )
    })
}

fn script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_server.py").to_string()
}

fn mcp_config(servers: usize) -> String {
    let map: serde_json::Map<String, Value> = (0..servers)
        .map(|i| {
            (
                format!("py{i}"),
                json!({"command": python(), "args": [script(), "stdio"]}),
            )
        })
        .collect();
    json!({ "mcpServers": map }).to_string()
}

/// `orbit ARGS…` with `dir` as cwd, `HOME` and (below it) `ORBIT_HOME`.
fn orbit(bin: &Path, server: &FakeAnthropic, dir: &Path, args: &[&str]) -> Command {
    measure::orbit_in(bin, server.env(), dir, args, None)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Three stdio "servers" that start at once and use no CPU (`sleep`):
/// what spawning costs orbit, without the servers' own start-up load.
fn idle_config() -> String {
    let idle = json!({"command": "sleep", "args": ["30"]});
    json!({"mcpServers": {"a": idle, "b": idle, "c": idle}}).to_string()
}

fn start_to_first_byte(bin: &Path, config: Option<String>) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut args = vec!["-p", "hi"];
    if let Some(config) = &config {
        args.extend(["--mcp-config", config]);
    }
    let t0 = Instant::now();
    let status = orbit(bin, &server, dir.path(), &args).status().unwrap();
    assert!(status.success());
    server.requests().remove(0).received_at - t0
}

/// (median MCP-call gap, median LS gap).
fn call_gaps(bin: &Path) -> (Duration, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let mut replies = vec![Reply::tool_use(
        "warm",
        "mcp__py0__add",
        json!({"a": 0, "b": 0}),
    )];
    for i in 0..CALLS {
        replies.push(Reply::tool_use(
            format!("m{i}"),
            "mcp__py0__add",
            json!({"a": i, "b": 1}),
        ));
        replies.push(Reply::tool_use(
            format!("l{i}"),
            "LS",
            json!({"path": empty.display().to_string()}),
        ));
    }
    replies.push(Reply::text("done"));
    let server = FakeAnthropic::start(replies);
    let config = mcp_config(1);
    let status = orbit(
        bin,
        &server,
        dir.path(),
        &["-p", "go", "--mcp-config", &config],
    )
    .status()
    .unwrap();
    assert!(status.success());
    let reqs = server.requests();
    let gap = |i: usize| reqs[i + 1].received_at - reqs[i].responded_at.unwrap();
    // Request k+1 follows response k; response 1 + 2i is an MCP call, 2 + 2i an LS.
    let mcp = (0..CALLS).map(|i| gap(1 + 2 * i)).collect();
    let ls = (0..CALLS).map(|i| gap(2 + 2 * i)).collect();
    (median(mcp), median(ls))
}

/// Median of direct `tools/call add` round trips on the server's pipes.
fn direct_round_trip() -> Duration {
    let mut child = Command::new(python())
        .args([script(), "stdio".into()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut send = |v: Value, wait: bool| -> Duration {
        let t0 = Instant::now();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
        if wait {
            line.clear();
            stdout.read_line(&mut line).unwrap();
        }
        t0.elapsed()
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}),
        true,
    );
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let samples = (1..=CALLS as u64)
        .map(|id| {
            send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "add", "arguments": {"a": id, "b": 1}}}), true)
        })
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    median(samples)
}

fn main() {
    let bin: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/orbit"));
    let bin = bin
        .canonicalize()
        .expect("build orbit with --release first");
    println!("binary: {}", bin.display());
    start_to_first_byte(&bin, None);
    let none = median((0..RUNS).map(|_| start_to_first_byte(&bin, None)).collect());
    let idle = median(
        (0..RUNS)
            .map(|_| start_to_first_byte(&bin, Some(idle_config())))
            .collect(),
    );
    let three = median(
        (0..RUNS)
            .map(|_| start_to_first_byte(&bin, Some(mcp_config(3))))
            .collect(),
    );
    println!(
        "start -> first request byte (median of {RUNS}): no MCP server {:.2} ms; 3 idle stdio servers {:.2} ms (ratio {:.2}); 3 Python SDK servers {:.2} ms (ratio {:.2})",
        ms(none),
        ms(idle),
        ms(idle) / ms(none),
        ms(three),
        ms(three) / ms(none)
    );
    let (mcp, ls) = call_gaps(&bin);
    let direct = direct_round_trip();
    println!(
        "client gap: MCP add turn {:.3} ms, LS turn {:.3} ms; direct tools/call round trip {:.3} ms (medians of {CALLS})",
        ms(mcp),
        ms(ls),
        ms(direct)
    );
    println!(
        "MCP per-call overhead above the server's own time: {:.3} ms",
        ms(mcp) - ms(ls) - ms(direct)
    );
}
