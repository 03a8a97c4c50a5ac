//! The tool contract of orbit: what a tool is and what the engine may ask
//! of it. An MCP client or an embedder depends on this crate alone, not on
//! orbit's built-in tools.
//!
//! - [`tool`]: [`TypedTool`] (what a tool author implements: what it says
//!   about itself in one [`ToolInfo`], a typed input parsed once, facts per
//!   call, validate → plan → call), [`typed`] (the one adapter to the
//!   object-safe [`Tool`] the registry holds),
//!   [`CallFacts`], [`ToolOutput`], [`ToolError`], [`ResultLimit`].
//! - [`detail`]: [`ToolDetail`], the facts a call reports for the embedder
//!   (never the model): Read's window, Edit/Write's patch, Bash's streams.
//! - [`registry`]: [`ToolRegistry`], lookup by name then alias (T2), and
//!   [`ToolSource`], tools that arrive while the session runs (MCP).
//! - [`validation`]: JSON Schema validation with coercion and the exact
//!   texts the model receives (T3).
//! - [`context`]: [`ToolUseContext`] (session-wide: cwd, file state, todos,
//!   extensions) and [`CallContext`] (per call: id, cancel, progress).
//! - [`file_state`]: the read-before-write cache (T5).
//! - [`schema`]: the lean input schema derived from a Rust type.
//! - [`texts`]: every text the model can receive (results, errors,
//!   refusals, denial reasons, tool descriptions), in one home.
//! - [`workspace`]: where the session's working directory may be.
//! - [`subagent`]: [`SubagentLauncher`], how the `Agent` tool reaches the
//!   session assembly to start a subagent.
//! - [`side_query`]: [`SideQuery`], one model request outside the
//!   conversation (the session's provider, its small fast model) for tools
//!   that need one (WebFetch's prompt, WebSearch, prompt hooks).
//! - [`plan`]: [`PlanExit`], how the `ExitPlanMode` tool leaves plan mode.
//! - [`skill`]: [`SkillLibrary`], how the `Skill` tool reaches the
//!   session's skills, and [`TurnGrants`], allow rules a tool opens for the
//!   rest of the user's turn.
//! - [`reply_check`]: the engine's hook on a reply that would end a
//!   prompt ([`ReplyCheck`]), which a model profile sets.
//! - [`checkpoints`]: the engine's hook around a prompt's writing calls
//!   ([`Checkpoints`]), which `orbit-checkpoint` implements.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod checkpoints;
pub mod context;
pub mod detail;
pub mod file_state;
pub mod plan;
pub mod registry;
pub mod reply_check;
pub mod schema;
pub mod side_query;
pub mod skill;
pub mod subagent;
pub mod texts;
pub mod tool;
pub mod validation;
pub mod workspace;

pub use checkpoints::Checkpoints;
pub use context::{
    CallContext, CommandLauncher, ConfineCommand, Confinement, ModelMedia, ReadFilter, ReadView,
    ToolProgress, ToolUseContext,
};
pub use detail::{
    BashDetail, ChangeKind, FileChange, PatchHunk, ReadDetail, ToolDetail, UnshownChange,
};
pub use file_state::{FileState, FileStateCache};
pub use plan::{ModeSwitch, PlanExit};
pub use registry::{NotReady, ReadyFuture, ToolRegistry, ToolSource};
pub use reply_check::{Reminder, ReplyCheck, ReplyFacts, StepFacts};
pub use schema::input_schema_for;
pub use side_query::{SharedSideQuery, SideQuery, SideQueryError};
pub use skill::{SkillLibrary, SkillLoad, TurnGranter, TurnGrants};
pub use subagent::{SubagentLauncher, SubagentReport, SubagentRequest};
pub use tool::{
    CallFacts, INTERRUPT_MESSAGE_FOR_TOOL_USE, Readiness, ResultLimit, Tool, ToolCall, ToolError,
    ToolInfo, ToolOutput, ToolReadyFuture, TypedTool, typed,
};
pub use workspace::apply_cwd_policy;
