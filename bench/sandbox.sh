#!/usr/bin/env bash
# Issue 18: the OS sandbox's cost. (1) Per Bash call: `bash -c true` started
# directly vs through `orbit sandbox -- bash -c true` (the helper on every
# sandboxed call's path: mount namespace, Landlock, seccomp, exec), median of
# N runs each, interleaved. (2) `cargo build` of a small crate (one
# dependency-free lib + bin, cold target dir) with vs without the sandbox.
# Not a test: prints numbers; record them in docs/PERFORMANCE.md.
# Usage: bench/sandbox.sh [path/to/orbit] [runs]   (default target/release/orbit, 200)
set -euo pipefail
cd "$(dirname "$0")/.."
ORBIT=$(realpath "${1:-target/release/orbit}")
RUNS=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 - "$ORBIT" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
orbit, runs = sys.argv[1], int(sys.argv[2])
cmds = {
    "direct":    ["bash", "-c", "true"],
    "sandboxed": [orbit, "sandbox", "--", "bash", "-c", "true"],
}
times = {k: [] for k in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        t = time.perf_counter()
        subprocess.run(cmd, check=True)
        times[name].append((time.perf_counter() - t) * 1000)
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in times.items():
    print(f"per call {k:9}: median {med[k]:.2f} ms  p90 {sorted(v)[int(len(v) * 0.9)]:.2f} ms  ({runs} runs)")
print(f"per call overhead: {med['sandboxed'] - med['direct']:.2f} ms median ({med['sandboxed'] / med['direct']:.2f}x)")
PY

mkdir -p tiny/src
printf '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n' > tiny/Cargo.toml
for i in $(seq 1 40); do printf 'pub fn f%d(x: u64) -> u64 { x.wrapping_mul(%d).rotate_left(3) }\n' "$i" "$i"; done > tiny/src/lib.rs
printf 'fn main() { println!("{}", tiny::f1(2)); }\n' > tiny/src/main.rs
cd tiny
build() {
    rm -rf target
    local start=$EPOCHREALTIME
    "$@" cargo build -q --offline
    echo "$EPOCHREALTIME - $start" | bc
}
for round in 1 2 3; do
    d=$(build env)
    s=$(build "$ORBIT" sandbox --)
    echo "cargo build round $round: direct ${d}s sandboxed ${s}s"
done
