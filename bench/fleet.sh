#!/usr/bin/env bash
# bench/fleet.sh — issue 42's acceptance run, by hand (needs root and
# podman; not part of .ci/run): builds the fleet image from Debian's
# packages (deploy/build-image.sh), emulates a Kubernetes Indexed Job —
# N tasks, one container each, PAR at a time, every container given its
# JOB_COMPLETION_INDEX, a failed one retried up to BACKOFF times — against
# one fake Anthropic server (bench/fake_fleet.py on the host network), and
# checks every task's result file and that every task's effect is present
# exactly once. Task KILL_INDEX is killed (`podman kill`) after its tool ran
# and before its turn finished; its retry must resume (rewind + resume), not
# repeat. Prints wall time, per-container overhead (container wall time
# minus the task's own time, and a bare `orbit --version` container), the
# orbit processes' peak RSS and the containers' memory.
#
#   sudo bench/fleet.sh                  # N=50 PAR=10
#   N=50 PAR=50 bench/fleet.sh           # all at once
#   SKIP_BUILD=1 bench/fleet.sh          # use target/release/orbit as it is
#
# This machine's quirks, handled here: crun refuses the hybrid cgroup
# layout, so runc; root lacks CAP_SYS_RESOURCE, so the default ulimits are
# lowered (containers.conf below); cgroupfs manager, file event log.
set -euo pipefail
cd "$(dirname "$0")/.."

N="${N:-50}"
PAR="${PAR:-10}"
BACKOFF="${BACKOFF:-3}"
KILL_INDEX="${KILL_INDEX:-7}"
PORT="${PORT:-18480}"
IMAGE="${IMAGE:-localhost/orbit:latest}"

[[ "$(id -u)" == 0 ]] || { echo "bench/fleet.sh: run as root (podman, apt-get)" >&2; exit 1; }
step() { printf '==> %s\n' "$*" >&2; }

step "apt-get install podman runc mmdebstrap"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap >/dev/null

