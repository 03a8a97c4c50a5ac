#!/usr/bin/env bash
# MCP benchmark (issue 14): release build of `orbit`, then
# crates/cli/examples/mcp_bench.rs against the fake server and the Python SDK
# test server (installed by .ci/run). Results: docs/PERFORMANCE.md ("MCP").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p orbit-cli --bin orbit
cargo run --release -q -p orbit-cli --example mcp_bench -- target/release/orbit
