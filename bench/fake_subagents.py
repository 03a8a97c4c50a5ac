"""A fake Anthropic Messages server for bench/subagents.sh: every reply is
held LATENCY_MS before it is sent (a fixed model latency).

The parent's prompt `delegate 1,2,3` gets one reply with an Agent call per
number (`prompt: SUBTASK-n`); a subagent (its first message holds
SUBTASK-n) runs `sleep 0.(n+2)` with Bash ROUNDS times, then answers
`done-n`; the parent, given the results, answers "ok". A prompt `single`
(a session without subagents) runs the same Bash calls as subagent 3
itself, then answers. Usage: fake_subagents.py PORT LATENCY_MS ROUNDS."""

import json
import sys
import time
from http.server import ThreadingHTTPServer

from fake_anthropic import QuietHandler, streamed, text, text_of, tool_use


def results(request):
    """How many tool-result messages the history holds."""
    return sum(
        1 for m in request["messages"]
        if isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
    )


def call(i, name, data):
    """Tool call block `i` of a reply, with an id unique to this reply."""
    return tool_use(f"toolu_{time.monotonic_ns()}_{i}", name, json.dumps(data))


def blocks(request, rounds):
    first = text_of(request["messages"][0])
    done = results(request)
    if first.startswith("SUBTASK-") or first == "single":
        n = int(first.split("-")[1]) if first != "single" else 3
        if done < rounds:
            return [call(0, "Bash", {"command": f"sleep 0.{n + 2}"})]
        return [text(f"done-{first}")]
    if first.startswith("delegate ") and done == 0:
        numbers = first.split(" ", 1)[1].split(",")
        return [call(i, "Agent", {"description": f"task {n}", "prompt": f"SUBTASK-{n}",
                                  "subagent_type": "general-purpose"}) for i, n in enumerate(numbers)]
    return [text("ok")]


def reply(request, rounds):
    found = blocks(request, rounds)
    stop = "tool_use" if any(block["type"] == "tool_use" for block, _ in found) else "end_turn"
    return streamed(request.get("model", "claude"), found, stop)


class Handler(QuietHandler):
    latency_s = 0.0
    rounds = 1

    def do_POST(self):
        request = self.json_body()
        time.sleep(self.latency_s)
        self.send(reply(request, self.rounds))


if __name__ == "__main__":
    Handler.latency_s = int(sys.argv[2]) / 1000
    Handler.rounds = int(sys.argv[3])
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
