#!/bin/sh
# Overhead of a no-op PreToolUse hook per tool call (issue 13).
# Results: docs/PERFORMANCE.md, section "Hooks".
set -eu
cd "$(dirname "$0")/.."
exec cargo run --release -q -p orbit-hooks --example pre_tool_use_bench
