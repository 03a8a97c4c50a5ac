//! `orbit mcp add|add-json|list|get|remove|serve`, spelled as `claude mcp …`.
//!
//! Scopes and their files: `local` (default) → `.orbit/settings.local.json`
//! of the current directory, `project` → `.mcp.json` (committed; its
//! servers start only once approved, see [`crate::mcp`]), `user` →
//! `$ORBIT_HOME/settings.json`. Each edit reads the file (or `{}`), changes
//! `mcpServers.NAME` and writes it back pretty-printed; other keys stay.
//! `list` and `get` also show the servers of Claude Code's `~/.claude.json`
//! (its local and user scopes, which orbit starts too), each with its
//! scope and file; orbit never edits that file (`remove` says to use
//! `claude mcp remove`).
//! `serve` runs orbit's built-in tools as an MCP server on stdio
//! ([`crate::mcp_serve`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, ValueEnum};
use orbit_config::Env;
use orbit_mcp::ServerConfig;
use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, read_untrusted};
use serde_json::{Map, Value};

use crate::mcp::PROJECT_MCP_FILE;
use crate::term_safe::println_safe;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scope {
    /// This project, only for you: .orbit/settings.local.json.
    Local,
    /// This project, shared: .mcp.json.
    Project,
    /// Every project: $ORBIT_HOME/settings.json.
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    Stdio,
    Http,
    Sse,
}

#[derive(Debug, Parser)]
#[command(
    name = "orbit mcp",
    about = "Configure MCP servers (as `claude mcp`), or serve orbit's tools over MCP"
)]
enum McpCommand {
    /// Add a server: `orbit mcp add NAME -- COMMAND [ARGS…]` or
    /// `orbit mcp add --transport http NAME URL`.
    Add {
        /// Where it is saved.
        #[arg(short, long, value_enum, default_value_t = Scope::Local)]
        scope: Scope,
        /// How orbit reaches it.
        #[arg(short, long, value_enum, default_value_t = Transport::Stdio)]
        transport: Transport,
        /// `KEY=VALUE` in a stdio server's environment (repeatable).
        #[arg(short, long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// `Name: value` sent to an HTTP server (repeatable).
        #[arg(short = 'H', long = "header", value_name = "HEADER")]
        header: Vec<String>,
        /// The server's name (tools are `mcp__NAME__TOOL`).
        name: String,
        /// The command (stdio) or URL (http, sse).
        command_or_url: String,
        /// The command's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Add a server from its JSON entry (`{"command": …}` or `{"type": "http", "url": …}`).
    AddJson {
        #[arg(short, long, value_enum, default_value_t = Scope::Local)]
        scope: Scope,
        name: String,
        json: String,
    },
    /// List the configured servers of every scope.
    List,
    /// Show one server's configuration.
    Get { name: String },
    /// Remove a server (from the given scope, else from the one that has it).
    Remove {
        #[arg(short, long, value_enum)]
        scope: Option<Scope>,
        name: String,
    },
    /// Serve orbit's built-in tools over MCP on stdio.
    Serve {
        /// Permission mode of the calls (as `--permission-mode`; default:
        /// `default`, where only read-only calls run).
        #[arg(long = "permission-mode", value_name = "MODE")]
        permission_mode: Option<String>,
        /// Tools or rules allowed without asking (as `--allowedTools`).
        #[arg(long = "allowedTools", value_name = "TOOLS")]
        allowed_tools: Vec<String>,
    },
}

/// Runs `orbit mcp …` when argv starts with `mcp`.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    crate::subcommand::run("mcp", |command| run(command, env))
}

fn run(command: McpCommand, env: &Env) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    match command {
        McpCommand::Add {
            scope,
            transport,
            env: vars,
            header,
            name,
            command_or_url,
            args,
        } => {
            let server = match transport {
                Transport::Stdio => ServerConfig::Stdio {
                    command: command_or_url,
                    args,
                    env: pairs(&vars, '=')?,
                },
                Transport::Http => ServerConfig::Http {
                    url: command_or_url,
                    headers: pairs(&header, ':')?,
                },
                Transport::Sse => ServerConfig::Sse {
                    url: command_or_url,
                    headers: pairs(&header, ':')?,
                },
            };
            add(env, &cwd, scope, &name, &server)
        }
        McpCommand::AddJson { scope, name, json } => {
            let value: Value = serde_json::from_str(&json).context("the JSON entry")?;
            let server = ServerConfig::from_value(&name, &value)?;
            add(env, &cwd, scope, &name, &server)
        }
        McpCommand::List => {
            let all = listed(env, &cwd)?;
            for server in &all {
                println_safe!(
                    "{}: {} ({}: {})",
                    server.name,
                    describe(&server.config),
                    server.scope,
                    server.file.display()
                );
            }
            if all.is_empty() {
                println_safe!("No MCP servers configured. Add one with `orbit mcp add`.");
            }
            Ok(())
        }
        McpCommand::Get { name } => {
            let Some(server) = listed(env, &cwd)?.into_iter().find(|s| s.name == name) else {
                bail!("no MCP server named {name}")
            };
            println_safe!("{name}:\n  Scope: {}", server.scope);
            println_safe!("  File: {}", server.file.display());
            println_safe!("  Type: {}", server.config.kind());
            println_safe!("  {}", describe(&server.config));
            Ok(())
        }
        McpCommand::Remove { scope, name } => {
            let scopes = match scope {
                Some(scope) => vec![scope],
                None => vec![Scope::Local, Scope::Project, Scope::User],
            };
            for scope in scopes {
                let path = file_of(env, &cwd, scope)?;
                let mut doc = read_doc(&path)?;
                let removed = doc
                    .get_mut("mcpServers")
                    .and_then(Value::as_object_mut)
                    .and_then(|m| m.shift_remove(&name))
                    .is_some();
                if removed {
                    write_doc(&path, &doc)?;
                    println_safe!(
                        "Removed MCP server {name} from {} ({})",
                        scope_name(scope),
                        path.display()
                    );
                    return Ok(());
                }
            }
            if let Some(server) = listed(env, &cwd)?
                .into_iter()
                .find(|s| s.name == name && s.scope.starts_with("Claude Code"))
            {
                bail!(
                    "MCP server {name} is in Claude Code's {} ({}): orbit does not edit that file; remove it with `claude mcp remove {name}`",
                    server.scope.trim_start_matches("Claude Code "),
                    server.file.display()
                );
            }
            bail!("no MCP server named {name}")
        }
        McpCommand::Serve {
            permission_mode,
            allowed_tools,
        } => crate::mcp_serve::run(env, &cwd, permission_mode.as_deref(), &allowed_tools),
    }
}

