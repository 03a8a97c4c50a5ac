#!/usr/bin/env bash
# orbit's interactive UI vs Claude Code's, in the same tmux setup (a 100×30
# pane of a private tmux server, TERM=tmux-256color) against the same fake
# Anthropic server (crates/tui/examples/tui_compare_server.rs: every
# request gets a streamed reply chosen from its prompt, so Claude Code's side
# requests never exhaust a script).
#
# Per agent:
#   - bytes written to the pty during one streamed answer of TOKENS tokens
#     (tmux pipe-pane into a file; from Enter until the last token is on the
#     screen and the pane has been quiet for 1 s) → bytes per token;
#   - RSS (VmRSS of the pane's process) at start and after TURNS scripted
#     turns (send-keys "turn N" + Enter, wait for "answer-N-done").
#
#   cargo build --release -p orbit-cli -p orbit-tui --example tui_compare_server
#   bench/tui_compare.sh [TOKENS=400] [TURNS=500] [AGENTS="orbit claude"]
#
# Claude Code is installed pinned by bench/install-claude-code.sh; its
# first-run dialogs are pre-answered in a throwaway HOME/CLAUDE_CONFIG_DIR.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOKENS=${1:-400}
TURNS=${2:-500}
AGENTS=${3:-orbit claude}
ORBIT=${ORBIT_BIN:-$ROOT/target/release/orbit}
SERVER=${TUI_COMPARE_SERVER:-$ROOT/target/release/examples/tui_compare_server}
KEY=sk-ant-fake-bench-key-0123456789abcdefghij
W=$(mktemp -d /tmp/tui_compare.XXXXXX)
SOCK="tui-compare-$$"
T() { tmux -L "$SOCK" "$@"; }

cleanup() {
  T kill-server 2>/dev/null || true
  if [ -n "${SRV_PID:-}" ]; then exec {SRV[1]}>&- 2>/dev/null || true; wait "$SRV_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

coproc SRV { exec "$SERVER" "$TOKENS" 2>"$W/server.log"; }
SRV_PID=$!
read -r line <&"${SRV[0]}"
BASE=${line#ANTHROPIC_BASE_URL=}
echo "fake server: $BASE (work dir $W)" >&2

screen() { T capture-pane -p -J -S -200 -t bench 2>/dev/null || true; }
size() { stat -c %s "$W/$1.pty"; }
# wait_screen REGEX SECONDS
wait_screen() {
  local end=$((SECONDS + $2))
  until screen | grep -Eq "$1"; do
    if [ $SECONDS -ge $end ]; then
      echo "timed out waiting for /$1/; screen:" >&2; screen | tail -30 >&2; return 1
    fi
    sleep 0.05
  done
}
# wait_quiet NAME: until the pty log has not grown for 1 s
wait_quiet() {
  local last now same=0
  last=$(size "$1")
  while [ $same -lt 10 ]; do
    sleep 0.1; now=$(size "$1")
    if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; last=$now; fi
  done
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

run_agent() {
  local name=$1 home="$W/$1-home" project="$W/$1-project" cmd ready
  mkdir -p "$home" "$project"
  case $name in
    orbit)
      cmd="exec env HOME='$home' ORBIT_HOME='$home/.orbit' ANTHROPIC_BASE_URL='$BASE' ANTHROPIC_API_KEY='$KEY' '$ORBIT'"
      ready='ctx '
      ;;
    claude)
      local claude
      claude=$("$ROOT/bench/install-claude-code.sh")
      mkdir -p "$home/.claude"
      local config
      config=$(printf '{"hasCompletedOnboarding":true,"lastOnboardingVersion":"2.1.332","theme":"dark","bypassPermissionsModeAccepted":true,"customApiKeyResponses":{"approved":["%s"],"rejected":[]},"projects":{"%s":{"hasTrustDialogAccepted":true,"hasCompletedProjectOnboarding":true,"allowedTools":[]}}}' \
        "${KEY: -20}" "$project")
      echo "$config" >"$home/.claude.json"
      echo "$config" >"$home/.claude/.claude.json"
      cmd="exec env HOME='$home' CLAUDE_CONFIG_DIR='$home/.claude' ANTHROPIC_BASE_URL='$BASE' ANTHROPIC_API_KEY='$KEY' DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 '$claude'"
      ready='for shortcuts|\? for|^[[:space:]]*[>❯]'
      ;;
  esac
  : >"$W/$name.pty"
  printf 'set -g default-terminal tmux-256color\nset -s escape-time 0\nset -g history-limit 5000\n' >"$W/tmux.conf"
  T -f "$W/tmux.conf" new-session -d -s bench -x 100 -y 30 -c "$project" "sleep 0.3; $cmd"
  T pipe-pane -t bench -o "cat >> '$W/$name.pty'"
  wait_screen "$ready" 60
  wait_quiet "$name"
  local pid
  pid=$(T display-message -p -t bench '#{pane_pid}')

  # Bytes per streamed token.
  T send-keys -t bench -l "stream please"
  sleep 0.5
  wait_quiet "$name"
  local before after
  before=$(size "$name")
  T send-keys -t bench Enter
  wait_screen "tok$((TOKENS - 1))" 120
  wait_quiet "$name"
  after=$(size "$name")
  local bytes=$((after - before))

  # RSS after TURNS turns.
  local rss0 start i
  rss0=$(rss_kib "$pid")
  start=$(date +%s.%N)
  for ((i = 0; i < TURNS; i++)); do
    T send-keys -t bench -l "turn $i"
    T send-keys -t bench Enter
    wait_screen "answer-$i-done" 120
    if (((i + 1) % 100 == 0)); then
      printf '%s: RSS %.1f MiB after %d turns\n' "$name" "$(echo "$(rss_kib "$pid") / 1024" | bc -l)" $((i + 1))
    fi
  done
  local secs rss1
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  sleep 1
  rss1=$(rss_kib "$pid")
  printf '%s: %d bytes for %d tokens = %.1f bytes/token; RSS %.1f MiB at start, %.1f MiB after %d turns (%.1f s, %.0f ms/turn)\n' \
    "$name" "$bytes" "$TOKENS" "$(echo "$bytes / $TOKENS" | bc -l)" \
    "$(echo "$rss0 / 1024" | bc -l)" "$(echo "$rss1 / 1024" | bc -l)" "$TURNS" "$secs" \
    "$(echo "$secs * 1000 / ($TURNS + ($TURNS == 0))" | bc -l)"
  screen | tail -8 >"$W/$name.screen"
  T kill-server
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for a in $AGENTS; do run_agent "$a"; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
