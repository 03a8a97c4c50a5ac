//! orbit's built-in tools: Read, Write, Edit, Bash (+ BashOutput,
//! KillShell), Glob, Grep, LS, TodoWrite, WebFetch, each with Claude Code's
//! observable behaviour, on the contract of the `orbit-tool` crate.
//!
//! A tool does one thing and reports honestly about each call (its facts:
//! read-only? concurrency-safe? which paths? which command?). It holds no
//! policy: validation order, permission checks, result shaping (empty
//! placeholder, persistence of large output, error truncation) all live in
//! the engine's orchestrator. Every text a tool sends the model (its
//! description included) is spelled in `orbit_tool::texts::tools`; the
//! snapshot test `tests/suite/texts.rs` shows each one.

pub mod builtin;

pub use orbit_tool::{
    CallContext, FileState, FileStateCache, INTERRUPT_MESSAGE_FOR_TOOL_USE, ToolProgress,
    ToolRegistry, ToolUseContext, input_schema_for,
};
pub use orbit_tool::{Tool, ToolOutput};
/// The contract, re-exported under the paths the built-ins use.
pub use orbit_tool::{context, file_state, registry, validation};
