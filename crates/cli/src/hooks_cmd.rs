//! `orbit hooks list` (the merged hooks of a directory and the file each
//! comes from) and `orbit trust [DIR]` (records a folder in the trust store
//! so its project settings apply, see `orbit_config::trust`). Both are
//! dispatched before the normal flags are parsed, like `orbit sessions`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use orbit_config::{Config, Env, Overrides, SettingSources, Settings, SettingsLocations};

use crate::term_safe::{eprintln_safe, println_safe};

#[derive(Debug, Parser)]
#[command(
    name = "orbit hooks",
    about = "Show the hooks orbit runs in a directory"
)]
enum HooksCommand {
    /// The merged hooks of every settings file, each with its file.
    List {
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// The project directory (default: the current directory).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Show the project's hooks as if the folder were trusted.
        #[arg(long = "trust-project")]
        trust_project: bool,
    },
}

#[derive(Debug, Parser)]
#[command(
    name = "orbit trust",
    about = "Trust a project folder (default: the current directory): its settings' hooks, env, allow rules and MCP servers apply from now on"
)]
struct TrustArgs {
    /// The folder (its subfolders are trusted too).
    dir: Option<PathBuf>,
}

/// Runs `orbit hooks …` or `orbit trust …` when argv starts with one; None otherwise.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    crate::subcommand::run("hooks", |command| hooks(command, env))
        .or_else(|| crate::subcommand::run("trust", |args| trust(args, env)))
}

fn trust(args: TrustArgs, env: &Env) -> anyhow::Result<()> {
    let dir = crate::subcommand::dir_or_current(args.dir)?;
    let data_dir = orbit_config::data_dir(env)?;
    if orbit_config::trust::trust_folder(&data_dir, &dir)? {
        println_safe!("Trusted {}.", dir.display());
    } else {
        println_safe!("{} is already trusted.", dir.display());
    }
    Ok(())
}

fn hooks(command: HooksCommand, env: &Env) -> anyhow::Result<()> {
    let HooksCommand::List {
        json,
        cwd,
        trust_project,
    } = command;
    let cwd = crate::subcommand::dir_or_current(cwd)?;
    let locations = SettingsLocations::standard(env, &cwd)?;
    let settings = Settings::load(&locations, None, SettingSources::all())?;
    let overrides = Overrides {
        cwd: cwd.clone(),
        trust_project,
        ..Overrides::default()
    };
    let config = Config::resolve(&overrides, env, &settings)?;
    if !config.trust_skipped.is_empty() {
        eprintln_safe!("{}", config.trust_skipped.line(&cwd));
    }
    let entries = config.hooks.entries();
    if json {
        let rows: Vec<serde_json::Value> = entries
            .iter()
            .map(|e| {
                serde_json::json!({
                    "event": e.event.name(),
                    "matcher": e.matcher.text(),
                    "command": e.hook.command,
                    "timeout_ms": e.hook.timeout_ms,
                    "source": e.hook.scope,
                    "file": e.hook.origin,
                })
            })
            .collect();
        println_safe!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    if entries.is_empty() {
        println_safe!("No hooks in {}.", cwd.display());
        return Ok(());
    }
    for e in entries {
        let matcher = match e.matcher.text() {
            "" => "*",
            text => text,
        };
        println_safe!(
            "{}\t{matcher}\t{}\t{} s\t{} ({})",
            e.event,
            e.hook.command,
            e.hook.timeout_ms / 1000,
            e.hook.origin,
            e.hook.scope
        );
    }
    Ok(())
}
