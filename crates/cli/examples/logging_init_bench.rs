//! Start-up cost of orbit's `tracing` subscriber (issue 9, item 19): the
//! time `logging::init` takes in a fresh process (cold code, first
//! allocations: what `orbit -p` pays), for the default set-up, `-d`, and
//! an `ORBIT_LOG` filter. Each sample is its own child process, since the
//! subscriber can be installed once per process.
//!
//! `cargo run --release -p orbit-cli --example logging_init_bench`. Not a
//! test: it reports. The budget is ≈ 0.5 ms for the default set-up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../src/logging.rs"]
mod logging;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Child processes per mode; the median and extremes are reported.
const RUNS: usize = 50;
/// Set in a child: which mode to time.
const CHILD_ENV: &str = "LOGGING_INIT_BENCH_MODE";

fn child(mode: &str) {
    let filter = std::env::var(logging::ENV_LOG).ok();
    let options = logging::LogOptions {
        debug: mode == "debug",
        debug_file: (mode == "debug-file").then_some(Path::new("/dev/null")),
        filter: filter.as_deref(),
    };
    let started = Instant::now();
    logging::init(options).unwrap();
    let took = started.elapsed();
    // A disabled and an enabled-by-debug event after the set-up, as orbit has.
    tracing::debug!(mode, "initialised");
    println!("{}", took.as_nanos());
}

fn sample(mode: &str, orbit_log: Option<&str>) -> Duration {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.env_clear()
        .env(CHILD_ENV, mode)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    if let Some(filter) = orbit_log {
        cmd.env(logging::ENV_LOG, filter);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let nanos: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    Duration::from_nanos(nanos)
}

fn main() {
    if let Ok(mode) = std::env::var(CHILD_ENV) {
        child(&mode);
        return;
    }
    for (label, mode, orbit_log) in [
        ("default (warn, plain format)", "default", None),
        ("-d (orbit=debug, to stderr)", "debug", None),
        ("--debug-file /dev/null", "debug-file", None),
        (
            "ORBIT_LOG=orbit_model=trace",
            "default",
            Some("orbit_model=trace"),
        ),
    ] {
        let mut samples: Vec<Duration> = (0..RUNS).map(|_| sample(mode, orbit_log)).collect();
        samples.sort();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{label}: median {:.1} µs, min {:.1} µs, max {:.1} µs ({RUNS} processes)",
            us(samples[RUNS / 2]),
            us(samples[0]),
            us(samples[RUNS - 1])
        );
    }
}
