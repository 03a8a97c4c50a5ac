//! orbit's side of the Claude Agent SDK: the stream-json and json output
//! formats and the control protocol, typed both ways. The binary builds
//! the session and picks a writer; everything the SDK's lines mean lives
//! here.
//!
//! Data flow of an SDK session (`--input-format stream-json`): the
//! binary starts [`Control::spawn_reader`] on stdin → [`handshake`] takes
//! the SDK's `initialize` (its hooks, agents and MCP bridge go into the
//! session's set-up; the whole request goes back to the binary, which
//! folds its system prompt, MCP servers, settings, denied tools and
//! directories into the flags they stand for) → the engine is built → [`run_session`] runs turns
//! from user messages and answers [`ControlRequest`]s meanwhile, every
//! engine event going to a [`StreamWriter`]. orbit's own requests to the
//! SDK ([`OutgoingRequest`]: `can_use_tool` through [`SdkApprover`],
//! `hook_callback`, `mcp_message`) share the reader's pending map.
//!
//! Modules: [`message`] (the typed wire messages), `control` (reader,
//! requests, answers, the approver), `init` (the handshake), `session`
//! (the turn loop), `context` (`get_context_usage`, `mcp_status`),
//! `writer` (json and stream-json), `lines` and `tool_result` (the fields
//! Claude Code's readers take beyond orbit's events, from the tools'
//! [`orbit_tool::ToolDetail`] facts), `notices` (stderr lines for a
//! person), `prompt_tool` (`--permission-prompt-tool NAME`), `manifests`
//! (the TypeScript SDK's captured MCP handshakes), `suggestions`
//! (`can_use_tool`'s permission suggestions and the rule an answer picks).

mod context;
mod control;
mod init;
mod lines;
mod manifests;
pub mod message;
mod notices;
mod prompt_tool;
mod rewind;
mod session;
mod suggestions;
mod tool_result;
mod writer;

pub use context::{ContextSnapshot, mcp_status};
pub use control::{Control, Incoming, SdkApprover, decision, respond, write_line};
pub use init::{
    Handshake, HandshakeError, answer as initialize_answer, command_entries, handshake,
    handshake_with_commands, not_honoured as initialize_not_honoured,
};
pub use lines::{SdkTracker, raw_stream_event, result_text, terminal_reason};
pub use message::{ControlRequest, ControlResponse, InboundLine, OutgoingRequest};
pub use notices::{LineFilter, Notices, fallback_note, one_line};
pub use prompt_tool::PromptTool;
pub use session::{OutputState, Parts as SessionParts, run as run_session};
pub use writer::{EventSink, InitInfo, JsonFormat, StreamWriter, exit_code, to_sdk_result};
