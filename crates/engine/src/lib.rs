//! The engine: [`QueryEngine`] holds a session (history, usage, denials,
//! content-replacement state) and runs the tool-use loop for each submitted
//! prompt.
//!
//! Data flow of one turn (DESIGN §1), one module per step:
//! `engine` (`submit_message`) → `query` (the loop: request, stream,
//! limits, pairing) → `assemble` (assistant message from stream events) →
//! `executor` (each completed tool_use starts at once, X3–X5) →
//! [`orchestrator`] (validate → permission → call → result pipeline) →
//! [`results`] (R1–R4 per result, R2 budget per request) → next request or a
//! terminal result. Hooks (`orbit-hooks`) are consulted through one handle,
//! [`HookPoints`], by the orchestrator (tool calls) and the loop (prompt,
//! stop, compaction, session start). X1's partition of calls into batches is the executor's
//! start rule; `abort` is the L5 signal; `recovery` asks the profile's
//! `ReplyCheck` before a reply ends a prompt; [`messages`] holds the engine's own texts;
//! [`deferred`] decides which tools a request carries in full (ToolSearch).
//!
//! Persistence: with `EngineConfig::persist_session`, the [`Session`]
//! records every change to its transcript (`recorder`, over
//! `orbit_session`) and the loop makes it durable right before each model
//! request; [`QueryEngine::resume`] rebuilds a session from
//! [`load_transcript`].

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod abort;
mod approve;
mod assemble;
pub mod compact;
pub mod context_usage;
pub mod deferred;
mod engine;
mod executor;
mod hooks;
pub mod messages;
pub mod orchestrator;
mod query;
mod readiness;
mod recorder;
mod recovery;
pub mod results;
mod session;
pub mod structured;

pub use abort::AbortHandle;
pub use approve::{Approval, ApprovalRequest, Approver, SharedApprover};
pub use compact::{CompactConfig, CompactError, CompactionBoundary, context_window_tokens};
pub use context_usage::ContextUsage;
pub use deferred::{TOOL_SEARCH_NAME, ToolSearchMode};
pub use engine::{
    DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_MAX_TOOL_USE_CONCURRENCY, EngineConfig, QueryEngine,
};
pub use executor::StreamingToolExecutor;
pub use hooks::HookPoints;
pub use orchestrator::{ToolCallOutcome, ToolRuntime};
pub use query::{DEFAULT_REPEATED_TOOL_CALL_LIMIT, MAX_OUTPUT_TOKENS_RECOVERY_LIMIT};
pub use orbit_tool::reply_check::{Reminder, ReplyCheck, ReplyFacts, StepFacts};
pub use session::{Session, load_transcript};
pub use structured::{DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, SchemaError, StructuredOutputSchema};
