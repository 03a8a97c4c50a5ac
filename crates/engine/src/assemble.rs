//! Builds the assistant message of one model call from its
//! [`StreamEvent`]s.
//!
//! Only `ContentBlockComplete` contributes content (the model client has
//! already assembled text, thinking + signature, redacted thinking and
//! tool_use input); deltas are for UIs. `MessageStart` gives the API id,
//! model and initial usage, `MessageDelta` the stop_reason and final usage.
//! A `Retry` voids the attempt: everything collected so far is discarded,
//! except its usage: every attempt the API billed is counted in
//! [`AssembledMessage::billed_usage`].

use std::collections::BTreeMap;

use orbit_protocol::{ContentBlock, Message, StreamEvent, Usage};

/// The assistant message of one model call, with its metadata.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AssembledMessage {
    /// The assembled assistant message.
    pub message: Message,
    /// API message id (`msg_…`), when the provider gave one.
    pub message_id: Option<String>,
    /// The model that answered, when the stream named it.
    pub model: Option<String>,
    /// Why the model stopped, when known.
    pub stop_reason: Option<String>,
    /// Usage of the attempt that produced this message.
    pub usage: Usage,
    /// Usage of every attempt of this call, voided ones included: what the
    /// API billed, and what cost and budget count.
    pub billed_usage: Usage,
}

impl AssembledMessage {
    /// Whether the message contains at least one tool_use block.
    pub(crate) fn has_tool_use(&self) -> bool {
        self.message.tool_uses().next().is_some()
    }
}

/// Builds an [`AssembledMessage`] from the [`StreamEvent`]s of one model call, retries included.
#[derive(Debug, Default)]
pub(crate) struct MessageAssembler {
    message_id: Option<String>,
    model: Option<String>,
    usage: Usage,
    stop_reason: Option<String>,
    /// Completed blocks by stream index, so the message keeps the API's order.
    blocks: BTreeMap<usize, ContentBlock>,
    stopped: bool,
    /// Usage of the attempts voided by a retry.
    voided_usage: Usage,
}

impl MessageAssembler {
    /// An assembler that has seen no event.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Feeds one event of the stream.
    pub(crate) fn apply(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::MessageStart { id, model, usage } => {
                self.void_attempt();
                self.message_id = Some(id.clone()).filter(|s| !s.is_empty());
                self.model = Some(model.clone()).filter(|s| !s.is_empty());
                self.usage = *usage;
            }
            StreamEvent::ContentBlockComplete { index, block, .. } => {
                self.blocks.insert(*index, block.clone());
            }
            StreamEvent::MessageDelta { stop_reason, usage } => {
                if stop_reason.is_some() {
                    self.stop_reason = stop_reason.clone();
                }
                self.usage.merge_delta(usage);
            }
            StreamEvent::MessageStop => self.stopped = true,
            StreamEvent::Retry { .. } => self.void_attempt(),
            StreamEvent::ContentBlockStart { .. }
            | StreamEvent::TextDelta { .. }
            | StreamEvent::ThinkingDelta { .. }
            | StreamEvent::InputJsonDelta { .. } => {}
        }
    }

    /// Forgets the current attempt, keeping its usage in `voided_usage`.
    fn void_attempt(&mut self) {
        let mut voided = self.voided_usage;
        voided.add(&self.usage);
        *self = Self {
            voided_usage: voided,
            ..Self::default()
        };
    }

    /// Whether `message_stop` has arrived.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Whether any block has completed in the current attempt.
    #[cfg(test)]
    pub(crate) fn has_content(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// The message so far: complete blocks only (a block cut mid-stream is
    /// dropped, a partial tool_use never enters the history).
    pub(crate) fn finish(self) -> AssembledMessage {
        let mut billed_usage = self.voided_usage;
        billed_usage.add(&self.usage);
        AssembledMessage {
            billed_usage,
            message: Message::assistant(self.blocks.into_values().collect()),
            message_id: self.message_id,
            model: self.model,
            stop_reason: self.stop_reason,
            usage: self.usage,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn complete(index: usize, block: ContentBlock) -> StreamEvent {
        StreamEvent::ContentBlockComplete {
            index,
            block,
            invalid_input: None,
        }
    }

    #[test]
    fn assembles_blocks_in_index_order_with_metadata() {
        let mut a = MessageAssembler::new();
        a.apply(&StreamEvent::MessageStart {
            id: "msg_1".into(),
            model: "claude-x".into(),
            usage: Usage {
                input_tokens: 10,
                ..Usage::default()
            },
        });
        let tool = ContentBlock::tool_use("toolu_1", "Read", json!({"file_path": "a"}));
        a.apply(&complete(1, tool.clone()));
        a.apply(&complete(0, ContentBlock::text("hi")));
        a.apply(&StreamEvent::MessageDelta {
            stop_reason: Some("tool_use".into()),
            usage: Usage {
                output_tokens: 7,
                ..Usage::default()
            },
        });
        a.apply(&StreamEvent::MessageStop);
        assert!(a.is_stopped());
        let m = a.finish();
        assert_eq!(m.message.content, vec![ContentBlock::text("hi"), tool]);
        assert_eq!(m.message_id.as_deref(), Some("msg_1"));
        assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!((m.usage.input_tokens, m.usage.output_tokens), (10, 7));
        assert!(m.has_tool_use());
    }

    #[test]
    fn a_retry_voids_the_attempt() {
        let mut a = MessageAssembler::new();
        a.apply(&complete(0, ContentBlock::text("partial")));
        a.apply(&StreamEvent::Retry {
            attempt: 1,
            max_retries: 10,
            delay_ms: 0,
            error_status: None,
            message: "cut".into(),
        });
        assert!(!a.has_content());
        assert!(a.finish().message.content.is_empty());
    }
}
