//! Startup and turn-overhead benchmark of the `orbit` binary (issue 2),
//! measured against the fake Anthropic server with server-side timestamps.
//!
//! - start → first request byte: `Instant` just before `spawn` to the
//!   server's `received_at` of the first request (one text turn).
//! - client gap of a Read turn: the server's `responded_at` of response 1
//!   (after `message_stop` was written) to `received_at` of request 2; it
//!   covers the client finishing the stream, running Read, and sending.
//! - peak RSS of a 3-turn run (Read → Bash → text): `ru_maxrss` of waited
//!   children (orbit is the largest; its bash child is smaller).
//!
//! Run with `bench/startup.sh` (release build). Not a test: it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

/// Runs per measurement; the median and extremes are reported.
const RUNS: usize = 20;

struct Scratch {
    dir: tempfile::TempDir,
}

fn orbit(bin: &Path, server: &FakeAnthropic, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ORBIT_HOME", dir.join(".orbit"))
        .envs(server.env())
        .current_dir(dir)
        .args(["--output-format", "stream-json"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
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

fn start_to_first_byte(bin: &Path) -> Duration {
    let scratch = Scratch {
        dir: tempfile::tempdir().unwrap(),
    };
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(bin, &server, scratch.dir.path(), &["-p", "hi"]);
    let t0 = Instant::now();
    let status = cmd.status().unwrap();
    assert!(status.success(), "orbit failed: {status}");
    let req = server.requests().remove(0);
    req.received_at - t0
}

fn read_turn_gap(bin: &Path) -> Duration {
    let scratch = Scratch {
        dir: tempfile::tempdir().unwrap(),
    };
    let file = scratch.dir.path().join("notes.txt");
    std::fs::write(&file, "alpha\nbeta\n").unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": file.display().to_string()}),
        ),
        Reply::text("done"),
    ]);
    let status = orbit(bin, &server, scratch.dir.path(), &["-p", "read it"])
        .status()
        .unwrap();
    assert!(status.success(), "orbit failed: {status}");
    let reqs = server.requests();
    let finished = reqs[0].responded_at.expect("response 1 finished");
    reqs[1].received_at - finished
}

fn three_turn_run(bin: &Path) {
    let scratch = Scratch {
        dir: tempfile::tempdir().unwrap(),
    };
    let file = scratch.dir.path().join("notes.txt");
    std::fs::write(&file, "alpha\nbeta\n").unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::turn(Turn::new().text("Reading.").tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": file.display().to_string()}),
        )),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "echo hi"})),
        Reply::text("All done."),
    ]);
    let args = ["-p", "go", "--allowedTools", "Bash"];
    let status = orbit(bin, &server, scratch.dir.path(), &args)
        .status()
        .unwrap();
    assert!(status.success(), "orbit failed: {status}");
    assert_eq!(server.request_count(), 3);
}

fn main() {
    let bin: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/orbit"));
    assert!(
        bin.exists(),
        "no binary at {} (build with --release)",
        bin.display()
    );
    println!("binary: {}", bin.display());

    // Warm the page cache and the dynamic loader once.
    start_to_first_byte(&bin);
    stats(
        "start -> first request byte",
        (0..RUNS).map(|_| start_to_first_byte(&bin)).collect(),
    );
    stats(
        "client gap, Read turn",
        (0..RUNS).map(|_| read_turn_gap(&bin)).collect(),
    );

    // Only 3-turn runs from here on count for the children's peak RSS; the
    // runs above are similar and smaller, so the maximum is this run's.
    for _ in 0..5 {
        three_turn_run(&bin);
    }
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap();
    println!(
        "peak RSS of a 3-turn run: {:.1} MiB (ru_maxrss over all runs)",
        usage.max_rss() as f64 / 1024.0
    );
}
