#!/usr/bin/env bash
# Regenerates crates/cli/link/orbit.order: LLD lays the functions a run
# executes next to each other, so a run touches fewer pages of the binary
# (peak RSS; see crates/cli/build.rs and docs/PERFORMANCE.md, "Claude Agent
# SDK"). Traces a release build under valgrind lackey while the SDK
# program (bench/sdk_bench.py: one-shot query() + 3-turn session) and a
# headless `orbit -p` run drive it against a small fake server. Needs
# valgrind, gdb and the SDK venv of .ci/run. Takes a few minutes.
# bench/link-order.sh [BIN MAP]: trace BIN, a release build linked with
# ORBIT_LINK_MAP=MAP, instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PY="${ORBIT_MCP_PYTHON:-$HOME/.cache/orbit-ci/py/venv/bin/python}"
WORK="$(mktemp -d)"
SERVER=
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
MAP="$WORK/orbit.map"
if [[ $# -eq 2 ]]; then
  # A release build made with ORBIT_LINK_MAP=MAP and that map.
  cp "$1" "$WORK/orbit"; cp "$2" "$MAP"
else
  ORBIT_LINK_MAP="$MAP" cargo build --release -p orbit-cli --bin orbit
  cp target/release/orbit "$WORK/orbit"
fi
# The driver of the native pass below (built before HOME moves).
cargo build --release -q -p orbit-cli --example startup_bench
PORT=$(( 20000 + RANDOM % 20000 ))
"$PY" bench/fake_anthropic.py "$PORT" & SERVER=$!
mkdir -p "$WORK/trace" "$WORK/home" "$WORK/cwd"
cat > "$WORK/agent.sh" <<SH
#!/bin/bash
# orbit under lackey; superblock addresses (deduplicated) and the mappings.
# ORBIT_TRACE_RANK orders the traces (link_order.py reads them by name).
valgrind --tool=lackey --trace-superblocks=yes --log-fd=9 \\
  9> >(awk '!s[\$0]++' > "$WORK/trace/\${ORBIT_TRACE_RANK:-5}-\$\$.sb") "$WORK/orbit" "\$@" <&0 &
pid=\$!
( sleep 2; cat /proc/\$pid/maps > "$WORK/trace/\$\$.maps" 2>/dev/null ) &
wait \$pid
SH
chmod +x "$WORK/agent.sh"
export HOME="$WORK/home" ORBIT_HOME="$WORK/home/.orbit" ANTHROPIC_API_KEY=bench
export ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT"
sleep 1
cd "$WORK/cwd"
echo hello > notes.txt
# First, the headline run's shape (bench/startup.sh's 3-turn run: Read,
# Bash allowed by a rule, text): its functions lead the layout, so that
# run touches the fewest pages.
three_turn=(-p 'tool Read {"file_path": "'"$WORK"'/cwd/notes.txt"} || tool Bash {"command": "echo hi"}'
  --allowedTools Bash --output-format stream-json)
ORBIT_TRACE_RANK=0 "$WORK/agent.sh" "${three_turn[@]}" </dev/null >/dev/null
# Then that run itself, natively (bench/link_order_native.py: what
# valgrind's CPU and missing system calls hide, the sandbox's layers among
# it): startup_bench drives the binary through this wrapper; its 3-turn
# run (`-p go`) is sampled the first time and traced under gdb the second.
cat > "$WORK/native.sh" <<SH
#!/bin/bash
if [[ " \$* " == *" -p go "* && ! -e "$WORK/pages" ]]; then
  exec python3 "$ROOT/bench/link_order_native.py" sample "$WORK/orbit" "$WORK/pages" -- "\$@"
elif [[ " \$* " == *" -p go "* && ! -e "$WORK/trace/1-native.sb" ]]; then
  exec python3 "$ROOT/bench/link_order_native.py" gdb "$WORK/orbit" "$MAP" "$WORK/pages" \\
    "$WORK/trace/1-native.sb" -- "\$@"
fi
exec "$WORK/orbit" "\$@"
SH
chmod +x "$WORK/native.sh"
"$ROOT/target/release/examples/startup_bench" "$WORK/native.sh" >/dev/null
[[ -s "$WORK/trace/1-native.sb" ]] || { echo "link-order.sh: the native pass traced nothing" >&2; exit 1; }
ORBIT_BENCH_RSS_ONE=/dev/null ORBIT_BENCH_RSS_SESSION=/dev/null \
  "$PY" "$ROOT/bench/sdk_bench.py" "$WORK/agent.sh" >/dev/null
run() { "$WORK/agent.sh" --permission-mode bypassPermissions "$@" </dev/null >/dev/null; }
run -p "say hi" --output-format stream-json --verbose
run -p "say hi"
run -p 'tool Bash {"command": "echo hi"}'
run -p 'tool Read {"file_path": "'"$WORK"'/cwd/notes.txt"}'
run -p 'tool Edit {"file_path": "'"$WORK"'/cwd/notes.txt", "old_string": "hello", "new_string": "bye"}'
run -p 'tool Grep {"pattern": "bye"}' --output-format stream-json --verbose
# The default permission mode, as bench/startup.sh's 3-turn run: a rule
# allows Bash (the shell analysis and the sandbox's launch on the path).
ask() { "$WORK/agent.sh" "$@" </dev/null >/dev/null; }
ask -p 'tool Bash {"command": "echo hi"}' --allowedTools Bash --output-format stream-json
ask -p 'tool Read {"file_path": "'"$WORK"'/cwd/notes.txt"}' --output-format stream-json
sleep 1
cd "$ROOT"
BASE=$(awk '$6 ~ /\/orbit$/ && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' "$WORK"/trace/*.maps)
"$PY" bench/link_order.py --globs crates/cli/link/orbit.globs "$MAP" "$BASE" "$WORK"/trace/*.sb \
  > crates/cli/link/orbit.order
wc -l crates/cli/link/orbit.order crates/cli/link/orbit.globs
