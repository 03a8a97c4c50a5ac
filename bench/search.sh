#!/usr/bin/env bash
# Search-tool benchmark (DESIGN T4 / issue 3): Grep and Glob vs ripgrep on a
# generated tree of >= 100k files / >= 1 GB, plus Read of a 10 MB file.
# Not a test: prints timings; record them in docs/PERFORMANCE.md.
#
# Usage: bench/search.sh [FILES] [RUNS]     (defaults: 100000 files, 5 runs)
# Env:   BENCH_DIR (default /tmp/orbit-search-bench), KEEP_TREE=1 to keep it.
set -euo pipefail

FILES="${1:-100000}"
RUNS="${2:-5}"
DIR="${BENCH_DIR:-/tmp/orbit-search-bench}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v rg >/dev/null 2>&1; then
  echo "installing ripgrep from Debian…"
  apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null
fi

cleanup() {
  if [ "${KEEP_TREE:-0}" != 1 ]; then
    rm -rf "$DIR" "$DIR.read10mb.txt"
  fi
}
trap cleanup EXIT

cd "$ROOT"
cargo build --release -q -p orbit-tools --example search_bench
BIN="$ROOT/target/release/examples/search_bench"

if [ ! -d "$DIR" ]; then
  "$BIN" generate "$DIR" "$FILES"
fi
echo "tree: $(find "$DIR" -type f | wc -l) files, $(du -sh "$DIR" | cut -f1); $(rg --version | head -1); $(nproc) cores"
"$BIN" run "$DIR" "$RUNS"
