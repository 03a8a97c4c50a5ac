//! Overhead of a no-op PreToolUse hook per tool call (issue 13; target
//! ≤ 5 ms): `Hooks::run` for one Bash call, as the orchestrator makes it,
//! on the CLI's one-thread runtime. Cases: no hook configured (the
//! baseline: nothing is spawned), `true` (sh only), a bash script that
//! reads its input, a python3 script that parses it.
//!
//! Run: `cargo run --release -p orbit-hooks --example pre_tool_use_bench`
//! (results go to docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use orbit_hooks::{HookEvent, HookSet, Hooks};
use serde_json::json;

const CALLS: usize = 200;

fn stats(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

fn hooks(dir: &std::path::Path, command: Option<&str>) -> Hooks {
    let value = match command {
        Some(c) => {
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": c}]}]})
        }
        None => json!({}),
    };
    Hooks::new(HookSet::parse(&value, "bench", "user").unwrap(), dir)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let script = |name: &str, text: &str| {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    let bash = script("noop.sh", "#!/bin/bash\ncat > /dev/null\n");
    let python = script(
        "noop.py",
        "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\n",
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let input = json!({
        "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": dir.path(),
        "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": "cargo test"}, "tool_use_id": "toolu_1",
    });
    let cases = [
        ("no hook (baseline)", None),
        ("`true` (sh -c)", Some("true")),
        ("bash script, reads stdin", Some(bash.as_str())),
        ("python3 script, parses stdin", Some(python.as_str())),
    ];
    let mut baseline = Duration::ZERO;
    println!("| hook | median per call | p90 | overhead vs baseline (median) |");
    println!("|---|---:|---:|---:|");
    for (name, command) in cases {
        let hooks = hooks(dir.path(), command);
        let times: Vec<Duration> = (0..CALLS)
            .map(|_| {
                let started = Instant::now();
                let verdict =
                    runtime.block_on(hooks.run(HookEvent::PreToolUse, Some("Bash"), input.clone()));
                let elapsed = started.elapsed();
                assert!(verdict.errors.is_empty(), "{:?}", verdict.errors);
                elapsed
            })
            .collect();
        let (median, p90) = stats(times);
        if command.is_none() {
            baseline = median;
        }
        println!(
            "| {name} | {:.3} ms | {:.3} ms | {:.3} ms |",
            median.as_secs_f64() * 1e3,
            p90.as_secs_f64() * 1e3,
            median.saturating_sub(baseline).as_secs_f64() * 1e3
        );
    }
}
