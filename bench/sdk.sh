#!/usr/bin/env bash
# Claude Agent SDK benchmark (issue 15): the same Python SDK program
# (bench/sdk_bench.py) with orbit and with Claude Code as its CLI, same fake
# server, interleaved runs (crates/cli/examples/sdk_bench.rs). Needs the SDK
# venv of .ci/run and Claude Code (bench/install-claude-code.sh).
# Results: docs/PERFORMANCE.md ("Claude Agent SDK").
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE="$(bench/install-claude-code.sh)"
cargo build --release -p orbit-cli --bin orbit
# The driver only orchestrates (server, interleaving): a dev build will do.
cargo run -q -p orbit-cli --example sdk_bench -- target/release/orbit "$CLAUDE"
