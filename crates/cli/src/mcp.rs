//! MCP in the CLI: which servers a run starts, as Claude Code decides it.
//!
//! Sources, highest precedence first (a name defined twice keeps the
//! first): `--mcp-config FILE|JSON` (repeatable), `mcpServers` of the
//! local settings (`.orbit/settings.local.json`), Claude Code's local scope
//! (`projects["<git root or cwd>"].mcpServers` of `~/.claude.json`, what
//! `claude mcp add` writes), the project's `.mcp.json`, `mcpServers` of the
//! user settings (`$ORBIT_HOME/settings.json`), Claude Code's user scope
//! (top-level `mcpServers` of `~/.claude.json`; `$CLAUDE_CONFIG_DIR/.claude.json`
//! when set, see `orbit_config::claude_code`). `--strict-mcp-config` keeps
//! only the flag's servers. Claude Code's file is the user's own, not the
//! repository's: its servers need no trusted folder.
//!
//! A `.mcp.json` comes with the repository, so its servers start only when
//! the user approved them in settings the repository does not carry
//! (managed, `--settings`, local, user): `enableAllProjectMcpServers`,
//! `enabledMcpjsonServers`, `disabledMcpjsonServers` (disabled wins).
//! Otherwise one stderr line names the skipped servers and how to allow
//! them (every such line is printed terminal-safe: a server's name and a
//! parse error come from the project). The chosen servers are expanded (`${VAR}`, `${VAR:-default}`)
//! with the session's environment and handed to `orbit_mcp::McpManager`.

use std::path::Path;

use anyhow::{Context, bail};
use orbit_config::{Config, Settings, SettingsSource};
use orbit_mcp::ServerConfig;
use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, read_untrusted};
use serde_json::Value;

use crate::args::Args;
use crate::term_safe::eprintln_safe;

/// The project's MCP file, at the session's working directory.
pub const PROJECT_MCP_FILE: &str = ".mcp.json";

/// The servers this run starts, in precedence order, expanded.
pub fn servers(
    args: &Args,
    settings: &Settings,
    config: &Config,
    cwd: &Path,
) -> anyhow::Result<Vec<(String, ServerConfig)>> {
    let mut all: Vec<(String, ServerConfig)> = Vec::new();
    let mut add = |list: Vec<(String, ServerConfig)>| {
        for (name, server) in list {
            if !all.iter().any(|(n, _)| *n == name) {
                all.push((name, server));
            }
        }
    };
    for value in &args.mcp_config {
        add(flag_servers(value)?);
    }
    if !args.strict_mcp_config {
        let claude = claude_code_servers(&config.env, cwd);
        // A cloned repository cannot start programs by itself: its
        // `.mcp.json` and its local settings' servers need a trusted folder
        // (issue 13; the configuration's trust line names a skipped
        // `.mcp.json`) and then, for `.mcp.json`, an approval.
        if config.project_trusted {
            add(settings_servers(settings, SettingsSource::Local));
        }
        add(claude.local);
        if config.project_trusted {
            add(project_servers(settings, cwd)?);
        }
        add(settings_servers(settings, SettingsSource::User));
        add(claude.user);
    }
    let lookup = config.env.lookup();
    Ok(all
        .into_iter()
        .map(|(name, server)| {
            let (server, missing) = server.expand(&lookup);
            if !missing.is_empty() {
                eprintln_safe!("{}", unset_variables_warning(&name, &missing));
            }
            (name, server)
        })
        .collect())
}

/// The warning for a server whose `${VAR}`s are unset (`name` is printed
/// terminal-safe by the caller: a project chose it).
pub fn unset_variables_warning(name: &str, missing: &[String]) -> String {
    format!(
        "orbit: warning: MCP server \"{name}\": unset variables {} (no default)",
        missing.join(", ")
    )
}

