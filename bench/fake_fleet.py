"""A fake Anthropic Messages server for bench/fleet.sh: many orbit task
containers share it. A prompt `tool NAME {json input}` gets that tool call;
the request after it (carrying the tool's result) gets the text "done".
A prompt containing `[slow-once]` has that second reply held for SLOW
seconds the first time only (so a task can be killed after its tool ran and
before the turn was recorded as finished; its re-run is answered at once).

Usage: fake_fleet.py HOST PORT [SLOW_SECONDS=60]. GET /stats returns
{"requests": N, "slowed": [...]} as JSON."""

import json
import sys
import threading
import time
from http.server import ThreadingHTTPServer

from fake_anthropic import QuietHandler, streamed, text, text_of, tool_use

SLOW = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
lock = threading.Lock()
stats = {"requests": 0, "slowed": []}


def first_prompt(request):
    for m in request["messages"]:
        if m["role"] == "user" and text_of(m).strip():
            return text_of(m)
    return ""


def has_tool_result(message):
    content = message["content"]
    return not isinstance(content, str) and any(b.get("type") == "tool_result" for b in content)


def reply(request):
    last = request["messages"][-1]
    prompt = first_prompt(request)
    words = text_of(last).replace("[slow-once]", "").strip().split(" ", 2)
    model = request.get("model", "claude")
    if not has_tool_result(last) and words[0] == "tool" and len(words) == 3:
        return streamed(model, [tool_use("toolu_1", words[1], words[2])], "tool_use")
    if "[slow-once]" in prompt:
        with lock:
            first = prompt not in stats["slowed"]
            if first:
                stats["slowed"].append(prompt)
        if first:
            time.sleep(SLOW)
    return streamed(model, [text("done")], "end_turn")


class Handler(QuietHandler):
    def do_GET(self):
        with lock:
            body = json.dumps(stats).encode()
        self.send(body, "application/json")

    def do_POST(self):
        request = self.json_body()
        with lock:
            stats["requests"] += 1
        self.send(reply(request))


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
