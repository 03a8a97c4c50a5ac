#!/usr/bin/env bash
# Wall time of the local model's task (a) — "What is the value of MAGIC in
# config.txt?" — cold (each run starts its own llama-server) and warm (a
# server kept by `orbit local serve`, prompt prefix in its KV cache), plus
# the first request's prompt tokens. Needs `orbit local setup` done.
# Usage: bench/local_model.sh [path/to/orbit] [runs]
set -euo pipefail
ORBIT=${1:-target/release/orbit}
RUNS=${2:-3}
ORBIT=$(realpath "$ORBIT")
dir=$(mktemp -d)
trap '"$ORBIT" local stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
printf 'NAME=orbit\nMAGIC=48213\nMODE=test\n' > "$dir/config.txt"
cd "$dir"
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL ORBIT_PROVIDER
task() {
    local start end
    start=$EPOCHREALTIME
    "$ORBIT" -p "What is the value of MAGIC in config.txt?" --output-format stream-json --verbose \
        > out.jsonl 2> err.txt
    end=$EPOCHREALTIME
    python3 - "$1" "$start" "$end" <<'PY'
import json, sys
lines = [json.loads(l) for l in open("out.jsonl") if l.startswith("{")]
asst = [l for l in lines if l["type"] == "assistant"]
tools = [b["name"] for l in asst for b in l["message"]["content"] if b["type"] == "tool_use"]
first = asst[0]["message"]["usage"] if asst else {}
prompt = first.get("input_tokens", 0) + first.get("cache_read_input_tokens", 0)
res = [l for l in lines if l["type"] == "result"][-1]
print(f"{sys.argv[1]:5} wall {float(sys.argv[3]) - float(sys.argv[2]):5.1f} s  tools {tools}  first request {prompt} prompt tokens  "
      f"answer {res['result']!r}")
PY
}
"$ORBIT" local stop >/dev/null 2>&1 || true
for _ in $(seq "$RUNS"); do task cold; done
"$ORBIT" local serve --idle-timeout 120 2> serve.txt &
for _ in $(seq 100); do grep -q "warm llama-server" serve.txt 2>/dev/null && break; sleep 0.2; done
for _ in $(seq "$RUNS"); do task warm; done
