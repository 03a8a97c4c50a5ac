//! The local model in the CLI: the `orbit local …` subcommands and the
//! `local` provider.
//!
//! - `orbit local setup | serve | stop | status` are dispatched from `main`
//!   before the normal flags are parsed ([`maybe_run_subcommand`]).
//! - [`local_client`] is what `--provider local` (or no API key at all)
//!   selects: `orbit::provider::local_client` with progress on stderr (the
//!   setup on first use, then a llama-server: the warm one of `orbit local
//!   serve`, else a private one for this run; the OpenAI client with
//!   fenced-JSON recovery on, temperature 0 and a fixed seed).
//!
//! The runtime lives in `<data dir>/local`, the data dir being
//! `orbit_config::data_dir` (the one rule).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use orbit_config::{Config, Env};
use orbit_local::{LocalPaths, ServerOptions, server, setup};
use orbit_model::ModelClient;

use crate::term_safe::{eprintln_safe, println_safe};

/// Sets up (first use) and starts the local model; progress on stderr.
pub fn local_client(config: &Config) -> anyhow::Result<Arc<dyn ModelClient>> {
    Ok(orbit::provider::local_client(
        &config.data_dir,
        config.env.lookup(),
        &mut |line| eprintln_safe!("orbit: {line}"),
    )?)
}

#[derive(Debug, Parser)]
#[command(
    name = "orbit local",
    about = "Manage orbit's local model (llama.cpp llama-server + Qwen2.5-Coder-1.5B)"
)]
enum LocalCommand {
    /// Download the model and build llama-server (idempotent, resumable).
    Setup,
    /// Keep a warm server that later runs reuse; stops after the idle timeout.
    Serve {
        /// Stop after this many seconds without a run using the server.
        #[arg(long = "idle-timeout", value_name = "SECS", default_value_t = server::DEFAULT_IDLE_TIMEOUT_SECS)]
        idle_timeout: u64,
    },
    /// Stop the warm server of `orbit local serve`.
    Stop,
    /// Show what is set up and whether a warm server runs.
    Status,
}

/// Runs `orbit local …` when argv starts with `local`; None otherwise.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    crate::subcommand::run("local", |command| run_subcommand(command, env))
}

fn run_subcommand(command: LocalCommand, env: &Env) -> anyhow::Result<()> {
    let paths = LocalPaths::in_data_dir(&orbit_config::data_dir(env)?);
    let mut progress = |line: &str| eprintln_safe!("orbit: {line}");
    match command {
        LocalCommand::Setup => setup::run(&paths, &mut progress)?,
        LocalCommand::Serve { idle_timeout } => {
            if !setup::is_complete(&paths) {
                setup::run(&paths, &mut progress)?;
            }
            server::serve(
                &paths,
                &ServerOptions::default(),
                Duration::from_secs(idle_timeout),
                &mut |record| {
                    eprintln_safe!(
                        "orbit: warm llama-server on http://127.0.0.1:{} (pid {}); stops after {} s without use, or `orbit local stop`",
                        record.port,
                        record.pid,
                        record.idle_timeout_secs
                    );
                },
            )?;
        }
        LocalCommand::Stop => {
            if server::stop_recorded(&paths) {
                eprintln_safe!("orbit: warm llama-server stopped");
            } else {
                eprintln_safe!("orbit: no warm llama-server is running");
            }
        }
        LocalCommand::Status => {
            println_safe!("data: {}", paths.root().display());
            println_safe!(
                "setup: {}",
                if setup::is_complete(&paths) {
                    "complete"
                } else {
                    "not done (run `orbit local setup`)"
                }
            );
            match server::warm_server(&paths) {
                Some(r) => {
                    println_safe!("warm server: http://127.0.0.1:{} (pid {})", r.port, r.pid);
                    match orbit_local::keep::idle_stop_in(&paths) {
                        Some(secs) => println_safe!(
                            "stops: in {secs} s without use (idle timeout {} s; `orbit local stop` stops it now)",
                            r.idle_timeout_secs
                        ),
                        None => println_safe!(
                            "stops: {} s after the runs using it end",
                            r.idle_timeout_secs
                        ),
                    }
                }
                None => println_safe!("warm server: none (each run starts its own)"),
            }
        }
    }
    Ok(())
}
