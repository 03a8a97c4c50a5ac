#!/usr/bin/env python3
"""Runs the offline evaluation (issue 17): every task of tasks.py in a fresh
scratch dir through the real `orbit` binary, then its check.

Usage: bench/eval/run.py [--orbit PATH] [--set tuning|heldout|heldout2|all]
                         [--only NAME,...] [--timeout S]
                         [--cold] [--json OUT] [--log DIR] [--repeat N]
                         [-- EXTRA ORBIT ARGS]

`--set` picks the tasks (issue 38): `tuning` (tasks.py, the default: the
tasks the small-model profile was tuned on), `heldout` (heldout.py, written
before any run and never tuned on), `heldout2` (heldout2.py, a second
held-out set written in session 8, once the first one's failure classes
had become known) or `all`.

`--log DIR` keeps each run's stream-json transcript as DIR/NAME.jsonl (to
see what the model did); `--repeat N` runs every task N times (the model is
sampled at temperature 0, but llama.cpp's batching is not bit-exact).

Needs `orbit local setup` done. By default one warm `orbit local serve` is
started first so every task measures the agent, not llama-server's start
(`--cold` runs each task with its own server instead). Edits and Bash are
granted (`--permission-mode acceptEdits --allowedTools Bash`) unless other
orbit arguments are given. Provider variables
are removed from the environment, so orbit picks the local model as a new
user's first run does (pass `-- --provider openai` etc. to evaluate another).
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tasks import TASKS  # noqa: E402
from heldout import HELDOUT  # noqa: E402
from heldout2 import HELDOUT2  # noqa: E402

SETS = {"tuning": TASKS, "heldout": HELDOUT, "heldout2": HELDOUT2,
        "all": TASKS + HELDOUT + HELDOUT2}

PROVIDER_VARS = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL", "ORBIT_PROVIDER"]


DEFAULT_GRANTS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]


def read(dir, path):
    p = dir / path
    return p.read_text(errors="replace") if p.is_file() else None


def check_one(check, dir, answer):
    kind = check[0]
    low = (answer or "").lower()
    if kind == "answer":
        return all(s.lower() in low for s in check[1])
    if kind == "answer_not":
        return not any(s.lower() in low for s in check[1])
    if kind == "file":
        got = read(dir, check[1])
        return got is not None and got.rstrip("\n") == check[2].rstrip("\n")
    if kind == "file_has":
        got = read(dir, check[1])
        return got is not None and all(s in got for s in check[2])
    if kind == "file_lacks":
        got = read(dir, check[1])
        return got is not None and not any(s in got for s in check[2])
    if kind == "absent":
        return not (dir / check[1]).exists()
    if kind == "shell":
        return subprocess.run(["sh", "-c", check[1]], cwd=dir, capture_output=True,
                              timeout=60).returncode == 0
    raise ValueError(f"unknown check {kind}")


def checks_pass(check, dir, answer):
    checks = check if isinstance(check, list) else [check]
    return all(check_one(c, dir, answer) for c in checks)


def run_task(task, orbit, env, timeout_s, extra, log=None, log_name=None):
    dir = pathlib.Path(tempfile.mkdtemp(prefix=f"orbit-eval-{task['name']}-"))
    try:
        for rel, content in task["files"].items():
            (dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (dir / rel).write_text(content)
        start = time.monotonic()
        fmt = ["--output-format", "stream-json", "--verbose"] if log else ["--output-format", "json"]
        proc = subprocess.Popen([orbit, "-p", task["prompt"], *fmt, *extra],
                                cwd=dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        secs = time.monotonic() - start
        if log:
            pathlib.Path(log, f"{log_name or task['name']}.jsonl").write_text(out + "\n# stderr\n" + err)
        answer, turns, subtype = "", None, None
        for line in out.splitlines():
            if line.startswith("{"):
                try:
                    res = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if res.get("type") != "result":
                    continue
                answer = res.get("result") or ""
                turns = res.get("num_turns")
                subtype = res.get("subtype")
        ok = (not timed_out) and checks_pass(task["check"], dir, answer)
        return dict(name=task["name"], ok=ok, seconds=round(secs, 1), turns=turns,
                    subtype="timeout" if timed_out else subtype, answer=answer[:200],
                    stderr=err.strip()[-300:])
    finally:
        shutil.rmtree(dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orbit", default="target/release/orbit")
    ap.add_argument("--set", choices=sorted(SETS), default="tuning")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--log")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args()
    # A user who asks for edits and commands headless grants them, as with
    # `claude -p`: edits in the scratch dir and Bash are allowed.
    extra = args.extra or DEFAULT_GRANTS
    orbit = str(pathlib.Path(args.orbit).resolve())
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARS}
    only = set(filter(None, args.only.split(",")))
    tasks = [t for t in SETS[args.set] if not only or t["name"] in only] * args.repeat
    if args.log:
        os.makedirs(args.log, exist_ok=True)
    server = None
    if not args.cold:
        subprocess.run([orbit, "local", "stop"], env=env, capture_output=True)
        server = subprocess.Popen([orbit, "local", "serve", "--idle-timeout", "600"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in server.stderr:
            if "warm llama-server" in line:
                break
    results = []
    try:
        for i, task in enumerate(tasks):
            # With --repeat, each run's transcript keeps its own file.
            name = f"{task['name']}.{i // (len(tasks) // args.repeat)}" if args.repeat > 1 else None
            r = run_task(task, orbit, env, args.timeout, extra, args.log, name)
            results.append(r)
            mark = "PASS" if r["ok"] else "FAIL"
            print(f"{mark} {r['name']:20} {r['seconds']:6.1f} s  turns {r['turns']}  "
                  f"{r['subtype']}  {r['answer'][:80]!r}", flush=True)
    finally:
        if server:
            subprocess.run([orbit, "local", "stop"], env=env, capture_output=True)
            server.kill()
    solved = sum(r["ok"] for r in results)
    total = sum(r["seconds"] for r in results)
    slowest = max((r["seconds"] for r in results), default=0)
    print(f"\nset {args.set}: solved {solved}/{len(results)} ({100 * solved / max(len(results), 1):.0f}%), "
          f"total {total:.0f} s, slowest {slowest:.0f} s, over {args.timeout:.0f} s: "
          f"{sum(r['seconds'] >= args.timeout for r in results)}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
