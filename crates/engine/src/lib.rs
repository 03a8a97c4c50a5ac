//! The engine: [`QueryEngine`] holds a session (history, usage, denials,
//! content-replacement state) and runs the tool-use loop for each submitted
//! prompt; [`ToolRunner`] runs a session's tools one call at a time without
//! a conversation (`orbit mcp serve`). Front ends do not build either by
//! hand: `orbit::SessionSpec` assembles a session (the security defaults
//! included) and calls them.
//!
//! Data flow of one turn (DESIGN §1), one module per step:
//! `engine` (`submit_message`) → `query` (the loop: request, stream,
//! limits, pairing; each request built by `request`, compaction applied by
//! `query::compaction`) → `assemble` (assistant message from stream events) →
//! `executor` (each completed tool_use starts at once, X3–X5) →
//! `prepare` (lookup, schema, parse) → `orchestrator` (validate →
//! permission → call → result pipeline) →
//! `results` (R1–R4 per result, R2 budget per request) → next request or a
//! terminal result. Hooks (`orbit-hooks`) are consulted through one handle,
//! `hooks::HookPoints`, by the orchestrator (tool calls) and the loop (prompt,
//! stop, compaction, session start). X1's partition of calls into batches is the executor's
//! start rule; `abort` is the L5 signal; `recovery` asks the profile's
//! `ReplyCheck` before a reply ends a prompt; `messages` holds the engine's own texts;
//! `deferred` decides which tools a request carries in full (ToolSearch).
//! `attachments` lets the embedder add text to a finished call's result
//! (`EngineConfig::result_attachments`: orbit's nested memory files).
//! `checkpoint` tells the embedder where a prompt's writing calls begin
//! (`EngineConfig::checkpoints`: orbit's snapshots for rewind).
//!
//! `config` (what shapes a session) is a leaf; no module imports one that
//! imports it back.
//!
//! Persistence: with `EngineConfig::persist_session`, the [`Session`]
//! records every change to its transcript (`recorder`, over
//! `orbit_session`) and the loop makes it durable right before each model
//! request; [`QueryEngine::resume`] rebuilds a session from
//! [`load_transcript`].
//!
//! Every module is private: the `pub use` list below is the engine's whole
//! public surface (what embedders, `orbit` and this crate's integration
//! tests use).

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod abort;
mod approve;
mod assemble;
mod attachments;
mod checkpoint;
mod compact;
mod config;
mod context_usage;
mod deferred;
mod denials;
mod engine;
mod executor;
mod gate;
mod grants;
mod hooks;
mod local_command;
mod lock;
mod messages;
mod orchestrator;
mod prepare;
mod prompt_session;
mod query;
mod readiness;
mod recorder;
mod recovery;
mod request;
mod results;
mod runner;
mod runtime;
mod session;
mod structured;
mod turn_permissions;

pub use abort::AbortHandle;
pub use approve::{
    Approval, ApprovalRequest, Approver, AskingAgent, SharedApprover, SubagentApprover,
};
pub use attachments::{ResultAttachments, ResultFacts};
pub use checkpoint::Checkpoints;
pub use compact::{CompactError, CompactionBoundary, context_window_tokens};
pub use config::{
    CompactConfig, DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_MAX_TOOL_USE_CONCURRENCY,
    DEFAULT_REPEATED_TOOL_CALL_LIMIT, EngineConfig,
};
pub use context_usage::ContextUsage;
pub use deferred::{TOOL_SEARCH_NAME, ToolSearchMode};
pub use engine::QueryEngine;
pub use executor::StreamingToolExecutor;
pub use grants::GrantScope;
pub use local_command::SYNTHETIC_MODEL;
pub use messages::{CANCEL_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE, MAX_TOKENS_CONTINUE_MESSAGE};
pub use orbit_tool::reply_check::{Reminder, ReplyCheck, ReplyFacts, StepFacts};
pub use prompt_session::PromptToolOutcome;
pub use query::MAX_OUTPUT_TOKENS_RECOVERY_LIMIT;
pub use results::{
    ContentReplacementState, DEFAULT_PER_MESSAGE_BUDGET_CHARS, ToolResultStorage,
    enforce_tool_result_budget, format_error, format_file_size, generate_preview,
    persisted_output_message, process_tool_result, project_slug,
};
pub use runner::ToolRunner;
pub use session::{Session, load_transcript};
pub use structured::{DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, SchemaError, StructuredOutputSchema};