/// `--mcp-config`: a file path, or inline JSON when it starts with `{`.
fn flag_servers(value: &str) -> anyhow::Result<Vec<(String, ServerConfig)>> {
    let text = if value.trim_start().starts_with('{') {
        value.to_string()
    } else {
        // A file the user named: links followed, a pipe read, capped.
        let opts = ReadOpts::user_named(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
        read_untrusted(Path::new(value), &opts)
            .with_context(|| format!("--mcp-config {value}"))?
            .text()
    };
    orbit_mcp::parse_servers_text(&text).with_context(|| format!("--mcp-config {value}"))
}

/// The MCP servers of Claude Code's global file, by scope.
#[derive(Debug, Default)]
pub struct ClaudeCodeServers {
    /// The file they came from (None: no such file).
    pub path: Option<std::path::PathBuf>,
    /// `projects["<project key>"].mcpServers`: `claude mcp add` (local scope).
    pub local: Vec<(String, ServerConfig)>,
    /// Top-level `mcpServers`: `claude mcp add --scope user`.
    pub user: Vec<(String, ServerConfig)>,
}

/// Claude Code's servers for the project at `cwd`; a file that cannot be
/// read or parsed, or a bad entry, is one warning line and no servers.
pub fn claude_code_servers(env: &orbit_config::Env, cwd: &Path) -> ClaudeCodeServers {
    let file = match orbit_config::claude_code::ClaudeJson::load(env, cwd) {
        Ok(Some(file)) => file,
        Ok(None) => return ClaudeCodeServers::default(),
        Err(err) => {
            eprintln_safe!("orbit: warning: skipped Claude Code's MCP servers: {err}");
            return ClaudeCodeServers::default();
        }
    };
    let parse = |servers: &Option<Value>, scope: &str| -> Vec<(String, ServerConfig)> {
        let Some(servers) = servers else {
            return Vec::new();
        };
        let doc = serde_json::json!({ "mcpServers": servers });
        match orbit_mcp::parse_servers(&doc) {
            Ok(list) => list,
            Err(err) => {
                eprintln_safe!(
                    "orbit: warning: {} ({scope} scope): mcpServers: {err}",
                    file.path.display()
                );
                Vec::new()
            }
        }
    };
    ClaudeCodeServers {
        local: parse(&file.local_servers, "local"),
        user: parse(&file.user_servers, "user"),
        path: Some(file.path.clone()),
    }
}

/// `mcpServers` of the settings files of one source; a bad entry is a warning.
fn settings_servers(settings: &Settings, source: SettingsSource) -> Vec<(String, ServerConfig)> {
    let mut out = Vec::new();
    for file in settings.files().iter().filter(|f| f.source == source) {
        if file.raw.get("mcpServers").is_none() {
            continue;
        }
        match orbit_mcp::parse_servers(&file.raw) {
            Ok(list) => out.extend(list),
            Err(err) => eprintln_safe!("orbit: warning: {}: mcpServers: {err}", file.origin),
        }
    }
    out
}

/// The approved servers of `.mcp.json`; prints which were skipped.
fn project_servers(settings: &Settings, cwd: &Path) -> anyhow::Result<Vec<(String, ServerConfig)>> {
    let path = cwd.join(PROJECT_MCP_FILE);
    // Read only in a trusted folder (the caller checks): a link out of the
    // project is followed, but never a FIFO, a device or more than the cap.
    let opts = ReadOpts::in_project(cwd, CONFIG_FILE_MAX_BYTES)
        .follow_links_out(true)
        .refuse_over_cap();
    let text = match read_untrusted(&path, &opts) {
        Ok(file) => file.text(),
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) if e.is_refusal() => {
            eprintln_safe!("orbit: warning: skipped {PROJECT_MCP_FILE}: {e}");
            return Ok(Vec::new());
        }
        Err(e) => bail!("{}: {e}", path.display()),
    };
    let servers =
        orbit_mcp::parse_servers_text(&text).with_context(|| format!("{}", path.display()))?;
    let approval = Approval::of(settings);
    let (allowed, skipped): (Vec<_>, Vec<_>) = servers
        .into_iter()
        .partition(|(name, _)| approval.allows(name));
    let unapproved: Vec<&str> = skipped
        .iter()
        .filter(|(name, _)| !approval.disabled.contains(name))
        .map(|(name, _)| name.as_str())
        .collect();
    if !unapproved.is_empty() {
        eprintln_safe!(
            "orbit: not starting MCP servers of {PROJECT_MCP_FILE} that were not approved: {}. \
             Allow them with \"enabledMcpjsonServers\": [\"NAME\"] or \"enableAllProjectMcpServers\": true \
             in .orbit/settings.local.json, ~/.orbit/settings.json or --settings",
            unapproved.join(", ")
        );
    }
    Ok(allowed)
}

/// What the user decided about `.mcp.json` servers.
#[derive(Debug, Default)]
struct Approval {
    all: bool,
    enabled: Vec<String>,
    disabled: Vec<String>,
}

impl Approval {
    /// From every settings file: `.mcp.json` servers are only considered
    /// in a trusted folder, where the project's own settings count too
    /// (trusting a folder is trusting its settings, as in Claude Code).
    fn of(settings: &Settings) -> Self {
        let mut approval = Approval::default();
        for file in settings.files() {
            let raw = &file.raw;
            if raw.get("enableAllProjectMcpServers") == Some(&Value::Bool(true)) {
                approval.all = true;
            }
            approval
                .enabled
                .extend(names(raw.get("enabledMcpjsonServers")));
            approval
                .disabled
                .extend(names(raw.get("disabledMcpjsonServers")));
        }
        approval
    }

    fn allows(&self, name: &str) -> bool {
        !self.disabled.iter().any(|n| n == name)
            && (self.all || self.enabled.iter().any(|n| n == name))
    }
}

fn names(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}
