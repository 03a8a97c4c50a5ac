//! The summary request: the conversation as the next request would send it
//! (derived from that request, [`summary_request`]: same model, system
//! prompt and tools, so a provider's prompt cache still hits),
//! the instructions appended as the last user message, shrunk to fit the
//! window less the summary's output; then its streamed answer, read
//! through the same [`MessageAssembler`] as any model call.

use std::sync::Arc;

use futures::StreamExt;
use orbit_model::{ModelClient, ModelError, ModelRequest};
use orbit_protocol::{ContentBlock, Message, Role, Usage};
use tokio_util::sync::CancellationToken;

use super::shrink::shrink_to_fit;
use crate::assemble::MessageAssembler;

/// Why no summary came back.
#[derive(Debug)]
pub(crate) enum SummaryFailure {
    /// The run was interrupted: nothing may change.
    Interrupted,
    /// The model call failed or answered without text: use the fallback.
    Failed(String),
}

/// What a summary call produced.
pub(crate) struct SummaryAnswer {
    /// Every attempt's usage (counted whatever the outcome).
    pub(crate) billed_usage: Usage,
    /// The model that answered, when the stream named it.
    pub(crate) model: Option<String>,
    /// The summary text, or why there is none.
    pub(crate) summary: Result<String, SummaryFailure>,
}

/// The summary request derived from `turn` (the request the loop built):
/// everything as `turn` sends it but the messages, `max_tokens` of
/// output, no extended thinking and no one-call limit.
pub(crate) fn summary_request(
    turn: &ModelRequest,
    messages: Vec<Message>,
    max_tokens: u64,
) -> ModelRequest {
    ModelRequest {
        messages: messages.into_iter().map(Arc::new).collect(),
        max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
        thinking_budget: None,
        one_tool_call: false,
        ..turn.clone()
    }
}

/// The summary request's messages: `view` plus `instructions` as the last
/// user message (merged into a trailing user message, so roles alternate),
/// shrunk so `fixed_tokens` plus them fit `input_budget_tokens`.
pub(crate) fn summary_messages(
    view: &[Message],
    instructions: String,
    fixed_tokens: u64,
    input_budget_tokens: u64,
) -> Vec<Message> {
    let mut messages = view.to_vec();
    let instructions = ContentBlock::text(instructions);
    match messages.last_mut() {
        Some(last) if last.role == Role::User => last.content.push(instructions),
        _ => messages.push(Message::user(vec![instructions])),
    }
    shrink_to_fit(&mut messages, fixed_tokens, input_budget_tokens);
    messages
}

/// Sends the summary request and reads its text (tool_use blocks, if the
/// model calls a tool anyway, are ignored).
pub(crate) async fn request_summary(
    client: &dyn ModelClient,
    request: &ModelRequest,
    cancel: &CancellationToken,
) -> SummaryAnswer {
    let mut assembler = MessageAssembler::new();
    let mut stream = client.stream(request);
    let end: Result<(), SummaryFailure> = loop {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => break Err(SummaryFailure::Interrupted),
            item = stream.next() => match item {
                Some(Ok(event)) => {
                    assembler.apply(&event);
                    if assembler.is_stopped() {
                        break Ok(());
                    }
                }
                Some(Err(error)) => break Err(SummaryFailure::Failed(error.to_string())),
                None => break Err(SummaryFailure::Failed(ModelError::StreamCut.to_string())),
            },
        }
    };
    drop(stream);
    let assembled = assembler.finish();
    let summary = end.and_then(|()| {
        let text = assembled.message.text();
        if text.trim().is_empty() {
            Err(SummaryFailure::Failed(
                "the summary response had no text".to_string(),
            ))
        } else {
            Ok(text.trim().to_string())
        }
    });
    SummaryAnswer {
        billed_usage: assembled.billed_usage,
        model: assembled.model,
        summary,
    }
}
