//! A fake OpenAI chat-completions API: scripted [`OpenAiReply`]s rendered to
//! the exact streaming wire format (`data: {chunk}\n\n` … `data: [DONE]\n\n`).
//!
//! Data flow: a test builds [`Completion`]s (text, tool calls, usage, faults)
//! and [`OpenAiReply`]s (a completion or an HTTP status) →
//! [`FakeOpenAi::start`] renders each to a `WireReply` → the shared core
//! ([`crate::fake`] over [`crate::http::ScriptServer`]) answers
//! `POST …/chat/completions` in order and captures every request body. Rendering follows OpenAI: a first chunk with
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

mod completion;

pub use completion::Completion;

use crate::fake::{FakeServer, ReplyOf};

/// Model name reported by completions that do not set one.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1-mini";

/// One scripted answer to a chat-completions request.
pub type OpenAiReply = ReplyOf<Completion>;

/// The fake chat-completions server. Dropping it stops the server.
pub type FakeOpenAi = FakeServer<Completion>;

impl OpenAiReply {
    pub fn completion(completion: Completion) -> Self {
        Self::stream(completion)
    }
}

crate::fake::dialect! {
    Completion: POST "/chat/completions" under "/v1", env "OPENAI_BASE_URL" "OPENAI_API_KEY",
    server error "server_error", ids "chatcmpl-fake-", model DEFAULT_OPENAI_MODEL
}
