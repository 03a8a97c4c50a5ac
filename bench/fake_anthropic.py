"""A minimal fake Anthropic Messages server for bench/link-order.sh. Every
POST gets one streamed reply: a tool call when the last user message is
`tool NAME {json input}`, else the text "ok". Usage: fake_anthropic.py PORT."""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def streamed(model, block, delta, stop):
    """One streamed assistant message of one content block: the SSE
    events of the Messages API, as bytes (bench/fake_fleet.py uses it too)."""
    message = {"id": "msg_1", "type": "message", "role": "assistant",
               "model": model, "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    return b"".join([
        event("message_start", {"type": "message_start", "message": message}),
        event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 1}}),
        event("message_stop", {"type": "message_stop"}),
    ])


def last_user_text(request):
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def reply(request):
    words = last_user_text(request).split(" ", 2)
    if words[0] == "tool" and len(words) == 3:
        block = {"type": "tool_use", "id": "toolu_1", "name": words[1], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": words[2]}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": "ok"}
        stop = "end_turn"
    return streamed(request.get("model", "claude"), block, delta, stop)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = reply(json.loads(self.rfile.read(int(self.headers.get("content-length", 0)))))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
