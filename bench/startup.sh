#!/usr/bin/env bash
# Startup and turn-overhead benchmark (issue 2): release build of `orbit`,
# then crates/cli/examples/startup_bench.rs against the fake server.
# Results are recorded in docs/PERFORMANCE.md ("Startup and turn overhead").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p orbit-cli --bin orbit
ci/check-binary-size target/release/orbit
cargo run --release -q -p orbit-cli --example startup_bench -- target/release/orbit
