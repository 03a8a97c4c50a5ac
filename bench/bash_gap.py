#!/usr/bin/env python3
"""The client gap of a Bash turn (issue 40), orbit beside Claude Code in one
run: each client runs the prompt `tool Bash {"command": "true"}` against
fake_anthropic.py's reply logic; the gap is the server's time from the end
of the response that carried the tool call to the arrival of the request
that carries its result (the client finishing the stream, running `true`,
and sending). orbit runs with `--sandbox workspace-write` and `--sandbox
danger-full-access`; Claude Code as it ships (no sandbox), `--allowedTools
Bash`. Rounds interleave the clients. Not a test: prints medians.

Usage: bench/bash_gap.py ORBIT [ROUNDS] [CLAUDE]
       (CLAUDE: default the copy bench/install-claude-code.sh installs)"""

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fake_anthropic import QuietHandler, reply  # noqa: E402

CLAUDE = os.path.expanduser("~/.cache/orbit-bench/npm/node_modules/.bin/claude")
PROMPT = 'tool Bash {"command": "true"}'

marks = []  # (kind, time): "sent" after a tool_use reply, "result" on arrival


class Handler(QuietHandler):
    def do_POST(self):
        body = self.json_body()
        arrived = time.perf_counter()
        last = body["messages"][-1]["content"]
        carries_result = isinstance(last, list) and any(
            b.get("type") == "tool_result" for b in last)
        if carries_result:
            marks.append(("result", arrived))
        answer = reply(body)
        self.send(answer)
        self.wfile.flush()
        if b'"tool_use"' in answer:
            marks.append(("sent", time.perf_counter()))


def gap_of(cmd, env, cwd):
    marks.clear()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True, timeout=120)
    sent = next(t for k, t in marks if k == "sent")
    result = next(t for k, t in marks if k == "result" and t > sent)
    return (result - sent) * 1000


def main():
    orbit = str(pathlib.Path(sys.argv[1]).resolve())
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    claude = sys.argv[3] if len(sys.argv) > 3 else CLAUDE
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home, ws = tempfile.mkdtemp(), tempfile.mkdtemp()
    url = f"http://127.0.0.1:{server.server_port}"
    env = {"PATH": os.environ["PATH"], "HOME": home, "ORBIT_HOME": home + "/.orbit",
           "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": url,
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    clients = {
        "orbit, sandboxed": [orbit, "-p", PROMPT, "--allowedTools", "Bash",
                             "--sandbox", "workspace-write", "--no-session-persistence"],
        "orbit, danger-full-access": [orbit, "-p", PROMPT, "--allowedTools", "Bash",
                                      "--sandbox", "danger-full-access",
                                      "--no-session-persistence"],
    }
    if os.path.exists(claude):
        clients["Claude Code"] = [claude, "-p", PROMPT, "--allowedTools", "Bash"]
    else:
        print(f"Claude Code not found at {claude}: bench/install-claude-code.sh")
    gaps = {name: [] for name in clients}
    for _ in range(rounds):
        for name, cmd in clients.items():
            gaps[name].append(gap_of(cmd, env, ws))
    for name, values in gaps.items():
        values.sort()
        print(f"Bash turn gap, {name:26}: median {statistics.median(values):7.2f} ms, "
              f"min {values[0]:.2f}, max {values[-1]:.2f} ({rounds} rounds)")
    server.shutdown()


if __name__ == "__main__":
    main()
