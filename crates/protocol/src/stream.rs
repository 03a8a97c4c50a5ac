//! Normalized streaming events, the contract between a model client and the
//! engine. A provider's wire format (Anthropic SSE, OpenAI chunks) is turned
//! into this sequence; the engine cannot tell providers apart.
//!
//! Order within one attempt: `MessageStart`, then per content block a start,
//! deltas and exactly one `ContentBlockComplete` (with the assembled block),
//! then `MessageDelta`, then `MessageStop`. A `Retry` means the attempt so far
//! is void (the stream was cut or the server failed) and a new attempt begins
//! with a fresh `MessageStart`.

use serde::{Deserialize, Serialize};

use crate::content::ContentBlock;
use crate::usage::Usage;

/// One normalized event of a model response; see the module docs for the order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A response (attempt) began.
    MessageStart {
        /// The provider's message or completion id (a placeholder when it sent none).
        id: String,
        /// The model that answers.
        model: String,
        /// Usage known at the start (input tokens for Anthropic; zero for OpenAI-style servers).
        usage: Usage,
    },
    /// A text block or tool_use block began (for UIs: shows the tool name early).
    ContentBlockStart {
        /// The block's position in the message, from 0.
        index: usize,
        /// The block as known at its start (empty text, tool_use without input).
        block: ContentBlock,
    },
    /// A piece of a text block.
    TextDelta {
        /// The block's position in the message.
        index: usize,
        /// The new text.
        text: String,
    },
    /// A piece of a thinking block.
    ThinkingDelta {
        /// The block's position in the message.
        index: usize,
        /// The new thinking text.
        thinking: String,
    },
    /// A piece of a tool_use block's input JSON.
    InputJsonDelta {
        /// The block's position in the message.
        index: usize,
        /// The new JSON text (not valid JSON on its own).
        partial_json: String,
    },
    /// A block is complete. For tool_use blocks whose streamed input did not
    /// parse as JSON, `block.input` is `{"__unparsedToolInput": {"raw",
    /// "len"}}` and `invalid_input` holds the raw text, so the engine can
    /// answer with the "could not be parsed" error.
    ContentBlockComplete {
        /// The block's position in the message.
        index: usize,
        /// The assembled block.
        block: ContentBlock,
        /// The raw input text when a tool_use input did not parse.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invalid_input: Option<String>,
    },
    /// The response is ending: stop reason and final usage.
    MessageDelta {
        /// Why the model stopped, when known. Recorded, never trusted as a
        /// loop signal (L1).
        stop_reason: Option<String>,
        /// Usage counts; merge into the `MessageStart` usage with [`Usage::merge_delta`].
        usage: Usage,
    },
    /// The response ended.
    MessageStop,
    /// The client will retry after `delay_ms`; everything since the last
    /// `MessageStart` is void.
    Retry {
        /// Which retry this is, from 1.
        attempt: u32,
        /// How many retries are allowed.
        max_retries: u32,
        /// Wait before the retry, in milliseconds.
        delay_ms: u64,
        /// HTTP status, or None for a connection error / cut stream.
        error_status: Option<u16>,
        /// What went wrong.
        message: String,
    },
}
