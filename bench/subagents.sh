#!/bin/sh
# Subagents (issue 32): wall time of three parallel subagents vs the slowest
# alone (target <= 1.3x), and peak RSS of a parent with three running
# subagents vs a single session (target < 3x), against a fake server with a
# fixed latency (bench/fake_subagents.py). Results: docs/PERFORMANCE.md,
# section "Subagents". Usage: bench/subagents.sh [LATENCY_MS] [ROUNDS] [RUNS]
# (ORBIT=path/to/orbit skips the release build and measures that binary.)
set -eu
cd "$(dirname "$0")/.."
latency_ms=${1:-300}
rounds=${2:-2}
runs=${3:-5}
if [ -z "${ORBIT:-}" ]; then
    cargo build --release -q -p orbit-cli
    ORBIT=target/release/orbit
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 bench/fake_subagents.py "$port" "$latency_ms" "$rounds" &
server=$!
trap 'kill "$server"' EXIT
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.1).close()
        break
    except OSError:
        time.sleep(0.05)
PY
echo "latency ${latency_ms} ms per model reply, ${rounds} Bash round(s) per subagent, median of ${runs}"
python3 bench/subagents.py "$ORBIT" "$port" "$runs"
