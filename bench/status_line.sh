#!/usr/bin/env bash
# Keystroke latency of orbit's interactive UI with a statusLine command
# that is absent, hangs (`sleep 30`), or is slow (0.2 s per run), in a
# 100×30 pane of a private tmux server. Each sample: `send-keys` of one
# unique letter, then `capture-pane` polled every ~2 ms until the letter
# shows in the input box; the time from send to seen is the latency.
# No model request is made (nothing is submitted).
#
#   cargo build --release -p orbit-cli
#   bench/status_line.sh [SAMPLES=40]
#
# Prints one line per setup: median and p95 in ms.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SAMPLES=${1:-40}
ORBIT=$(realpath "${ORBIT_BIN:-$ROOT/target/release/orbit}")
W=$(mktemp -d /tmp/status_line_bench.XXXXXX)
SOCK="status-line-bench-$$"
T() { tmux -L "$SOCK" "$@"; }
cleanup() { T kill-server 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT

now_ms() { date +%s%3N; }
screen() { T capture-pane -p -t bench 2>/dev/null || true; }

# run NAME STATUS_COMMAND (empty: no statusLine)
run() {
  local name=$1 command=$2 home="$W/$1/home" proj="$W/$1/proj"
  mkdir -p "$home/.orbit" "$proj"
  if [ -n "$command" ]; then
    printf '{"statusLine": {"type": "command", "command": "%s"}}' "$command" >"$home/.orbit/settings.json"
  fi
  T new-session -d -s bench -x 100 -y 30 -c "$proj" \
    env -i PATH="$PATH" HOME="$home" ORBIT_HOME="$home/.orbit" TERM=tmux-256color \
    ANTHROPIC_API_KEY=sk-ant-fake-bench-key ANTHROPIC_BASE_URL=http://127.0.0.1:9 "$ORBIT"
  local end=$((SECONDS + 20))
  until screen | grep -q "ctx "; do
    [ $SECONDS -lt $end ] || { echo "$name: the UI did not start" >&2; screen >&2; exit 1; }
    sleep 0.05
  done
  sleep 1
  local samples=() letters=abcdefghijklmnopqrstuvwxyz i t0 seen
  for ((i = 0; i < SAMPLES; i++)); do
    local typed="${letters:i%26:1}${letters:(i/26)%26:1}q"
    t0=$(now_ms)
    T send-keys -t bench -l "$typed"
    until screen | grep -q "$typed"; do sleep 0.002; done
    seen=$(now_ms)
    samples+=($((seen - t0)))
    # Clear the input box for the next sample.
    T send-keys -t bench C-u
    while screen | grep -q "$typed"; do sleep 0.002; done
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk -v name="$name" '
    { v[NR] = $1 } END { printf "%-8s median %3d ms  p95 %3d ms  (n=%d)\n", name, v[int((NR + 1) / 2)], v[int(NR * 0.95 + 0.5)], NR }'
  T kill-session -t bench
}

run none ""
run hanging "sleep 30"
run slow "sleep 0.2; echo slow-status"
