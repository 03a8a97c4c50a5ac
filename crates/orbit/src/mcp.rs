//! MCP servers for an [`Agent`](crate::Agent): the servers an
//! [`AgentBuilder`](crate::AgentBuilder) was given
//! ([`mcp_server`](crate::AgentBuilder::mcp_server), or every server of a
//! `.mcp.json`-shaped file with
//! [`mcp_config`](crate::AgentBuilder::mcp_config)) are expanded
//! (`${VAR}`, `${VAR:-default}`) and started by one
//! [`orbit_mcp::McpManager`] when the agent is built. They connect in the
//! background (the first model request does not wait); their tools,
//! `mcp__SERVER__TOOL`, join the requests once they arrive, deferred behind
//! `ToolSearch` when there are many. The servers end with the agent.
//!
//! [`options`] maps the environment (`MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT`,
//! `MAX_MCP_OUTPUT_TOKENS`) to the manager's options, for the CLI as for
//! the library.

use std::path::{Path, PathBuf};
use std::time::Duration;

use orbit_config::{Env, vars};
pub use orbit_mcp::{McpOptions, ServerConfig, ServerState, ServerStatus};
use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, read_untrusted};

use crate::{Error, McpFileError};

/// The manager's options from the environment (`MCP_TIMEOUT`,
/// `MCP_TOOL_TIMEOUT`, `MAX_MCP_OUTPUT_TOKENS`); each server's stderr goes
/// to `<data_dir>/mcp-logs/<session_id>/<server>.log`; stdio servers run in
/// `cwd` without the variables tools never see.
pub fn options(env: &Env, data_dir: &Path, cwd: &Path, session_id: &str) -> McpOptions {
    let log_dir = data_dir.join("mcp-logs").join(session_id);
    let mut options = McpOptions::new(cwd.to_path_buf(), log_dir);
    let ms = |name| {
        env.positive(name)
            .map(|n| Duration::from_millis(u64::try_from(n).unwrap_or(u64::MAX)))
    };
    if let Some(t) = ms(vars::MCP_TIMEOUT) {
        options.connect_timeout = t;
    }
    if let Some(t) = ms(vars::MCP_TOOL_TIMEOUT) {
        options.tool_timeout = t;
    }
    if let Some(n) = env.positive(vars::MAX_MCP_OUTPUT_TOKENS) {
        options.max_output_tokens = n;
    }
    options.hidden_env = orbit_config::tool_env_hidden(env);
    options
}

/// What a builder was given: servers by name and files to read them from.
#[derive(Default)]
pub(crate) struct McpSetup {
    pub(crate) servers: Vec<(String, ServerConfig)>,
    pub(crate) files: Vec<PathBuf>,
}

impl McpSetup {
    /// Every server, the ones given by name first (a name given twice
    /// keeps the first), expanded with `env`; the files are read now.
    /// A variable without a value or default is logged.
    pub(crate) fn resolve(
        self,
        env: &Env,
        log: &mut dyn FnMut(&str),
    ) -> Result<Vec<(String, ServerConfig)>, Error> {
        let mut all = self.servers;
        for path in &self.files {
            // Files the caller named: links followed, capped, no device.
            let opts = ReadOpts::user_named(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
            let file_error = |source: McpFileError| Error::McpFile {
                path: path.clone(),
                source,
            };
            let text = read_untrusted(path, &opts)
                .map_err(|e| file_error(e.into()))?
                .text();
            let servers = orbit_mcp::parse_servers_text(&text).map_err(|e| file_error(e.into()))?;
            for (name, server) in servers {
                if !all.iter().any(|(n, _)| *n == name) {
                    all.push((name, server));
                }
            }
        }
        let lookup = env.lookup();
        Ok(all
            .into_iter()
            .map(|(name, server)| {
                let (server, missing) = server.expand(&lookup);
                if !missing.is_empty() {
                    log(&format!(
                        "MCP server \"{name}\": unset variables {} (no default)",
                        missing.join(", ")
                    ));
                }
                (name, server)
            })
            .collect())
    }
}