fn add(
    env: &Env,
    cwd: &Path,
    scope: Scope,
    name: &str,
    server: &ServerConfig,
) -> anyhow::Result<()> {
    let path = file_of(env, cwd, scope)?;
    let mut doc = read_doc(&path)?;
    let Value::Object(root) = &mut doc else {
        bail!("{} is not a JSON object", path.display());
    };
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        bail!("mcpServers in {} is not an object", path.display());
    };
    if servers.contains_key(name) {
        bail!(
            "MCP server {name} already exists in {} ({})",
            scope_name(scope),
            path.display()
        );
    }
    servers.insert(name.to_string(), server.to_value());
    write_doc(&path, &doc)?;
    println_safe!(
        "Added {} MCP server {name} to {} ({})",
        server.kind(),
        scope_name(scope),
        path.display()
    );
    Ok(())
}

fn file_of(env: &Env, cwd: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Local => cwd.join(".orbit").join("settings.local.json"),
        Scope::Project => cwd.join(PROJECT_MCP_FILE),
        Scope::User => orbit_config::data_dir(env)?.join("settings.json"),
    })
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Local => "local config",
        Scope::Project => "project config",
        Scope::User => "user config",
    }
}

/// The JSON document at `path` (`{}` when absent). The user runs these
/// commands and names the scope, so links are followed; a FIFO, a device
/// or a file over the cap is an error, not a hang.
fn read_doc(path: &Path) -> anyhow::Result<Value> {
    let opts = ReadOpts::user_file(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
    match read_untrusted(path, &opts) {
        Ok(file) => {
            serde_json::from_str(&file.text()).with_context(|| format!("{}", path.display()))
        }
        Err(e) if e.is_not_found() => Ok(Value::Object(Map::new())),
        Err(e) => Err(e).with_context(|| format!("{}", path.display())),
    }
}

fn write_doc(path: &Path, doc: &Value) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(doc)? + "\n";
    std::fs::write(path, text).with_context(|| format!("{}", path.display()))
}

fn servers_of(path: &Path) -> anyhow::Result<Vec<(String, ServerConfig)>> {
    let doc = read_doc(path)?;
    if doc.get("mcpServers").is_none() {
        return Ok(Vec::new());
    }
    orbit_mcp::parse_servers(&doc).with_context(|| format!("{}", path.display()))
}

/// One configured server as `list` and `get` show it.
struct Listed {
    name: String,
    config: ServerConfig,
    /// `local config`, `Claude Code user config`, …
    scope: String,
    file: PathBuf,
}

/// Every configured server, in the order a session weighs them
/// ([`crate::mcp`]): orbit's local, Claude Code's local, the project's,
/// orbit's user, Claude Code's user scope.
fn listed(env: &Env, cwd: &Path) -> anyhow::Result<Vec<Listed>> {
    let mut out = Vec::new();
    let mut push = |list: Vec<(String, ServerConfig)>, scope: &str, file: &Path| {
        out.extend(list.into_iter().map(|(name, config)| Listed {
            name,
            config,
            scope: scope.to_string(),
            file: file.to_path_buf(),
        }));
    };
    let canonical = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let claude = crate::mcp::claude_code_servers(env, &canonical);
    let claude_file = claude.path.clone().unwrap_or_default();
    let file = file_of(env, cwd, Scope::Local)?;
    push(servers_of(&file)?, scope_name(Scope::Local), &file);
    push(claude.local, "Claude Code local config", &claude_file);
    let file = file_of(env, cwd, Scope::Project)?;
    push(servers_of(&file)?, scope_name(Scope::Project), &file);
    let file = file_of(env, cwd, Scope::User)?;
    push(servers_of(&file)?, scope_name(Scope::User), &file);
    push(claude.user, "Claude Code user config", &claude_file);
    Ok(out)
}

fn describe(server: &ServerConfig) -> String {
    match server {
        ServerConfig::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        ServerConfig::Http { url, .. } | ServerConfig::Sse { url, .. } => {
            format!("{url} ({})", server.kind())
        }
        ServerConfig::Sdk { name } => format!("{name} (sdk, in the driving program)"),
    }
}

/// `KEY=VALUE` / `Name: value` pairs.
fn pairs(
    items: &[String],
    sep: char,
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    items
        .iter()
        .map(|item| match item.split_once(sep) {
            Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
            None => bail!("`{item}` is not KEY{sep}VALUE"),
        })
        .collect()
}
