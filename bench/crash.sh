#!/usr/bin/env bash
# Issue 11 acceptance, full size: SIGKILL the `orbit` binary at 100 random
# points of a scripted session (timed, inside fdatasync, summary request in
# flight, right after the compaction boundary) and resume each (crates/cli/tests/suite/crash.rs;
# `cargo test` runs 10). ORBIT_CRASH_SEED=N replays another sequence.
# Results are recorded in docs/PERFORMANCE.md ("Sessions").
set -euo pipefail
cd "$(dirname "$0")/.."
ORBIT_CRASH_POINTS="${ORBIT_CRASH_POINTS:-100}" \
  cargo test -p orbit-cli --test all crash::sigkill_at_random_points_always_resumes_cleanly -- --nocapture
