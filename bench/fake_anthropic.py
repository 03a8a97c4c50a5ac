"""A minimal fake Anthropic Messages server for bench/link-order.sh. Every
POST gets one streamed reply: a tool call when the prompt (the last user
message with text) is `tool NAME {json input}` — or the next of `tool A {…}
|| tool B {…}`, one per assistant message since the prompt — else the
text "ok". Usage: fake_anthropic.py PORT.

Also what the other bench fakes import (fake_fleet.py, fake_subagents.py,
eval/replay_interrupt.py): the SSE message of the Messages API
(`streamed`, of `tool_use` and `text` blocks), a message's text
(`text_of`) and the quiet HTTP/1.1 handler that answers one body
(`QuietHandler`)."""

import itertools
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


MESSAGE_IDS = itertools.count(1)


def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def tool_use(block_id, name, input_json):
    """A tool_use block and its one delta (the input as JSON text)."""
    return ({"type": "tool_use", "id": block_id, "name": name, "input": {}},
            {"type": "input_json_delta", "partial_json": input_json})


def text(value):
    """A text block and its one delta."""
    return {"type": "text", "text": ""}, {"type": "text_delta", "text": value}


def streamed(model, blocks, stop):
    """One streamed assistant message of `blocks` ((block, delta) pairs,
    from `tool_use` and `text`): the SSE events of the Messages API, as
    bytes."""
    # A fresh id each message: Claude Code merges assistant messages that
    # share one.
    message = {"id": f"msg_{next(MESSAGE_IDS)}", "type": "message", "role": "assistant",
               "model": model, "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    out = [event("message_start", {"type": "message_start", "message": message})]
    for i, (block, delta) in enumerate(blocks):
        out += [
            event("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}),
            event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            event("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    out += [
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 1}}),
        event("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(out)


def text_of(message):
    """A message's text: its string content, or its text blocks joined."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def prompt_of(message):
    """The prompt in a user message: its text block that starts with
    `tool ` (Claude Code sends its `<system-reminder>` blocks beside the
    prompt in the same message), else the message's whole text."""
    content = message["content"]
    if isinstance(content, list):
        for block in content:
            if block.get("type") == "text" and block.get("text", "").startswith("tool "):
                return block["text"]
    return text_of(message)


class QuietHandler(BaseHTTPRequestHandler):
    """An HTTP/1.1 handler that logs nothing: `json_body` reads the
    request's JSON, `send` answers 200 with one body."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def json_body(self):
        return json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))

    def send(self, body, kind="text/event-stream"):
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def reply(request):
    """The next step of the prompt's `tool NAME {json} || tool NAME {json}
    …` (one per assistant message so far), then the text "ok"."""
    messages = request["messages"]
    users = [i for i, m in enumerate(messages) if m["role"] == "user" and text_of(m)]
    scripted = [i for i in users if prompt_of(messages[i]).startswith("tool ")]
    # The scripted prompt, even when later user messages carry text (Claude
    # Code's reminders beside tool results); else the last user text.
    first = max(scripted or users)
    steps = prompt_of(messages[first]).split(" || ")
    done = sum(1 for m in messages[first:] if m["role"] == "assistant")
    words = steps[done].split(" ", 2) if done < len(steps) else []
    model = request.get("model", "claude")
    if len(words) == 3 and words[0] == "tool":
        block = tool_use(f"toolu_{done + 1}", words[1], words[2])
        return streamed(model, [block], "tool_use")
    return streamed(model, [text("ok")], "end_turn")


class Handler(QuietHandler):
    def do_POST(self):
        self.send(reply(self.json_body()))


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
