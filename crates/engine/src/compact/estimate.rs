//! The token estimate of a request, without a tokenizer.
//!
//! The last response's reported usage is exact for everything up to and
//! including its assistant message (input, cache reads and writes, and its
//! output): the session keeps it as a [`ContextAnchor`]. What was added
//! since (tool results, a new prompt) is estimated from its size at
//! [`BYTES_PER_TOKEN`] bytes per token, deliberately low (code and JSON
//! tokenize denser than prose) so the estimate errs high. Without an anchor
//! (first request, after a compaction, a provider that reports no usage)
//! the whole request is estimated that way. Cost: the size of the messages
//! after the anchor, so a long session does not pay for its whole history
//! per turn.

use std::borrow::Borrow;

use orbit_model::ToolSpec;
use orbit_protocol::{ContentBlock, Message, ToolResultContent, ToolResultContentBlock, Usage};

/// Bytes per token assumed for content the API has not counted yet.
pub(crate) const BYTES_PER_TOKEN: u64 = 3;

/// Bytes charged per message for its role and framing.
const MESSAGE_OVERHEAD_BYTES: u64 = 24;

/// Bytes charged per content block for its type and framing (a JSON
/// `{"type":"tool_result","tool_use_id":…,"content":…}` is about this).
const BLOCK_OVERHEAD_BYTES: u64 = 40;

/// Bytes charged per image (about 1,600 tokens, as the API counts a
/// medium-size image).
const IMAGE_BYTES: u64 = 1_600 * BYTES_PER_TOKEN;

/// What the API counted for the history up to a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContextAnchor {
    /// Tokens of the request plus its answer, as reported.
    pub(crate) tokens: u64,
    /// The history length the count covers (the answer included).
    pub(crate) messages: usize,
}

impl ContextAnchor {
    /// The anchor of a response of `usage` whose assistant message ends at
    /// history length `messages`; None when the provider reported nothing.
    pub(crate) fn from_usage(usage: &Usage, messages: usize) -> Option<Self> {
        let tokens = usage.input_tokens
            + usage.cache_creation_input_tokens
            + usage.cache_read_input_tokens
            + usage.output_tokens;
        (tokens > 0).then_some(Self { tokens, messages })
    }
}

/// Size of a message as the estimate counts it.
pub(crate) fn message_bytes(message: &Message) -> u64 {
    MESSAGE_OVERHEAD_BYTES
        + message
            .content
            .iter()
            .map(|b| BLOCK_OVERHEAD_BYTES + block_bytes(b))
            .sum::<u64>()
}

fn block_bytes(block: &ContentBlock) -> u64 {
    let len = |s: &str| s.len() as u64;
    match block {
        ContentBlock::Text { text, .. } => len(text),
        ContentBlock::ToolUse(t) => len(&t.id) + len(&t.name) + len(&t.input.to_string()),
        ContentBlock::ToolResult(r) => len(&r.tool_use_id) + result_bytes(&r.content),
        ContentBlock::Thinking {
            thinking,
            signature,
        } => len(thinking) + len(signature),
        ContentBlock::RedactedThinking { data } => len(data),
        ContentBlock::Image { .. } => IMAGE_BYTES,
    }
}

fn result_bytes(content: &ToolResultContent) -> u64 {
    match content {
        ToolResultContent::Text(t) => t.len() as u64,
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ToolResultContentBlock::Text { text } => text.len() as u64,
                ToolResultContentBlock::Image { .. } | ToolResultContentBlock::Document { .. } => {
                    IMAGE_BYTES
                }
            })
            .sum(),
    }
}

/// Tokens of the parts of a request that are not messages.
pub(crate) fn fixed_tokens(system: &str, tools: &[ToolSpec]) -> u64 {
    let tools_bytes = serde_json::to_string(tools).map_or(0, |s| s.len() as u64);
    (system.len() as u64 + tools_bytes).div_ceil(BYTES_PER_TOKEN)
}

/// Tokens of `messages` by size alone (owned, or a request's shared ones).
pub(crate) fn messages_tokens<M: Borrow<Message>>(messages: &[M]) -> u64 {
    messages
        .iter()
        .map(|m| message_bytes(m.borrow()))
        .sum::<u64>()
        .div_ceil(BYTES_PER_TOKEN)
}

/// The estimated tokens of a request with these parts: the anchor's count
/// plus the size of what follows it, or everything by size.
pub(crate) fn request_tokens<M: Borrow<Message>>(
    system: &str,
    tools: &[ToolSpec],
    messages: &[M],
    anchor: Option<ContextAnchor>,
) -> u64 {
    match anchor {
        Some(anchor) if anchor.messages <= messages.len() => {
            anchor.tokens + messages_tokens(&messages[anchor.messages..])
        }
        _ => fixed_tokens(system, tools) + messages_tokens(messages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_counts_what_came_before_it() {
        let messages = vec![
            Message::user_text("x".repeat(3_000)),
            Message::assistant(vec![ContentBlock::text("ok")]),
            Message::user_text("y".repeat(300)),
        ];
        let usage = Usage {
            input_tokens: 900,
            output_tokens: 5,
            ..Usage::default()
        };
        let anchor = ContextAnchor::from_usage(&usage, 2);
        assert_eq!(
            request_tokens("", &[], &messages, anchor),
            905 + (300 + MESSAGE_OVERHEAD_BYTES + BLOCK_OVERHEAD_BYTES).div_ceil(BYTES_PER_TOKEN)
        );
        // No usage reported: no anchor, everything by size.
        assert_eq!(ContextAnchor::from_usage(&Usage::default(), 2), None);
        let by_size = request_tokens("sys", &[], &messages, None);
        assert!(by_size > 1_100, "{by_size}");
        // An anchor past the history (it was replaced) is ignored.
        let stale = Some(ContextAnchor {
            tokens: 1,
            messages: 9,
        });
        assert_eq!(request_tokens("sys", &[], &messages, stale), by_size);
    }
}
