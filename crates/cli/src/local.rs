//! The local model in the CLI: the `orbit local …` subcommands and the
//! `local` provider.
//!
//! - `orbit local setup | serve | stop | status` are dispatched from `main`
//!   before the normal flags are parsed ([`maybe_run_subcommand`]).
//! - [`local_client`] is what `--provider local` (or no API key at all)
//!   selects: `orbit::provider::local_client` with progress on stderr (the
//!   setup on first use, then a llama-server: the warm one of `orbit local
//!   serve`, else a private one for this run; the OpenAI client with
//!   fenced-JSON recovery on, temperature 0 and a fixed seed). The UI's
//!   later sessions (`/clear`, `/resume`) reuse that client and its
//!   server. While the model loads, reads a long prompt or generates, `-p`
//!   with stderr on a terminal says so in whole lines (the UI shows the
//!   same `orbit_model::activity` in its spinner line), and the first
//!   load tells a person once how to keep the model warm.
//!
//! The runtime lives in `<data dir>/local`, the data dir being
//! `orbit_config::data_dir` (the one rule).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use clap::Parser;
use orbit_config::{Config, Env};
use orbit_local::{LocalPaths, ServerOptions, server, setup};
use orbit_model::ModelClient;
use orbit_model::activity::ModelActivity;

use crate::term_safe::{eprintln_safe, println_safe};

/// Sets up (first use) and starts the local model; progress on stderr.
/// A session of the same process (the UI's `/clear` and `/resume`) reuses
/// the client, so it keeps the server rather than starting another. With
/// stderr on a terminal, what the model is doing is shown while it takes
/// a while ([`wait_lines`]); the first time a run loads the model, a
/// person (stdout or stderr on a terminal) is told once how to keep it
/// warm ([`warm_hint`]).
pub fn local_client(config: &Config) -> anyhow::Result<Arc<dyn ModelClient>> {
    let mut kept = KEPT_CLIENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(client) = kept
        .as_ref()
        .filter(|(dir, _)| *dir == config.data_dir)
        .and_then(|(_, client)| client.upgrade())
    {
        return Ok(client);
    }
    let on_terminal = std::io::stderr().is_terminal();
    if on_terminal {
        wait_lines();
    }
    let mut loads = orbit_model::activity::subscribe();
    loads.mark_unchanged();
    let started = Instant::now();
    let client =
        orbit::provider::local_client(&config.data_dir, config.env.lookup(), &mut |line| {
            eprintln_safe!("orbit: {line}")
        })?;
    // `LocalServer::acquire` reports Loading only when it starts a server.
    if loads.has_changed().unwrap_or(false) && (on_terminal || std::io::stdout().is_terminal()) {
        warm_hint(&config.data_dir, started.elapsed());
    }
    *kept = Some((config.data_dir.clone(), Arc::downgrade(&client)));
    Ok(client)
}

/// The client of this process's sessions (weak: the server stops with the
/// last session that holds it).
static KEPT_CLIENT: Mutex<Option<(PathBuf, Weak<dyn ModelClient>)>> = Mutex::new(None);

/// How often the `-p` status lines look at what the model does, in ms.
const WAIT_POLL_MS: u64 = 200;
/// What the model does is shown once it has lasted this long, in ms (a
/// warm server's short waits print nothing).
const WAIT_SHOW_AFTER_MS: u64 = 1_500;
/// Marker of the one-time warm-server hint, in the data dir's `local/`.
const WARM_HINT_MARKER: &str = "warm-hint.shown";

/// `-p` with stderr on a terminal: one line on stderr each time what the
/// local model does changes and lasts ([`WAIT_SHOW_AFTER_MS`]) — loading
/// the model, reading the prompt with its progress, generating — from
/// `orbit_model::activity`. Whole lines, so they never mix into the
/// answer on stdout. Started once per process; the thread ends with it.
fn wait_lines() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let watcher = move || {
            let mut seen = (ModelActivity::Idle, Instant::now());
            let mut printed: Option<String> = None;
            loop {
                std::thread::sleep(Duration::from_millis(WAIT_POLL_MS));
                let now = orbit_model::activity::current();
                if now != seen.0 {
                    seen = (now, Instant::now());
                }
                if seen.1.elapsed() < Duration::from_millis(WAIT_SHOW_AFTER_MS) {
                    continue;
                }
                match now.describe() {
                    None => printed = None,
                    Some(text) if printed.as_ref() != Some(&text) => {
                        eprintln_safe!("orbit: local model: {text}…");
                        printed = Some(text);
                    }
                    Some(_) => {}
                }
            }
        };
        if let Err(err) = std::thread::Builder::new()
            .name("orbit-local-wait".into())
            .spawn(watcher)
        {
            tracing::debug!(%err, "no local model status lines");
        }
    });
}

/// Once per data dir, after a run had to load the model: how long that
/// took and what keeps it loaded for the next run.
fn warm_hint(data_dir: &Path, took: Duration) {
    let marker = LocalPaths::in_data_dir(data_dir)
        .root()
        .join(WARM_HINT_MARKER);
    if marker.exists() {
        return;
    }
    let keep = orbit_local::keep::keep_alive().as_secs();
    let kept = if keep > 0 {
        format!("it stays loaded {keep} s after this run (ORBIT_LOCAL_KEEP_ALIVE=SECS, 0 = off)")
    } else {
        "it stops with this run (ORBIT_LOCAL_KEEP_ALIVE=SECS keeps it loaded after a run)".into()
    };
    eprintln_safe!(
        "orbit: tip: loading the local model took {:.0} s; {kept}; `orbit local serve` keeps it warm for every run",
        took.as_secs_f64()
    );
    let _ = std::fs::write(&marker, b"shown\n");
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
