//! orbit's MCP client: servers from Claude Code's configuration become
//! tools named `mcp__SERVER__TOOL` on orbit's tool contract.
//!
//! - [`config`]: the `mcpServers` shape, `${VAR}` expansion, tool names.
//! - `client`: one connection (stdio child or streamable HTTP) over rmcp.
//! - [`manager`]: [`McpManager`] connects every server in parallel in the
//!   background and is the registry's [`orbit_tool::ToolSource`]: tools
//!   that arrive join the next request; a dead server is reported once and
//!   restarted on next use.
//! - `options`: [`McpOptions`], how servers are run, and their defaults.
//! - `server`: one server: its connection, tools, state, and calls.
//! - `resources`: `ListMcpResources` and `ReadMcpResource`.
//! - [`serve`]: `orbit mcp serve`, a [`serve::ToolHost`]'s tools over stdio.
//! - `status`: [`McpManager::status_report`], the SDK's `McpServerStatus`.
//! - `tool`: the registry entries, facts from annotations, results mapped.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod client;
pub mod config;
pub mod manager;
mod options;
mod resources;
pub mod sdk_transport;
pub mod serve;
mod server;
mod status;
mod tool;

pub use client::ClientError;
pub use config::{ServerConfig, parse_servers, parse_servers_text, tool_name};
pub use manager::{McpManager, McpOptions, ServerState, ServerStatus};
