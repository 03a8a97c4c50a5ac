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
//! → `prepare` + `run_tool_use` → the tool_result's text and `isError`.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use async_trait::async_trait;
use clap::Parser;
use orbit_config::Env;
use orbit_engine::ToolRuntime;
use orbit_engine::orchestrator::{Prepared, prepare, run_tool_use};
use orbit_engine::results::ToolResultStorage;
use orbit_mcp::serve::{ServedTool, ToolHost, serve_stdio};
use orbit_permissions::Policy;
use orbit_protocol::{ToolResultContent, ToolUseBlock};
use orbit_tool::{CallContext, ToolUseContext};
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
    let session_id = uuid::Uuid::new_v4().to_string();
    let context = ToolUseContext::new(session_id.clone(), cwd.clone(), config.data_dir.clone());
    context.hide_env_vars(orbit_config::tool_env_hidden(&config.env));
    // Served Bash runs in the same OS sandbox as `orbit -p`'s (issue 18).
    context.set_launcher(crate::sandbox::launcher(
        &config,
        &crate::sandbox::SessionPaths {
            cwd: &cwd,
            added_dirs: &[],
            session_dir: None,
            deny_rules: &permissions.disallowed_tools,
        },
    )?);
    let runtime = ToolRuntime {
        tools,
        context,
        permissions: Arc::new(Policy::new(&permissions, &cwd)),
        approver: None,
        rules_file: None,
        storage: ToolResultStorage::new(&config.data_dir, &cwd, &session_id),
        max_concurrency: orbit_engine::DEFAULT_MAX_TOOL_USE_CONCURRENCY,
        denials: std::sync::Mutex::new(Vec::new()),
        // The settings' hooks (PreToolUse, PostToolUse, …) see served calls too.
        hooks: orbit_engine::HookPoints::new(
            (!config.hooks.is_empty())
                .then(|| Arc::new(orbit_hooks::Hooks::new(config.hooks.clone(), &cwd))),
            &session_id,
            std::path::PathBuf::new(),
            &cwd,
            config.permission_mode.value.as_str(),
        ),
    };
    let host = Arc::new(Host {
        runtime,
        next_id: std::sync::atomic::AtomicU64::new(0),
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
    runtime: ToolRuntime,
    next_id: std::sync::atomic::AtomicU64,
}

#[async_trait]
impl ToolHost for Host {
    fn tools(&self) -> Vec<ServedTool> {
        self.runtime
            .tools
            .tools()
            .iter()
            .map(|t| ServedTool {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema().clone(),
                read_only: false,
            })
            .collect()
    }

    async fn call(&self, name: &str, input: Value, cancel: CancellationToken) -> (String, bool) {
        let n = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let block = ToolUseBlock {
            id: format!("toolu_mcp_{n}"),
            name: name.to_string(),
            input: input.clone(),
        };
        let runtime = &self.runtime;
        let (tool, call) = match prepare(&runtime.tools, &block, None, &runtime.context) {
            Prepared::Ready {
                tool,
                call: Some(call),
                ..
            } => (tool, call),
            Prepared::Ready { call: None, .. } => return (String::new(), true),
            Prepared::Rejected(text) => return (text, true),
        };
        let context = CallContext::new(block.id.clone(), cancel, None);
        let outcome = run_tool_use(runtime, tool, call, input, context).await;
        let text = match &outcome.result.content {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Blocks(blocks) => serde_json::to_string(blocks).unwrap_or_default(),
        };
        (text, outcome.result.is_error())
    }
}
