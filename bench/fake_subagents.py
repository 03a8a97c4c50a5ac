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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def text_of(message):
    content = message["content"]
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def results(request):
    """How many tool-result messages the history holds."""
    return sum(
        1 for m in request["messages"]
        if isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
    )


def blocks(request, rounds):
    first = text_of(request["messages"][0])
    done = results(request)
    if first.startswith("SUBTASK-") or first == "single":
        n = int(first.split("-")[1]) if first != "single" else 3
        if done < rounds:
            return [("tool_use", "Bash", {"command": f"sleep 0.{n + 2}"})]
        return [("text", f"done-{first}", None)]
    if first.startswith("delegate ") and done == 0:
        numbers = first.split(" ", 1)[1].split(",")
        return [("tool_use", "Agent", {"description": f"task {n}", "prompt": f"SUBTASK-{n}",
                                        "subagent_type": "general-purpose"}) for n in numbers]
    return [("text", "ok", None)]


def reply(request, rounds):
    out = []
    message = {"id": "msg_1", "type": "message", "role": "assistant",
               "model": request.get("model", "claude"), "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    out.append(event("message_start", {"type": "message_start", "message": message}))
    stop = "end_turn"
    for i, (kind, name, data) in enumerate(blocks(request, rounds)):
        if kind == "tool_use":
            stop = "tool_use"
            block = {"type": "tool_use", "id": f"toolu_{time.monotonic_ns()}_{i}", "name": name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(data)}
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": name}
        out.append(event("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}))
        out.append(event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
        out.append(event("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                       "usage": {"output_tokens": 1}}))
    out.append(event("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    latency_s = 0.0
    rounds = 1

    def log_message(self, *args):
        pass

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        time.sleep(self.latency_s)
        body = reply(request, self.rounds)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    Handler.latency_s = int(sys.argv[2]) / 1000
    Handler.rounds = int(sys.argv[3])
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
