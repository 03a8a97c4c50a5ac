#!/usr/bin/env python3
"""Replays the request `orbit -c -p "go on"` sends after Ctrl-C mid-tool
(issue 11's walkthrough) against the local llama-server, over a grid of
working directories and forms of the stopped call, and counts how often
the model makes the stopped call again (docs/PERFORMANCE.md, "Going on
after Ctrl-C, replayed").

    bench/eval/replay_interrupt.py --orbit target/release/orbit \
        [--seed 1] [--dirs 8] [--follow-up "go on" --follow-up continue]

The system prompt and tools are the ones orbit's small profile sends: the
script captures orbit's first request with a one-shot fake OpenAI server on
127.0.0.1. The model answers through a warm `orbit local serve` (started
and stopped here), so the chat template is the one that orbit binary
installs. Sampling as orbit's local client: temperature 0, seed 42,
cache_prompt, one tool call per reply.
"""
import argparse, http.server, itertools, json, os, random, re, string, subprocess, sys, tempfile, threading, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fake_anthropic import QuietHandler  # noqa: E402  (bench/: the fakes' handler)

TASK = "Run ./check.sh with the Bash tool and tell me its RESULT line."
INTERRUPTED = "[Request interrupted by user for tool use]"
CALLS = [
    {"command": "./check.sh", "timeout": 10, "description": "Runs the check.sh script and captures its output",
     "run_in_background": False, "dangerouslyDisableSandbox": False},
    {"command": "./check.sh"},
    {"command": "./check.sh", "description": "Run check.sh"},
    {"command": "bash ./check.sh", "timeout": 60},
    {"command": "sh check.sh", "description": "Run the check script"},
]


def capture_first_request(orbit):
    """orbit's first request body, for TASK, in the small profile."""
    captured = {}

    class Capture(QuietHandler):
        def do_POST(self):
            captured["body"] = self.json_body()
            chunks = [{"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": None}]},
                      {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
            self.send(("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode())

    server = http.server.HTTPServer(("127.0.0.1", 0), Capture)
    thread = threading.Thread(target=server.handle_request, daemon=True)  # one request, then done
    thread.start()
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{server.server_port}/v1",
                   OPENAI_API_KEY="replay", ORBIT_SMALL_MODEL="1")
        subprocess.run([orbit, "--provider", "openai", "-p", TASK, "--allowedTools", "Bash",
                        "--no-session-persistence"], cwd=scratch, env=env, capture_output=True, timeout=60)
    thread.join(timeout=60)
    server.server_close()
    if "body" not in captured:
        sys.exit("orbit sent no request to the capture server")
    return captured["body"]


def warm_server(orbit):
    """Starts `orbit local serve`; returns (process, base URL)."""
    serve = subprocess.Popen([orbit, "local", "serve", "--idle-timeout", "600"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 300
    for line in serve.stdout:
        match = re.search(r"warm llama-server on (\S+)", line)
        if match:
            url = match.group(1).rstrip("/")
            return serve, url if url.startswith("http") else f"http://{url}"
        if time.time() > deadline:
            break
    serve.kill()
    sys.exit("orbit local serve did not start a server")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orbit", required=True)
    parser.add_argument("--seed", type=int, default=1, help="seed of the random working directories")
    parser.add_argument("--dirs", type=int, default=8)
    parser.add_argument("--follow-up", action="append", dest="follow_ups")
    args = parser.parse_args()
    args.orbit = os.path.abspath(args.orbit)
    follow_ups = args.follow_ups or ["go on"]
    first = capture_first_request(args.orbit)
    system, tools = first["messages"][0], first.get("tools")
    random.seed(args.seed)
    dirs = ["/tmp/.tmp" + "".join(random.choice(string.ascii_letters + string.digits) for _ in range(6))
            for _ in range(args.dirs)]
    serve, base = warm_server(args.orbit)
    try:
        def post(messages, max_tokens):
            body = {"model": first["model"], "messages": messages, "tools": tools, "max_tokens": max_tokens,
                    "parallel_tool_calls": False, "stream": False, "temperature": 0, "seed": 42, "cache_prompt": True}
            request = urllib.request.Request(f"{base}/v1/chat/completions", data=json.dumps(body).encode(),
                                             headers={"content-type": "application/json"})
            return json.load(urllib.request.urlopen(request, timeout=600))["choices"][0]["message"]

        made_again = total = 0
        for (index, call), follow_up, cwd in itertools.product(enumerate(CALLS), follow_ups, dirs):
            sys_cwd = dict(system, content=re.sub(r"Working directory: \S+", "Working directory: " + cwd, system["content"]))
            task = {"role": "user", "content": TASK}
            post([sys_cwd, task], 1)  # the cache holds the first run's prompt, as in the walkthrough
            reply = post([sys_cwd, task,
                          {"role": "assistant", "content": None, "tool_calls": [
                              {"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": json.dumps(call)}}]},
                          {"role": "tool", "tool_call_id": "call_1", "content": INTERRUPTED},
                          {"role": "user", "content": follow_up}], 200)
            calls = [c["function"]["arguments"] for c in reply.get("tool_calls") or []]
            again = any("check.sh" in c for c in calls)
            made_again += again
            total += 1
            if not again:
                print(f"not again: call form {index}, {follow_up!r}, {cwd}: {(reply.get('content') or '')[:80]!r} {calls}")
        print(f"made the stopped call again: {made_again}/{total}")
    finally:
        subprocess.run([args.orbit, "local", "stop"], capture_output=True, timeout=60)
        serve.kill()
        serve.wait()


if __name__ == "__main__":
    main()
