//! Pure data shared by every orbit crate. No I/O, no async: serde types only.
//!
//! - `content`: the Anthropic Messages API shapes (content blocks, messages)
//!   that make up a conversation; every provider is normalized to these.
//! - `usage` ([`Usage`]): token counts as the API reports them.
//! - `stream`: the normalized events a model client yields while a response
//!   streams in ([`StreamEvent`]), independent of the provider's wire format.
//! - [`events`]: what the engine reports to its embedder during a turn
//!   (`EngineEvent`), including the terminal result.
//! - [`sdk`]: the stream-json / json output lines of the headless CLI, shaped
//!   like the Claude Agent SDK's messages.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod content;
pub mod events;
pub mod sdk;
mod stream;
mod usage;

pub use content::{
    ContentBlock, ImageSource, Message, Role, ToolResultBlock, ToolResultContent,
    ToolResultContentBlock, ToolUseBlock,
};
pub use events::{
    CompactTrigger, EngineEvent, HookReport, HookRunOutcome, PermissionDenial, ResultSubtype,
    TerminalResult, TodoItem,
};
pub use stream::StreamEvent;
pub use usage::Usage;
