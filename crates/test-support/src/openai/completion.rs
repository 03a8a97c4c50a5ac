//! [`Completion`]: one streamed chat completion of the fake OpenAI API and
//! its rendering to SSE `data:` chunks (role chunk, content deltas, tool
//! call deltas, `finish_reason`, usage, `[DONE]`), with the fault, if any,
//! applied.

use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Frame, WireReply, sse_data};
use crate::script::{Delivery, Fault, halves, stream_builders, thirds, tool_builders};

/// The chunk `malformed_at` inserts: a content delta cut mid-string.
const MALFORMED_CHUNK: &str =
    "data: {\"id\":\"chatcmpl-bad\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tru\n\n";

#[derive(Debug, Clone)]
struct FakeCall {
    id: String,
    name: String,
    fragments: Vec<String>,
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
    delivery: Delivery,
}

/// Serialized arguments in up to three fragments (`{}` as one).
fn argument_fragments(args: &Value) -> Vec<String> {
    thirds(&args.to_string())
}

impl Completion {
    pub fn new() -> Self {
        Self::default()
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

    tool_builders! {
        /// A tool call whose arguments are streamed in several fragments.
        tool_call with argument_fragments,
        /// A tool call whose arguments are streamed as exactly these fragments
        /// (may be invalid JSON).
        tool_call_raw,
    }

    fn tool(mut self, id: String, name: String, fragments: Vec<String>) -> Self {
        self.calls.push(FakeCall {
            id,
            name,
            fragments,
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

    /// After `n` frames send `data: {"error": {"message": MESSAGE, "type":
    /// "server_error"}}` and end the body.
    pub fn error_after(self, n: usize, message: impl Into<String>) -> Self {
        let error = json!({"error": {"message": message.into(), "type": "server_error"}});
        self.fault(Fault::ErrorAfter(n, sse_data(&error.to_string())))
    }

    stream_builders!(frame_delay);

    /// Number of frames of the fault-free rendering.
    pub fn frame_count(&self) -> usize {
        self.frames(1).len()
    }

    fn frames(&self, position: usize) -> Vec<String> {
        let (id, model) = self.id_and_model(position);
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

    /// OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`.
    pub(super) fn wire_error_body(error_type: &str, message: &str) -> String {
        json!({"error": {"message": message, "type": error_type, "param": null, "code": null}})
            .to_string()
    }

    /// Renders the completion (with its fault) as a wire reply.
    pub(super) fn render_stream(&self, position: usize) -> WireReply {
        let frames = self
            .frames(position)
            .into_iter()
            .enumerate()
            .map(|(i, data)| Frame {
                delay: if i == 0 {
                    Duration::ZERO
                } else {
                    self.delivery.gap
                },
                data,
            })
            .collect();
        self.delivery.render(frames, MALFORMED_CHUNK)
    }
}
