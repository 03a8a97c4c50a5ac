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

/// Why the model stopped. Recorded, never trusted as a loop signal (L1).
pub type StopReason = String;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    MessageStart {
        id: String,
        model: String,
        usage: Usage,
    },
    /// A text block or tool_use block began (for UIs: shows the tool name early).
    ContentBlockStart {
        index: usize,
        block: ContentBlock,
    },
    TextDelta {
        index: usize,
        text: String,
    },
    ThinkingDelta {
        index: usize,
        thinking: String,
    },
    InputJsonDelta {
        index: usize,
        partial_json: String,
    },
    /// A block is complete. For tool_use blocks whose streamed input did not
    /// parse as JSON, `block.input` is `{"__unparsedToolInput": {"raw",
    /// "len"}}` and `invalid_input` holds the raw text, so the engine can
    /// answer with the "could not be parsed" error.
    ContentBlockComplete {
        index: usize,
        block: ContentBlock,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invalid_input: Option<String>,
    },
    MessageDelta {
        stop_reason: Option<StopReason>,
        usage: Usage,
    },
    MessageStop,
    /// The client will retry after `delay_ms`; everything since the last
    /// `MessageStart` is void.
    Retry {
        attempt: u32,
        max_retries: u32,
        delay_ms: u64,
        /// HTTP status, or None for a connection error / cut stream.
        error_status: Option<u16>,
        message: String,
    },
}
