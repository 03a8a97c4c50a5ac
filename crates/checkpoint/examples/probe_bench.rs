//! The before/after probe's cost per writing call (issue 34): one
//! `Probe::before` + `Probe::changed` over the paths a call names, for a
//! 4 KiB file, a 1 MiB file and a path that does not exist yet.
//! Run by bench/checkpoint.sh; results in docs/PERFORMANCE.md.

use std::time::Instant;

use orbit_checkpoint::Probe;

const ROUNDS: u32 = 200;

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("orbit-probe-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let small = dir.join("small.txt");
    let large = dir.join("large.bin");
    std::fs::write(&small, vec![b'a'; 4 * 1024])?;
    std::fs::write(&large, vec![b'b'; 1024 * 1024])?;
    for (what, paths) in [
        ("one 4 KiB file", vec![small.clone()]),
        ("one 1 MiB file", vec![large.clone()]),
        ("a path not there yet", vec![dir.join("missing.txt")]),
    ] {
        let started = Instant::now();
        for _ in 0..ROUNDS {
            let probe = Probe::before(&paths);
            assert!(probe.changed().is_empty());
        }
        let per_call_us = started.elapsed().as_micros() / u128::from(ROUNDS);
        println!("probe (before + after) of {what}: {per_call_us} µs per call");
    }
    std::fs::remove_dir_all(&dir)
}
