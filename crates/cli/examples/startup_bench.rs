//! Startup and turn-overhead benchmark of the `orbit` binary (issue 2),
//! measured against the fake Anthropic server with server-side timestamps.
//!
//! - start → first request byte: `Instant` just before `spawn` to the
//!   server's `received_at` of the first request (one text turn).
//! - client gap of a Read turn: the server's `responded_at` of response 1
//!   (after `message_stop` was written) to `received_at` of request 2; it
//!   covers the client finishing the stream, running Read, and sending.
//! - client gap of a Bash turn running `true`, with `--sandbox
//!   workspace-write` and `--sandbox danger-full-access` (the sandbox's
//!   cost per call is their difference), beside the floor: `bash -c true`
//!   spawned and waited for by this process (no orbit in it). A second
//!   argument, a base binary, joins these rounds.
//! - peak RSS of a 3-turn run (Read → Bash → text): GNU time's `%M` of the
//!   orbit process (wait4's ru_maxrss of that one child).
//!
//! Run with `bench/startup.sh` (release build). Not a test: it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/measure.rs"]
mod measure;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use measure::{GNU_TIME, rss_kib};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Runs per timing measurement; the median and extremes are reported.
const RUNS: usize = 20;
/// Rounds of the Bash-turn comparison (each runs every configuration).
const BASH_RUNS: usize = 40;
/// Runs of the 3-turn session for the peak RSS; the maximum is reported.
const RSS_RUNS: usize = 5;
/// `orbit ARGS…` in `dir` (also its HOME) against `server`.
fn orbit(
    bin: &Path,
    server: &FakeAnthropic,
    dir: &Path,
    args: &[&str],
    rss_report: Option<&Path>,
) -> Command {
    measure::orbit_in(bin, server.env(), dir, args, rss_report)
}

fn stats(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label}: median {:.2} ms, min {:.2} ms, max {:.2} ms ({} runs)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
}

/// A scratch dir with `notes.txt`; returns the dir and the file's path.
fn scratch() -> (TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "alpha\nbeta\n").unwrap();
    (dir, file.display().to_string())
}

/// (start → first request byte, first request body size in bytes).
fn start_to_first_byte(bin: &Path) -> (Duration, usize) {
    let (dir, _) = scratch();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(bin, &server, dir.path(), &["-p", "hi"], None);
    let t0 = Instant::now();
    let status = cmd.status().unwrap();
    assert!(status.success(), "orbit failed: {status}");
    let first = server.requests().remove(0);
    (first.received_at - t0, first.raw_body.len())
}

/// The client gap of a turn whose one call is `tool` with `input` (built
/// from the scratch file's path), `orbit ARGS` run in the scratch dir.
fn turn_gap(bin: &Path, tool: &str, input: impl Fn(&str) -> Value, args: &[&str]) -> Duration {
    let (dir, file) = scratch();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", tool, input(&file)),
        Reply::text("done"),
    ]);
    let status = orbit(bin, &server, dir.path(), args, None)
        .status()
        .unwrap();
    assert!(status.success(), "orbit failed: {status}");
    let reqs = server.requests();
    let finished = reqs[0].responded_at.expect("response 1 finished");
    reqs[1].received_at - finished
}

fn read_turn_gap(bin: &Path) -> Duration {
    let input = |file: &str| json!({ "file_path": file });
    turn_gap(bin, "Read", input, &["-p", "read it"])
}

/// The client gap of a turn whose Bash call runs `true` under `--sandbox
/// mode`.
fn bash_turn_gap(bin: &Path, mode: &str) -> Duration {
    let args = ["-p", "run it", "--allowedTools", "Bash", "--sandbox", mode];
    turn_gap(bin, "Bash", |_| json!({ "command": "true" }), &args)
}

/// `bash -c true` spawned and waited for: the floor of a Bash turn.
fn bare_bash() -> Duration {
    let t = Instant::now();
    let status = Command::new("bash").args(["-c", "true"]).status().unwrap();
    assert!(status.success());
    t.elapsed()
}

/// Peak RSS in KiB of one Read → Bash → text run.
fn three_turn_peak_rss_kib(bin: &Path) -> u64 {
    let (dir, file) = scratch();
    let server = FakeAnthropic::start(vec![
        Reply::turn(Turn::new().text("Reading.").tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": file}),
        )),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "echo hi"})),
        Reply::text("All done."),
    ]);
    let report = dir.path().join("rss.txt");
    let args = ["-p", "go", "--allowedTools", "Bash"];
    let status = orbit(bin, &server, dir.path(), &args, Some(&report))
        .status()
        .unwrap();
    assert!(status.success(), "orbit failed: {status}");
    assert_eq!(server.request_count(), 3);
    rss_kib(&report)
}

fn main() {
    let bin = measure::orbit_bin();
    assert!(
        bin.exists(),
        "no binary at {} (build with --release)",
        bin.display()
    );
    // Runs change directory, so the path must not be relative.
    let bin = bin.canonicalize().unwrap();
    println!("binary: {}", bin.display());

    // Warm the page cache and the dynamic loader once.
    let (_, body_bytes) = start_to_first_byte(&bin);
    println!("first request body (default prompt, built-in tools): {body_bytes} bytes");
    stats(
        "start -> first request byte",
        (0..RUNS).map(|_| start_to_first_byte(&bin).0).collect(),
    );
    stats(
        "client gap, Read turn",
        (0..RUNS).map(|_| read_turn_gap(&bin)).collect(),
    );
    // Interleaved, so every configuration sees the same machine; with a
    // second binary (the base), it runs in the same rounds.
    let base = std::env::args_os()
        .nth(2)
        .map(|b| std::path::PathBuf::from(b).canonicalize().unwrap());
    let mut bins = vec![("this", bin.clone())];
    bins.extend(base.map(|b| ("base", b)));
    let modes = ["workspace-write", "danger-full-access"];
    let mut gaps = vec![Vec::new(); bins.len() * modes.len()];
    let mut bare = Vec::new();
    for _ in 0..BASH_RUNS {
        for (i, (_, b)) in bins.iter().enumerate() {
            for (j, mode) in modes.iter().enumerate() {
                gaps[i * modes.len() + j].push(bash_turn_gap(b, mode));
            }
        }
        bare.push(bare_bash());
    }
    let median = |v: &[Duration]| {
        let mut v = v.to_vec();
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    for (i, (tag, _)) in bins.iter().enumerate() {
        for (j, mode) in modes.iter().enumerate() {
            stats(
                &format!("client gap, Bash `true` turn, {tag}, {mode}"),
                gaps[i * modes.len() + j].clone(),
            );
        }
        println!(
            "sandbox cost per Bash call ({tag}): {:.2} ms (difference of the medians)",
            median(&gaps[i * modes.len()]) - median(&gaps[i * modes.len() + 1])
        );
    }
    stats("floor: `bash -c true` spawned and waited for", bare);
    if Path::new(GNU_TIME).exists() {
        let peak = (0..RSS_RUNS)
            .map(|_| three_turn_peak_rss_kib(&bin))
            .max()
            .unwrap_or(0);
        println!(
            "peak RSS of a 3-turn run: {:.1} MiB (max of {RSS_RUNS} runs)",
            peak as f64 / 1024.0
        );
    } else {
        println!("peak RSS: skipped, {GNU_TIME} not found (apt-get install time)");
    }
}
