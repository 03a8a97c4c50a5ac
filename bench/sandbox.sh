#!/usr/bin/env bash
# Issues 18 and 40: the OS sandbox's cost. (1) Per Bash call as the Bash tool
# sees it: the client gap of a turn whose Bash call runs `true` (the fake
# server's time from the end of response 1 to the arrival of request 2),
# `orbit -p` with `--sandbox workspace-write` vs `--sandbox
# danger-full-access`, for this build and (optional) an older one, median of
# N runs each, interleaved. (2) The helper by hand: `bash -c true` started
# directly vs through `orbit sandbox -- bash -c true`. (3) `cargo build` of a
# small crate (one dependency-free lib + bin, cold target dir) with vs
# without the sandbox. Not a test: prints numbers; record them in
# docs/PERFORMANCE.md.
# Usage: bench/sandbox.sh [path/to/orbit] [runs] [path/to/old/orbit]
#        (default target/release/orbit, 200 helper runs / 40 gap runs)
set -euo pipefail
cd "$(dirname "$0")/.."
ORBIT=$(realpath "${1:-target/release/orbit}")
RUNS=${2:-200}
OLD=${3:+$(realpath "$3")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 - "$ORBIT" "$((RUNS / 5))" "$OLD" <<'PY'
# (1) The Bash tool's per-call cost: the gap of a turn whose Bash call runs
# `true`, sandboxed vs danger-full-access, this build (and an old one).
import json, os, statistics, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
orbit, runs, old = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

def reply(tool):
    if tool:
        block = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": "true"})}
    else:
        block, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": "ok"}
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    return b"".join([
        event("message_start", {"type": "message_start", "message": msg}),
        event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if tool else "end_turn",
                                "stop_sequence": None}, "usage": {"output_tokens": 1}}),
        event("message_stop", {"type": "message_stop"}),
    ])

marks = []
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        arrived = time.perf_counter()
        content = req["messages"][-1]["content"]
        first = isinstance(content, str) or not any(b.get("type") == "tool_result" for b in content)
        body = reply(first)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        marks.append(("sent" if first else "arrived", time.perf_counter() if first else arrived))

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
home = tempfile.mkdtemp()
ws = tempfile.mkdtemp()
env = {"PATH": os.environ["PATH"], "HOME": home, "ORBIT_HOME": home + "/.orbit",
       "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}"}
bins = {"new": orbit} | ({"old": old} if old else {})
gaps = {}
for _ in range(runs):
    for tag, binary in bins.items():
        for mode in ["workspace-write", "danger-full-access"]:
            marks.clear()
            subprocess.run([binary, "-p", "run it", "--permission-mode", "bypassPermissions", "--sandbox", mode,
                            "--no-session-persistence"], env=env, cwd=ws, check=True, capture_output=True)
            sent = next(t for k, t in marks if k == "sent")
            arrived = next(t for k, t in marks if k == "arrived")
            gaps.setdefault((tag, mode), []).append((arrived - sent) * 1000)
for (tag, mode), v in gaps.items():
    print(f"Bash turn gap {tag:3} {mode:18}: median {statistics.median(v):.2f} ms  p90 {sorted(v)[int(len(v) * 0.9)]:.2f} ms  ({runs} runs)")
for tag in bins:
    d = statistics.median(gaps[(tag, "workspace-write")]) - statistics.median(gaps[(tag, "danger-full-access")])
    print(f"sandbox cost per Bash call ({tag}): {d:.2f} ms median")
PY

python3 - "$ORBIT" "$RUNS" <<'PY'
# (2) The helper by hand.
import statistics, subprocess, sys, time
orbit, runs = sys.argv[1], int(sys.argv[2])
cmds = {
    "direct":    ["bash", "-c", "true"],
    "sandboxed": [orbit, "sandbox", "--", "bash", "-c", "true"],
}
times = {k: [] for k in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        t = time.perf_counter()
        subprocess.run(cmd, check=True)
        times[name].append((time.perf_counter() - t) * 1000)
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in times.items():
    print(f"per call {k:9}: median {med[k]:.2f} ms  p90 {sorted(v)[int(len(v) * 0.9)]:.2f} ms  ({runs} runs)")
print(f"per call overhead: {med['sandboxed'] - med['direct']:.2f} ms median ({med['sandboxed'] / med['direct']:.2f}x)")
PY

mkdir -p tiny/src
printf '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n' > tiny/Cargo.toml
for i in $(seq 1 40); do printf 'pub fn f%d(x: u64) -> u64 { x.wrapping_mul(%d).rotate_left(3) }\n' "$i" "$i"; done > tiny/src/lib.rs
printf 'fn main() { println!("{}", tiny::f1(2)); }\n' > tiny/src/main.rs
cd tiny
build() {
    rm -rf target
    local start=$EPOCHREALTIME
    "$@" cargo build -q --offline
    echo "$EPOCHREALTIME - $start" | bc
}
for round in 1 2 3; do
    d=$(build env)
    s=$(build "$ORBIT" sandbox --)
    echo "cargo build round $round: direct ${d}s sandboxed ${s}s"
done
