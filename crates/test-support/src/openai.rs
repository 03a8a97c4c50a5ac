//! A fake OpenAI chat-completions API: scripted [`OpenAiReply`]s rendered to
//! the exact streaming wire format (`data: {chunk}\n\n` … `data: [DONE]\n\n`).
//!
//! Data flow: a test builds [`Completion`]s (text, tool calls, usage, faults)
//! and [`OpenAiReply`]s (a completion or an HTTP status) →
//! [`FakeOpenAi::start`] renders each to a [`WireReply`] → the shared
//! [`ScriptServer`] answers `POST …/chat/completions` in order and captures
//! every request body. Rendering follows OpenAI: a first chunk with
//! `delta.role` and an empty `content`; text in two content deltas; each tool
//! call as a first delta carrying `index`, `id`, `type` and `function.name`
//! with empty arguments, then its arguments in several fragments (by
//! `index`, so several calls in one message are "parallel tool calls"); a
//! chunk with `finish_reason`; a usage chunk with empty `choices`
//! (`stream_options.include_usage`); `data: [DONE]`.
//!
//! Fault positions (`cut_after(n)`, `malformed_at(n)`, …) count SSE frames of
//! the rendered completion, the role chunk being frame 0.
//! [`Completion::frame_count`] tells how many there are.

use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Frame, ScriptServer, StreamEnd, WireReply, sse_data};

/// Model name reported by completions that do not set one.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1-mini";

#[derive(Debug, Clone)]
struct FakeCall {
    id: String,
    name: String,
    fragments: Vec<String>,
}

#[derive(Debug, Clone)]
enum Fault {
    CutAfter(usize),
    EndAfter(usize),
    MalformedAt(usize),
    ErrorAfter(usize, String),
    HangAfter(usize),
}

/// One streamed assistant message.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    id: Option<String>,
    model: Option<String>,
    text: Vec<String>,
    calls: Vec<FakeCall>,
    finish_reason: Option<String>,
    usage: Option<(u64, u64, u64)>,
    no_done: bool,
    frame_delay: Duration,
    end_delay: Option<Duration>,
    fault: Option<Fault>,
}

fn halves(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 2 {
        return vec![s.to_string()];
    }
    let mid = chars.len() / 2;
    vec![chars[..mid].iter().collect(), chars[mid..].iter().collect()]
}

/// Serialized arguments in up to three fragments (`{}` as one).
fn argument_fragments(args: &Value) -> Vec<String> {
    let text = args.to_string();
    let chars: Vec<char> = text.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}

impl Completion {
    pub fn new() -> Self {
        Self::default()
    }

    /// Completion id (default `chatcmpl-fake-N`, N = 1-based script position).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Model name in every chunk (default [`DEFAULT_OPENAI_MODEL`]).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Assistant text, streamed in two content deltas.
    pub fn text(mut self, text: impl AsRef<str>) -> Self {
        self.text.extend(halves(text.as_ref()));
        self
    }

    /// Assistant text streamed as exactly these content deltas.
    pub fn text_chunks(mut self, chunks: &[&str]) -> Self {
        self.text.extend(chunks.iter().map(|c| c.to_string()));
        self
    }

    /// A tool call whose arguments are streamed in several fragments.
    pub fn tool_call(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        args: Value,
    ) -> Self {
        self.calls.push(FakeCall {
            id: id.into(),
            name: name.into(),
            fragments: argument_fragments(&args),
        });
        self
    }

    /// A tool call whose arguments are streamed as exactly these fragments
    /// (may be invalid JSON).
    pub fn tool_call_raw(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        fragments: &[&str],
    ) -> Self {
        self.calls.push(FakeCall {
            id: id.into(),
            name: name.into(),
            fragments: fragments.iter().map(|f| f.to_string()).collect(),
        });
        self
    }