work="$(mktemp -d /var/tmp/orbit-fleet.XXXXXX)"
fake_pid=""
cleanup() {
    [[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null || true
    podman ps -aq --filter label=orbit-fleet-bench | xargs -r podman rm -f >/dev/null 2>&1 || true
}
trap cleanup EXIT
# podman's defaults fail with "error setting rlimit … operation not
# permitted" here (runc inherits conmon's limits: at most 32768 processes,
# and no more open files than this shell has).
nofile=$(ulimit -n); nproc=$(ulimit -u)
(( nproc > 32768 )) && nproc=32768
cat > "$work/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$work/containers.conf"

if [[ -z "${SKIP_BUILD:-}" ]]; then
    step "cargo build --release -p orbit-cli"
    cargo build --release -q -p orbit-cli
fi
step "image (deploy/build-image.sh)"
IMAGE="$IMAGE" deploy/build-image.sh

mkdir -p "$work/tasks" "$work/results" "$work/times"
chown 10001:10001 "$work/results"
python3 - "$N" "$KILL_INDEX" > "$work/tasks/tasks.jsonl" <<'PY'
import json, sys
n, kill = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    command = json.dumps({"command": f"echo task-{i} >> effect.txt"})
    slow = " [slow-once]" if i == kill else ""
    print(json.dumps({"id": f"t{i}", "prompt": f"tool Bash {command}{slow}",
                      "permission_mode": "bypassPermissions"}))
PY

step "fake server on 127.0.0.1:$PORT (host network)"
python3 bench/fake_fleet.py 127.0.0.1 "$PORT" 600 &
fake_pid=$!
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$PORT/stats" >/dev/null 2>&1 && break; sleep 0.1; done

# One index, as the Job controller would: a failed pod is started again
# (same index) up to BACKOFF times. Writes the attempt's wall time.
run_index() {
    local i=$1 attempt start end code
    for attempt in $(seq "$BACKOFF"); do
        start=$(date +%s%N)
        code=0
        podman run --rm --network host --label orbit-fleet-bench --name "orbit-task-$i" \
            -e JOB_COMPLETION_INDEX="$i" -e ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
            -e ANTHROPIC_API_KEY=fake-key -e ORBIT_HOME=/results/orbit-home -e CI=1 \
            -v "$work/tasks:/tasks:ro" -v "$work/results:/results" \
            "$IMAGE" >/dev/null 2>"$work/times/stderr-$i-$attempt" || code=$?
        end=$(date +%s%N)
        echo "$i $attempt $code $(( (end - start) / 1000000 ))" >> "$work/times/runs"
        [[ $code == 0 ]] && return 0
    done
    return 1
}
export -f run_index
export work PORT IMAGE BACKOFF

# The killer: once task KILL_INDEX's tool has run (its effect exists) the
# container is killed while the model's next reply is held.
(
    effect="$work/results/work/task-$KILL_INDEX/effect.txt"
    for _ in $(seq 600); do [[ -s "$effect" ]] && break; sleep 0.1; done
    sleep 0.5
    podman kill "orbit-task-$KILL_INDEX" >/dev/null && echo "killed" > "$work/times/killed"
) &
killer=$!

step "$N tasks, $N containers, parallelism $PAR, backoff $BACKOFF"
started=$(date +%s%N)
# A sample of the containers' memory while the fleet runs.
( sleep 3; podman stats --no-stream --format '{{.Name}} {{.MemUsage}}' > "$work/times/stats" 2>/dev/null || true ) &
seq 0 $((N - 1)) | xargs -P "$PAR" -I{} bash -c 'run_index {}' || true
wall_ms=$(( ($(date +%s%N) - started) / 1000000 ))
wait "$killer" || true

step "bare container: orbit --version (x5)"
bare=()
for _ in 1 2 3 4 5; do
    s=$(date +%s%N)
    podman run --rm --network host "$IMAGE" --version >/dev/null
    bare+=($(( ($(date +%s%N) - s) / 1000000 )))
done

step "checks"
python3 - "$work" "$N" "$KILL_INDEX" "$wall_ms" "$PAR" "${bare[*]}" <<'PY'
import json, os, statistics, sys
work, n, kill, wall_ms, par = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
bare = sorted(int(x) for x in sys.argv[6].split())
res = os.path.join(work, "results")
problems, overhead, rss, task_ms = [], [], [], []
runs = [l.split() for l in open(os.path.join(work, "times", "runs"))]
last_ok = {int(i): int(ms) for i, a, code, ms in runs if code == "0"}
for i in range(n):
    path = os.path.join(res, f"task-{i}.json")
    if not os.path.exists(path):
        problems.append(f"task {i}: no result file"); continue
    r = json.load(open(path))
    if r["status"] != "solved" or r["index"] != i:
        problems.append(f"task {i}: {r['status']} exit {r['exit_code']}")
    effect = open(os.path.join(res, "work", f"task-{i}", "effect.txt")).read()
    if effect != f"task-{i}\n":
        problems.append(f"task {i}: effect {effect!r} (want it once)")
    if i in last_ok:
        overhead.append(last_ok[i] - r["duration_ms"])
    task_ms.append(r["duration_ms"])
    if r.get("max_rss_kib"):
        rss.append(r["max_rss_kib"])
k = json.load(open(os.path.join(res, f"task-{kill}.json")))
killed = os.path.exists(os.path.join(work, "times", "killed"))
attempts = [a for i, a, code, ms in runs if int(i) == kill]
if not killed:
    problems.append("the kill did not happen")
if not (k["resumed"] and k["attempt"] == 2 and k["rewound"] and k["rewound"]["removed"] == ["effect.txt"]):
    problems.append(f"task {kill} did not resume after a rewind: {k['resumed']=} {k['attempt']=} {k['rewound']=}")
stats = open(os.path.join(work, "times", "stats")).read().split("\n") if os.path.exists(os.path.join(work, "times", "stats")) else []
q = lambda v, p: sorted(v)[max(0, -(-p * len(v) // 100) - 1)] if v else 0
print(f"result files: {sum(os.path.exists(os.path.join(res, f'task-{i}.json')) for i in range(n))}/{n}; "
      f"effects present once: {n - sum('effect' in p for p in problems)}/{n}")
print(f"killed task {kill}: attempts {len(attempts)}, resumed={k['resumed']}, attempt={k['attempt']}, "
      f"rewound removed {k['rewound'] and k['rewound']['removed']}")
print(f"wall time: {wall_ms / 1000:.1f} s for {n} tasks at parallelism {par} ({n * 1000 / wall_ms:.2f} tasks/s)")
print(f"task time inside the container (orbit task run): p50 {q(task_ms, 50)} ms, p95 {q(task_ms, 95)} ms")
print(f"per-container overhead (container wall - task time): p50 {q(overhead, 50)} ms, p95 {q(overhead, 95)} ms")
print(f"bare container (orbit --version): median {statistics.median(bare)} ms (min {bare[0]}, max {bare[-1]})")
print(f"orbit peak RSS per task (largest child, getrusage): p50 {q(rss, 50) / 1024:.1f} MiB, max {max(rss or [0]) / 1024:.1f} MiB")
print("container memory sample (podman stats):", "; ".join(s for s in stats if s.strip())[:400] or "none")
if problems:
    print("PROBLEMS:\n  " + "\n  ".join(problems))
    sys.exit(1)
print("fleet: all checks passed")
PY
step "summary (orbit task summary, in the image)"
podman run --rm -v "$work/results:/results:ro" "$IMAGE" task summary /results
echo "results kept in $work" >&2
