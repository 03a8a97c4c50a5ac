#!/usr/bin/env bash
# Session benchmarks (issue 11): release build of `orbit`, then
# crates/cli/examples/session_bench.rs (transcript append per turn; resume
# of a 5,000-message transcript in process and through the binary).
# Results are recorded in docs/PERFORMANCE.md ("Sessions").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p orbit-cli --bin orbit
cargo run --release -q -p orbit-cli --example session_bench -- target/release/orbit