    /// `finish_reason` (default `tool_calls` with tool calls, else `stop`).
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }

    /// A usage chunk with these prompt / completion tokens (default: none).
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Some((prompt_tokens, completion_tokens, 0));
        self
    }

    /// Usage with `prompt_tokens_details.cached_tokens`.
    pub fn usage_cached(mut self, prompt_tokens: u64, completion_tokens: u64, cached: u64) -> Self {
        self.usage = Some((prompt_tokens, completion_tokens, cached));
        self
    }

    /// End the body cleanly without `data: [DONE]` (some servers do).
    pub fn no_done(mut self) -> Self {
        self.no_done = true;
        self
    }

    /// Sleep before every frame after the first.
    pub fn frame_delay(mut self, delay: Duration) -> Self {
        self.frame_delay = delay;
        self
    }

    /// Send the end of the HTTP body (the final zero-length chunk) only
    /// `delay` after the last frame (`[DONE]`): the client sees `[DONE]`
    /// and the end of the body in different reads.
    pub fn end_body_after(mut self, delay: Duration) -> Self {
        self.end_delay = Some(delay);
        self
    }

    /// Close the connection abruptly after `n` frames.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::CutAfter(n));
        self
    }

    /// End the body cleanly after `n` frames (no `finish_reason`, no `[DONE]`).
    pub fn end_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::EndAfter(n));
        self
    }

    /// Insert a frame with invalid JSON at position `n`, then the rest.
    pub fn malformed_at(mut self, n: usize) -> Self {
        self.fault = Some(Fault::MalformedAt(n));
        self
    }

    /// After `n` frames send `data: {"error": {"message": MESSAGE, "type":
    /// "server_error"}}` and end the body.
    pub fn error_after(mut self, n: usize, message: impl Into<String>) -> Self {
        self.fault = Some(Fault::ErrorAfter(n, message.into()));
        self
    }

    /// After `n` frames send nothing more until the server is dropped.
    pub fn hang_after(mut self, n: usize) -> Self {
        self.fault = Some(Fault::HangAfter(n));
        self
    }

    /// Number of frames of the fault-free rendering.
    pub fn frame_count(&self) -> usize {
        self.frames(1).len()
    }

    fn frames(&self, position: usize) -> Vec<String> {
        let id = self
            .id
            .clone()
            .unwrap_or_else(|| format!("chatcmpl-fake-{position}"));
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_string());
        let chunk = |choices: Value| {
            json!({"id": id, "object": "chat.completion.chunk", "created": 1_700_000_000,
                   "model": model, "choices": choices})
        };
        let delta = |delta: Value, finish: Value| {
            chunk(json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]))
        };
        let mut out = vec![delta(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        )];
        for t in &self.text {
            out.push(delta(json!({"content": t}), Value::Null));
        }
        for (index, call) in self.calls.iter().enumerate() {
            out.push(delta(
                json!({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": ""}}]}),
                Value::Null,
            ));
            for fragment in &call.fragments {
                out.push(delta(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}),
                    Value::Null,
                ));
            }
        }
        let finish = self.finish_reason.clone().unwrap_or_else(|| {
            if self.calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .to_string()
        });
        out.push(delta(json!({}), json!(finish)));
        if let Some((prompt, completion, cached)) = self.usage {
            let mut usage = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                                   "total_tokens": prompt + completion});
            if cached > 0 {
                usage["prompt_tokens_details"] = json!({"cached_tokens": cached});
            }
            let mut c = chunk(json!([]));
            c["usage"] = usage;
            out.push(c);
        }
        let mut frames: Vec<String> = out.iter().map(|c| sse_data(&c.to_string())).collect();
        if !self.no_done {
            frames.push(sse_data("[DONE]"));
        }
        frames
    }

    fn render(&self, position: usize) -> WireReply {
        let mut frames = self.frames(position);
        let mut end = self
            .end_delay
            .map_or(StreamEnd::Complete, StreamEnd::CompleteAfter);
        match &self.fault {
            None => {}
            Some(Fault::CutAfter(n)) => {
                frames.truncate(*n);
                end = StreamEnd::Abort;
            }
            Some(Fault::EndAfter(n)) => frames.truncate(*n),
            Some(Fault::MalformedAt(n)) => {
                let bad = sse_data(
                    r#"{"id":"chatcmpl-bad","choices":[{"index":0,"delta":{"content":"tru"#,
                );
                frames.insert((*n).min(frames.len()), bad);
            }
            Some(Fault::ErrorAfter(n, message)) => {
                frames.truncate(*n);
                let err = json!({"error": {"message": message, "type": "server_error"}});
                frames.push(sse_data(&err.to_string()));
            }
            Some(Fault::HangAfter(n)) => {
                frames.truncate(*n);
                end = StreamEnd::Hang;
            }
        }
        let frames = frames
            .into_iter()
            .enumerate()
            .map(|(i, data)| Frame {
                delay: if i == 0 {
                    Duration::ZERO
                } else {
                    self.frame_delay
                },
                data,
            })
            .collect();
        WireReply::sse(frames, end)
    }
}

