//! Claude Agent SDK benchmark (issue 15): the same SDK program
//! (`bench/sdk_bench.py`: a one-shot `query()` and a 3-turn client
//! session) with `orbit` and with Claude Code as its CLI, against one fake
//! Anthropic server that answers every request with a short text, runs
//! interleaved (orbit, claude, claude, orbit, …).
//!
//! Per agent: start (the SDK's `query()` call → the first request byte at
//! the server, both on the wall clock), the one-shot's and the session's
//! wall time as the program sees them, and the agent process's peak RSS
//! (GNU time's `%M`, through a wrapper the SDK runs as its CLI).
//!
//! Usage: `sdk_bench ORBIT CLAUDE` (see `bench/sdk.sh`). Not a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::Value;

/// Runs per agent.
const RUNS: usize = 6;

struct Sample {
    start_ms: f64,
    one_shot_ms: f64,
    session_ms: f64,
    rss_kib: u64,
}

/// A wrapper the SDK runs as its CLI: the agent under GNU time.
fn wrapper(dir: &Path, agent: &Path) -> PathBuf {
    let path = dir.join("agent.sh");
    let script = format!(
        "#!/bin/sh\nexec /usr/bin/time -f %M -o \"$ORBIT_BENCH_RSS\" {} \"$@\"\n",
        agent.display()
    );
    std::fs::write(&path, script).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path
}

fn rss(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.trim().parse().ok())
        .max()
        .unwrap_or(0)
}

fn run(agent: &Path, server: &FakeAnthropic, clock: (Instant, SystemTime)) -> Sample {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cli = wrapper(dir.path(), agent);
    let (rss_one, rss_session) = (dir.path().join("rss1"), dir.path().join("rss2"));
    let before = server.requests().len();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/sdk_bench.py");
    let out = Command::new(measure::python())
        .arg(script)
        .arg(&cli)
        .current_dir(dir.path())
        .env("HOME", home.path())
        .env("ORBIT_HOME", home.path().join(".orbit"))
        .env("CLAUDE_CONFIG_DIR", home.path().join(".claude"))
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("ORBIT_BENCH_RSS_ONE", &rss_one)
        .env("ORBIT_BENCH_RSS_SESSION", &rss_session)
        .envs(server.env())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        agent.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = server.requests()[before].received_at;
    let first_wall = clock.1 + first.duration_since(clock.0);
    let first_s = first_wall.duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
    Sample {
        start_ms: (first_s - line["one_shot_t0"].as_f64().unwrap()) * 1000.0,
        one_shot_ms: line["one_shot_s"].as_f64().unwrap() * 1000.0,
        session_ms: line["session_s"].as_f64().unwrap() * 1000.0,
        rss_kib: rss(&rss_one).max(rss(&rss_session)),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<PathBuf> = std::env::args()
        .skip(1)
        .map(|a| std::fs::canonicalize(a).unwrap())
        .collect();
    let (orbit, claude) = (&args[0], &args[1]);
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, _| Some(Reply::text("ok")));
    let clock = (Instant::now(), SystemTime::now());
    let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
    for i in 0..RUNS {
        let order = if i % 2 == 0 { [0, 1] } else { [1, 0] };
        for which in order {
            let agent = if which == 0 { orbit } else { claude };
            samples[which].push(run(agent, &server, clock));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let summary = |s: &[Sample]| {
        (
            median(s.iter().map(|x| x.start_ms).collect()),
            median(s.iter().map(|x| x.one_shot_ms).collect()),
            median(s.iter().map(|x| x.session_ms).collect()),
            s.iter().map(|x| x.rss_kib).max().unwrap_or(0) as f64 / 1024.0,
        )
    };
    let (o, c) = (summary(&samples[0]), summary(&samples[1]));
    println!("{RUNS} runs each, interleaved; medians (peak RSS: max)");
    println!("| metric | orbit | Claude Code | ratio |");
    println!("|---|---:|---:|---:|");
    let rows = [
        ("start: query() → first request byte", o.0, c.0, "ms"),
        ("one-shot query(), wall", o.1, c.1, "ms"),
        ("3-turn client session, wall", o.2, c.2, "ms"),
        ("agent peak RSS", o.3, c.3, "MiB"),
    ];
    for (name, ov, cv, unit) in rows {
        println!(
            "| {name} | {ov:.1} {unit} | {cv:.1} {unit} | {:.1}× |",
            cv / ov
        );
    }
}
