//! Tools: the [`Tool`] trait, the [`ToolRegistry`] (names + aliases), input
//! validation with model-friendly errors ([`validation`]), shared session
//! state tools use ([`context`]), and orbit's built-in tools.
//!
//! A tool does one thing and reports honestly about itself (read-only?
//! concurrency-safe? destructive? how big may its result be?). It holds no
//! policy: validation order, permission checks, result shaping (empty
//! placeholder, persistence of large output, error truncation) all live in the
//! engine's orchestrator, which calls `validate_input` then `call`.

pub mod context;
pub mod file_state;
pub mod registry;
pub mod tool;
pub mod validation;

pub mod builtin;

pub use context::{CallContext, ToolProgress, ToolUseContext};
pub use file_state::{FileState, FileStateCache};
pub use registry::ToolRegistry;
pub use tool::{INTERRUPT_MESSAGE_FOR_TOOL_USE, Tool, ToolOutput, input_schema_for};
