//! The added cost per Bash call of watching what a command changed
//! (`builtin/bash/changes.rs`), by its parts through the public APIs it
//! uses: the parse and `file_access` every call pays, and for a command
//! that names written files the checkpoint probe before and after (here a
//! 1 KiB file that `sed -i` would leave unchanged).
//!
//! Run: `cargo run --release -p orbit-tools --example bash_watch_cost`.

use std::time::Instant;

const ROUNDS: u32 = 2_000;

fn per_call_us(mut f: impl FnMut()) -> f64 {
    for _ in 0..100 {
        f();
    }
    let start = Instant::now();
    for _ in 0..ROUNDS {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(ROUNDS)
}

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("orbit-watch-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("app.cfg");
    std::fs::write(&file, "level=info\n".repeat(93))?;
    let echo = per_call_us(|| {
        let script = orbit_shell::parse("echo hi").ok();
        let writes = script.map(|s| s.file_access().writes.len());
        assert_eq!(writes, Some(0));
    });
    let sed = "sed -i 's/level=debug/level=trace/' app.cfg";
    let parse = per_call_us(|| {
        let script = orbit_shell::parse(sed).ok();
        let named = script.map(|s| (s.file_access().writes.len(), s.writes_are_named()));
        assert_eq!(named, Some((1, true)));
    });
    let paths = [file.clone()];
    let probe = per_call_us(|| {
        let probe = orbit_checkpoint::Probe::keeping(&paths, &dir);
        assert!(probe.changes().is_empty());
    });
    println!("echo hi: parse + file_access (no path named): {echo:.1} µs per call");
    println!(
        "sed -i on a 1 KiB file: parse + analysis {parse:.1} µs, probe before + after {probe:.1} µs, total {:.1} µs",
        parse + probe
    );
    std::fs::remove_dir_all(&dir)
}
