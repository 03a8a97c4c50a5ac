//! `orbit mcp serve`: orbit's built-in tools over stdio MCP, for other
//! clients. Every call goes through the same path as a headless run's:
//! the engine's orchestrator (schema validation with the T3 texts →
//! business validation → the permission gate over the call's facts →
//! the call → the result pipeline). The gate is headless: in the default
//! mode only read-only calls run (Read, Glob, Grep, LS, read-only Bash);
//! `--permission-mode` and `--allowedTools` / settings rules allow more,
//! exactly as they do for `orbit -p`.
//!
//! Data flow: MCP `tools/call` (rmcp, `orbit_mcp::serve`) → [`Host::call`]
//! → `ToolRunner::run_one` (the session assembled by `orbit::SessionSpec`,
//! with its security defaults) → the tool_result's text and `isError`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use async_trait::async_trait;
use clap::Parser;
use orbit::{SessionSpec, ToolRunner};
use orbit_config::Env;
use orbit_mcp::serve::{ServedTool, ToolHost, serve_stdio};
use orbit_protocol::{ToolResultContent, ToolUseBlock};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::args::Args;

/// Serves the built-in tools until the client disconnects.
pub fn run(
    env: &Env,
    cwd: &Path,
    permission_mode: Option<&str>,
    allowed_tools: &[String],
) -> anyhow::Result<()> {
    // The permission flags as `orbit -p` reads them, so settings rules and
    // the mode resolve the same way.
    let mut argv = vec!["orbit".to_string()];
    if let Some(mode) = permission_mode {
        argv.extend(["--permission-mode".into(), mode.into()]);
    }
    for rule in allowed_tools {
        argv.extend(["--allowedTools".into(), rule.clone()]);
    }
    let args = Args::try_parse_from(argv).context("orbit mcp serve")?;
    let cwd = cwd.canonicalize().context("the current directory")?;
    let (config, _) = crate::configure::load(&args, env, &cwd)?;
    let tools = orbit_tools::builtin::default_tools();
    let permissions =
        crate::configure::permissions(&args, &config, &cwd, |n| tools.find(n).is_some())?;
    // Served Bash runs in the same OS sandbox as `orbit -p`'s (issue 18).
    let launcher = crate::sandbox::launcher(
        &config,
        &crate::sandbox::SessionPaths {
            cwd: &cwd,
            added_dirs: &[],
            session_dir: None,
            deny_rules: &permissions.disallowed_tools,
        },
    )?;
    let mut spec = SessionSpec::new(cwd, config.data_dir.clone(), config.env.clone());
    // The settings files' `env` reaches Bash and hooks, as in a session.
    spec.tool_env = config.env.added_over(env);
    spec.tools = Some(tools);
    spec.permissions = permissions;
    // The settings' hooks (PreToolUse, PostToolUse, …) see served calls too.
    spec.hooks = config.hooks.clone();
    spec.launcher = launcher;
    let host = std::sync::Arc::new(Host {
        runner: spec.build_runner(),
        next_id: AtomicU64::new(0),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = rt.block_on(serve_stdio(host));
    rt.shutdown_background();
    Ok(served?)
}

struct Host {
    runner: ToolRunner,
    next_id: AtomicU64,
}

#[async_trait]
impl ToolHost for Host {
    fn tools(&self) -> Vec<ServedTool> {
        self.runner
            .tools()
            .tools()
            .iter()
            .map(|t| ServedTool {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema().clone(),
                read_only: t.read_only(),
            })
            .collect()
    }

    async fn call(&self, name: &str, input: Value, cancel: CancellationToken) -> (String, bool) {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let call = ToolUseBlock {
            id: format!("toolu_mcp_{n}"),
            name: name.to_string(),
            input,
        };
        let result = self.runner.run_one(call, cancel).await;
        let text = match &result.content {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Blocks(blocks) => serde_json::to_string(blocks).unwrap_or_default(),
        };
        (text, result.is_error())
    }
}
