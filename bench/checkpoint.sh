#!/usr/bin/env bash
# Checkpoint cost (issue 34): the snapshot time per prompt on this
# repository (target: <= 50 ms, taken before the prompt's first writing
# call, never at start-up) and the disk a session's checkpoint store uses
# (proportional to what changed). A clone of this repository's HEAD gets
# PROMPTS prompts through the release `orbit` against bench/fake_anthropic.py,
# each one Bash call appending a line; then one prompt writes a 1 MiB file.
# The figures are the checkpoints' own timings (`orbit sessions show`).
# Results: docs/PERFORMANCE.md, section "Checkpoints".
set -euo pipefail
cd "$(dirname "$0")/.."
PROMPTS=${PROMPTS:-10}
ORBIT=${ORBIT:-$PWD/target/release/orbit}
[ -x "$ORBIT" ] || cargo build --release -p orbit-cli --bin orbit
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 bench/fake_anthropic.py "$port" & server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q --shared . "$work/repo"
files=$(git -C "$work/repo" ls-files | wc -l)
id=$(python3 -c 'import uuid; print(uuid.uuid4())')
run() {
  (cd "$work/repo" && env -i PATH="$PATH" HOME="$work/home" ORBIT_HOME="$work/home/.orbit" \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=test \
    "$ORBIT" --permission-mode bypassPermissions --output-format json "$@" >/dev/null)
}
sleep 0.3
run -p 'tool Bash {"command":"echo 0 >> bench-notes.txt"}' --session-id "$id"
for i in $(seq 1 $((PROMPTS - 1))); do
  run -p "tool Bash {\"command\":\"echo $i >> bench-notes.txt\"}" -r "$id"
done
show() { env -i PATH="$PATH" HOME="$work/home" ORBIT_HOME="$work/home/.orbit" "$ORBIT" sessions show "$id"; }
before=$(show)
run -p 'tool Bash {"command":"head -c 1048576 /dev/urandom > big.bin"}' -r "$id"
after=$(show)
python3 - "$files" "$PROMPTS" <<'PY' "$before" "$after"
import re, statistics, sys
files, prompts, before, after = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
ms = [int(m) for m in re.findall(r"before prompt \d+ \((\d+) ms\)", before)]
end = [int(m) for m in re.findall(r"after prompt \d+ \((\d+) ms\)", before)]
kib = lambda text: int(re.search(r"(\d+) KiB stored", text).group(1))
print(f"repository: {files} tracked files (a clone of HEAD)")
print(f"snapshot before each prompt's first write, {len(ms)} prompts: first {ms[0]} ms (cold: copies the index), "
      f"then median {statistics.median(ms[1:])} ms, max {max(ms[1:])} ms")
print(f"snapshot when each prompt ends (what orbit left): median {statistics.median(end)} ms, max {max(end)} ms")
print(f"store after {prompts} one-line changes: {kib(before)} KiB; after one more prompt writing 1 MiB: {kib(after)} KiB "
      f"(+{kib(after) - kib(before)} KiB)")
PY
# The before/after probe's cost per writing call.
cargo run -q --release -p orbit-checkpoint --example probe_bench
