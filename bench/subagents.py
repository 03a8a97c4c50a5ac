"""Driver of bench/subagents.sh: runs `orbit -p` against
bench/fake_subagents.py and prints, per case, the median wall time and the
peak RSS (the orbit process's ru_maxrss, from wait4).

Cases: `delegate 1,2,3` (three parallel subagents), `delegate 3` (the
slowest subagent alone), `single` (one session making subagent 3's calls
itself, no subagents). Usage: subagents.py ORBIT PORT RUNS."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(orbit, port, prompt):
    """One `orbit -p PROMPT`: (wall seconds, its own peak RSS in KiB)."""
    home = tempfile.mkdtemp(prefix="orbit-bench-subagents-")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "ORBIT_HOME": os.path.join(home, ".orbit"),
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
    }
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        child = subprocess.Popen(
            [orbit, "-p", prompt, "--dangerously-skip-permissions", "--output-format", "json"],
            cwd=home, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        )
        # wait4 on this one child: its own rusage (ru_maxrss in KiB).
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    shutil.rmtree(home, ignore_errors=True)
    if child.returncode != 0 or b'"is_error":false' not in stdout.replace(b" ", b""):
        sys.exit(f"{prompt}: exit {child.returncode}\n{stdout.decode()}\n{stderr.decode()}")
    return wall, usage.ru_maxrss


def main():
    orbit, port, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    cases = [("three parallel subagents", "delegate 1,2,3"),
             ("slowest subagent alone", "delegate 3"),
             ("single session, no subagent", "single")]
    results = {}
    run_once(orbit, port, "single")  # warm the page cache
    for name, prompt in cases:
        samples = [run_once(orbit, port, prompt) for _ in range(runs)]
        wall = statistics.median(s[0] for s in samples)
        rss = statistics.median(s[1] for s in samples)
        results[prompt] = (wall, rss)
        print(f"{name:32} wall {wall * 1000:7.0f} ms   peak RSS {rss / 1024:6.1f} MiB")
    three, alone, single = results["delegate 1,2,3"], results["delegate 3"], results["single"]
    print(f"wall: three parallel / slowest alone = {three[0] / alone[0]:.2f}x (target <= 1.3x)")
    print(f"RSS: three subagents / single session = {three[1] / single[1]:.2f}x (target < 3x)")


if __name__ == "__main__":
    main()