#[derive(Debug, Clone)]
enum ReplyKind {
    Completion(Completion),
    Status { status: u16, body: String },
}

/// One scripted answer to a chat-completions request.
#[derive(Debug, Clone)]
pub struct OpenAiReply {
    kind: ReplyKind,
    headers: Vec<(String, String)>,
}

impl OpenAiReply {
    pub fn completion(completion: Completion) -> Self {
        Self {
            kind: ReplyKind::Completion(completion),
            headers: Vec::new(),
        }
    }

    /// Shorthand: a completion with text only.
    pub fn text(text: impl AsRef<str>) -> Self {
        Self::completion(Completion::new().text(text))
    }

    /// Any status with a whole JSON body.
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Status {
                status,
                body: body.into(),
            },
            headers: Vec::new(),
        }
    }

    /// OpenAI's error body: `{"error": {"message", "type", "code"}}`.
    pub fn api_error(status: u16, error_type: &str, message: &str) -> Self {
        let body =
            json!({"error": {"message": message, "type": error_type, "param": null, "code": null}});
        Self::status(status, body.to_string())
    }

    /// HTTP 429 `rate_limit_exceeded`.
    pub fn rate_limited() -> Self {
        Self::api_error(
            429,
            "rate_limit_exceeded",
            "Rate limit reached, try again later",
        )
    }

    /// Adds `retry-after: SECS`.
    pub fn retry_after_secs(self, secs: u64) -> Self {
        self.header("retry-after", secs.to_string())
    }

    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The wire form; `position` is the 1-based place in the script.
    pub fn render(&self, position: usize) -> WireReply {
        let mut wire = match &self.kind {
            ReplyKind::Completion(c) => c.render(position),
            ReplyKind::Status { status, body } => WireReply::json(*status, body.clone()),
        };
        wire.headers.extend(self.headers.iter().cloned());
        wire
    }
}

fn is_completions_route(method: &str, path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    method == "POST" && path.ends_with("/chat/completions")
}

fn exhausted(index: usize) -> WireReply {
    let body = json!({"error": {"type": "server_error", "message": format!(
        "orbit-test-support: script exhausted: request #{} has no scripted reply", index + 1)}});
    WireReply::json(500, body.to_string())
}

/// The fake chat-completions server. Dropping it stops the server.
pub struct FakeOpenAi {
    server: ScriptServer,
}

impl FakeOpenAi {
    /// Starts serving `replies` in order on 127.0.0.1 (random port).
    pub fn start(replies: Vec<OpenAiReply>) -> Self {
        let wire = replies
            .iter()
            .enumerate()
            .map(|(i, r)| r.render(i + 1))
            .collect();
        Self {
            server: ScriptServer::start(wire, is_completions_route, exhausted),
        }
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: OpenAiReply) {
        let position = self.server.request_count() + self.server.remaining_replies() + 1;
        self.server.push(reply.render(position));
    }

    /// `http://127.0.0.1:PORT/v1`; use as `OPENAI_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.base_url())
    }

    /// Environment for running `orbit --provider openai` against this
    /// server: base URL, a test key, and a 1 ms retry backoff base.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("OPENAI_BASE_URL".into(), self.base_url()),
            ("OPENAI_API_KEY".into(), "test-key".into()),
            ("ORBIT_RETRY_BASE_DELAY_MS".into(), "1".into()),
        ]
    }
}

/// Captured requests and waiting come from the shared server core
/// (`requests`, `bodies`, `request_count`, `remaining_replies`,
/// `wait_for_requests`, `wait_for_requests_async`).
impl std::ops::Deref for FakeOpenAi {
    type Target = ScriptServer;

    fn deref(&self) -> &ScriptServer {
        &self.server
    }
}
