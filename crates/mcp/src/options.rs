//! [`McpOptions`]: how the session's MCP servers are run (timeouts, the
//! output cap, log dir, cwd, hidden variables, the SDK bridge) and their
//! defaults. A leaf: the manager builds servers from it and each server
//! reads its timeouts and result limit from it.

use std::path::PathBuf;
use std::time::Duration;

use orbit_tool::ResultLimit;

/// `MCP_TIMEOUT`'s default: how long connecting may take, in ms.
pub const MCP_CONNECT_TIMEOUT_DEFAULT_MS: u64 = 30_000;
/// `MCP_TOOL_TIMEOUT`'s default: how long one call may take, in ms (as
/// Claude Code: practically unbounded; the user interrupts).
pub const MCP_TOOL_TIMEOUT_DEFAULT_MS: u64 = 100_000_000;
/// `MAX_MCP_OUTPUT_TOKENS`'s default, in tokens.
pub const MAX_MCP_OUTPUT_TOKENS_DEFAULT: usize = 25_000;
/// Chars per token when turning `MAX_MCP_OUTPUT_TOKENS` into a result limit.
const CHARS_PER_TOKEN: usize = 4;

/// How the session's servers are run.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// `MCP_TIMEOUT`: connecting (start + handshake + tool list).
    pub connect_timeout: Duration,
    /// `MCP_TOOL_TIMEOUT`: one tool call.
    pub tool_timeout: Duration,
    /// `MAX_MCP_OUTPUT_TOKENS`: a longer result is persisted (R1) and the
    /// model gets a preview.
    pub max_output_tokens: usize,
    /// Where each stdio server's stderr is appended (`<dir>/<server>.log`).
    pub log_dir: PathBuf,
    /// The working directory of stdio servers.
    pub cwd: PathBuf,
    /// Variables removed from stdio servers' environment.
    pub hidden_env: Vec<String>,
    /// How `{"type": "sdk"}` servers are reached: the control protocol of
    /// the program driving this session; None = such servers fail to
    /// connect with a clear error.
    pub sdk_bridge: Option<crate::sdk_transport::SharedBridge>,
}

impl McpOptions {
    /// Defaults for a session in `cwd` logging to `log_dir`.
    pub fn new(cwd: PathBuf, log_dir: PathBuf) -> Self {
        Self {
            connect_timeout: Duration::from_millis(MCP_CONNECT_TIMEOUT_DEFAULT_MS),
            tool_timeout: Duration::from_millis(MCP_TOOL_TIMEOUT_DEFAULT_MS),
            max_output_tokens: MAX_MCP_OUTPUT_TOKENS_DEFAULT,
            log_dir,
            cwd,
            hidden_env: Vec::new(),
            sdk_bridge: None,
        }
    }
}

impl McpOptions {
    /// R1 for MCP results: `MAX_MCP_OUTPUT_TOKENS` in chars.
    pub(crate) fn result_limit(&self) -> ResultLimit {
        ResultLimit::PersistOver(self.max_output_tokens.saturating_mul(CHARS_PER_TOKEN))
    }
}
