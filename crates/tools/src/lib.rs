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

#![warn(unreachable_pub)]

pub mod builtin;

pub use orbit_tool::{
    CallContext, INTERRUPT_MESSAGE_FOR_TOOL_USE, Tool, ToolOutput, ToolProgress, ToolRegistry,
    ToolUseContext,
};
/// The contract, under the paths the built-ins use.
pub(crate) use orbit_tool::{context, registry};
/// The contract's file-state cache (T5) and input validation (T3), for
/// callers that drive the built-ins themselves.
pub use orbit_tool::{file_state, validation};
