#!/usr/bin/env bash
# MCP benchmark (issue 14): release build of `orbit`, then
# crates/cli/examples/mcp_bench.rs against the fake server and the Python SDK
# test server (installed by .ci/run), interleaved with Claude Code running
# the same scripts (bench/install-claude-code.sh installs it; NO_CLAUDE=1
# measures orbit alone). Results: docs/PERFORMANCE.md ("MCP").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p orbit-cli --bin orbit
CLAUDE=()
if [ -z "${NO_CLAUDE:-}" ]; then
  CLAUDE=("$(bench/install-claude-code.sh)")
fi
cargo run --release -q -p orbit-cli --example mcp_bench -- target/release/orbit "${CLAUDE[@]}"
