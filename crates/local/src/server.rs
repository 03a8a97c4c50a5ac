//! Running llama-server: a private server per run, or a warm one shared by
//! runs.
//!
//! - [`LocalServer::acquire`]: if `server.json` names a live, healthy warm
//!   server (started by `orbit local serve`), take a lease on it
//!   (`leases/<pid>`) and use it; otherwise, with a keep-alive period
//!   (`ServerOptions::keep_alive`, see `crate::keep`), start the shared warm
//!   server that outlives the run by that period and lease it; otherwise
//!   start a private server on a free
//!   127.0.0.1 port, wait for `GET /health` → `{"status":"ok"}`, and stop it
//!   when the [`LocalServer`] is dropped (end of the run, error or Ctrl-C).
//! - [`serve`]: starts a server (under `serve.lock`, so two `serve`s
//!   started together share one), records it in `server.json`, and stops it
//!   once no run has held a lease for the idle timeout
//!   ([`DEFAULT_IDLE_TIMEOUT_SECS`]); [`stop_recorded`] stops it at once.
//!
//! The server runs with `OMP_WAIT_POLICY=passive` (spinning OpenMP threads
//! make generation 3–4× slower as soon as anything else uses a core),
//! `--jinja` and orbit's chat template, one slot, an 8k context. It is
//! started so that it dies with the process that started it, even on
//! SIGKILL (`crate::tied`).

use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use orbit_model::activity::{ModelActivity, report};

pub use crate::warm::{ServerRecord, healthy, warm_server};
use crate::warm::{
    last_used, leased, now_secs, pid_alive, read_record, take_lease, touch_last_used,
};
use crate::{CHAT_TEMPLATE, LocalError, LocalPaths, setup};

/// Context window of the server, in tokens: the model catalog's window of
/// the local model, so the engine plans with the window the server has.
pub(crate) const CONTEXT_TOKENS: u32 = {
    let tokens = orbit_model::catalog::LOCAL_CONTEXT_WINDOW_TOKENS;
    assert!(tokens <= u32::MAX as u64);
    tokens as u32
};
/// How long a starting server may take to load the model, in seconds.
pub(crate) const STARTUP_TIMEOUT_SECS: u64 = 180;
/// Prompt tokens llama-server reads per batch (`-b`); it reports the
/// prompt's progress after each batch.
pub(crate) const PROMPT_BATCH_TOKENS: u32 = 512;
/// A warm server with no run using it stops after this long, in seconds.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 900;
/// File `orbit local serve` locks while it checks for a warm server and
/// starts one (in the data dir's `local/`).
const SERVE_LOCK_FILE: &str = "serve.lock";
/// Interval between health probes while a server starts, in milliseconds.
const HEALTH_POLL_MS: u64 = 100;
/// How often the warm server's watchdog looks for activity, in milliseconds.
const WATCHDOG_POLL_MS: u64 = 2_000;
/// Grace period between SIGTERM and SIGKILL when stopping, in milliseconds.
const STOP_GRACE_MS: u64 = 3_000;

/// How to run llama-server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// Context window (`-c`), in tokens.
    pub context_tokens: u32,
    /// Compute threads (`-t`): the machine's cores, at most 8.
    pub threads: usize,
    /// How long to wait for the server to become healthy.
    pub startup_timeout: Duration,
    /// How long the server stays up after the run when no warm server runs
    /// (0: a private server that stops with the run); the default follows
    /// `crate::keep::keep_alive` (the environment and the terminal).
    pub keep_alive: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Self {
            context_tokens: CONTEXT_TOKENS,
            threads: cores.clamp(1, 8),
            startup_timeout: Duration::from_secs(STARTUP_TIMEOUT_SECS),
            keep_alive: crate::keep::keep_alive(),
        }
    }
}

/// A usable server for the duration of one run.
#[derive(Debug)]
pub struct LocalServer {
    port: u16,
    /// Our private server (stopped on drop); None when reusing a warm one.
    child: Option<Child>,
    /// Our lease on a warm server (removed on drop).
    lease: Option<PathBuf>,
    paths: LocalPaths,
    started_in: Duration,
    /// This acquire started the server (the model was loaded).
    loaded: bool,
}

impl LocalServer {
    /// Reuses the warm server or starts a private one (see the module doc).
    pub fn acquire(paths: &LocalPaths, options: &ServerOptions) -> Result<Self, LocalError> {
        if !setup::is_complete(paths) {
            return Err(LocalError::NotSetUp);
        }
        let started = Instant::now();
        if let Some(record) = warm_server(paths) {
            return Self::lease(paths, &record, started, false);
        }
        // From here on the model is loaded: watchers say so (`activity`).
        report(ModelActivity::Loading);
        let shared = (!options.keep_alive.is_zero())
            .then(|| crate::keep::start_shared(paths, options.keep_alive, options.startup_timeout))
            .flatten();
        let acquired = match shared {
            Some(record) => Self::lease(paths, &record, started, true),
            None => start(paths, options, "server.log").map(|(child, port)| Self {
                port,
                child: Some(child),
                lease: None,
                paths: paths.clone(),
                started_in: started.elapsed(),
                loaded: true,
            }),
        };
        report(ModelActivity::Idle);
        acquired
    }

    /// Uses the warm server `record` names under a lease of this process.
    fn lease(
        paths: &LocalPaths,
        record: &ServerRecord,
        started: Instant,
        loaded: bool,
    ) -> Result<Self, LocalError> {
        Ok(Self {
            port: record.port,
            child: None,
            lease: Some(take_lease(paths)?),
            paths: paths.clone(),
            started_in: started.elapsed(),
            loaded,
        })
    }

    /// Whether this run had to load the model (it started the server,
    /// private or shared), rather than finding one warm.
    pub fn loaded_now(&self) -> bool {
        self.loaded
    }

    /// The port the server listens on (localhost).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT` (the Anthropic-compatible base URL).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT/v1` (the OpenAI-compatible base URL).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    /// Whether this run reuses a warm server.
    pub fn is_warm(&self) -> bool {
        self.child.is_none()
    }

    /// Time spent acquiring (start + model load, or the reuse check).
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// Stops a private server / releases the lease (also done on drop).
    pub fn stop(mut self) {
        self.release();
    }

    fn release(&mut self) {
        if let Some(child) = self.child.take() {
            stop_child(child);
        }
        if let Some(lease) = self.lease.take() {
            let _ = std::fs::remove_file(lease);
            touch_last_used(&self.paths);
        }
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.release();
    }
}

/// Writes the chat template next to the model when missing or changed.
pub(crate) fn write_template(paths: &LocalPaths) -> Result<PathBuf, LocalError> {
    let path = paths.template_file();
    if std::fs::read_to_string(&path).ok().as_deref() != Some(CHAT_TEMPLATE) {
        std::fs::write(&path, CHAT_TEMPLATE)
            .map_err(LocalError::io(format!("write {}", path.display())))?;
    }
    Ok(path)
}

/// The llama-server command line (without the port's bind check).
pub fn server_command(paths: &LocalPaths, options: &ServerOptions, port: u16) -> Command {
    let mut cmd = Command::new(paths.server_bin());
    cmd.arg("-m")
        .arg(paths.model_file())
        // Responses name the model by its short name, not the GGUF path.
        .args(["--alias", crate::MODEL_NAME])
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--jinja",
        ])
        .args(["-c", &options.context_tokens.to_string(), "-np", "1"])
        // The prompt is read in batches of this size and llama-server
        // reports progress after each (`return_progress`): 512 (its
        // physical batch, so no slower) gives a report every ≈ 5 s on two
        // cores instead of one per 2,048 tokens.
        .args(["-b", &PROMPT_BATCH_TOKENS.to_string()])
        .args(["-t", &options.threads.to_string()])
        .arg("--chat-template-file")
        .arg(paths.template_file())
        // Deterministic defaults for clients that send no sampling options
        // (the Anthropic route); orbit's local client also sends them.
        .args(["--temp", "0", "--seed", &crate::LOCAL_SEED.to_string()])
        .env("OMP_WAIT_POLICY", "passive");
    cmd
}

/// Starts llama-server on a free port and waits until it is healthy.
fn start(
    paths: &LocalPaths,
    options: &ServerOptions,
    log_name: &str,
) -> Result<(Child, u16), LocalError> {
    write_template(paths)?;
    let logs = paths.logs_dir();
    std::fs::create_dir_all(&logs).map_err(LocalError::io(format!("create {}", logs.display())))?;
    let log_path = logs.join(log_name);
    let log = std::fs::File::create(&log_path)
        .map_err(LocalError::io(format!("create {}", log_path.display())))?;
    let log_err = log
        .try_clone()
        .map_err(LocalError::io("duplicate the log handle"))?;
    let port = free_port()?;
    let mut cmd = server_command(paths, options, port);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_err));
    // Dies with this process, even when it is killed (`crate::tied`).
    let mut child = crate::tied::spawn_tied(cmd).map_err(LocalError::io(format!(
        "start {}",
        paths.server_bin().display()
    )))?;
    let deadline = Instant::now() + options.startup_timeout;
    loop {
        if healthy(port) {
            return Ok((child, port));
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(LocalError::ServerStart(format!(
                "llama-server exited ({status}); last lines of {}:\n{}",
                log_path.display(),
                setup::tail(&log_path, 15)
            )));
        }
        if Instant::now() >= deadline {
            stop_child(child);
            return Err(LocalError::ServerStart(format!(
                "not healthy after {} s; see {}",
                options.startup_timeout.as_secs(),
                log_path.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(HEALTH_POLL_MS));
    }
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> Result<u16, LocalError> {
    let listener =
        TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(LocalError::io("find a free port"))?;
    let port = listener
        .local_addr()
        .map_err(LocalError::io("find a free port"))?
        .port();
    Ok(port)
}

/// SIGTERM, a grace period, then SIGKILL; always reaps.
fn stop_child(mut child: Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_millis(STOP_GRACE_MS);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `orbit local serve`: keeps a warm server until it has been idle for
/// `idle_timeout`; `on_ready` gets the record once it is healthy.
pub fn serve(
    paths: &LocalPaths,
    options: &ServerOptions,
    idle_timeout: Duration,
    on_ready: &mut dyn FnMut(&ServerRecord),
) -> Result<(), LocalError> {
    if !setup::is_complete(paths) {
        return Err(LocalError::NotSetUp);
    }
    // Two `orbit local serve` started together: the second waits here
    // until the first has recorded its server, then reuses it (without
    // the lock both started one and the second record hid the first).
    let lock_path = paths.root().join(SERVE_LOCK_FILE);
    let lock_error = || LocalError::io(format!("cannot lock {}", lock_path.display()));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(lock_error())?;
    lock.lock().map_err(lock_error())?;
    if let Some(record) = read_record(paths).filter(|r| pid_alive(r.pid) && healthy(r.port)) {
        drop(lock);
        on_ready(&record);
        return Ok(()); // one warm server is enough
    }
    let (mut child, port) = start(paths, options, "serve.log")?;
    let record = ServerRecord {
        pid: child.id(),
        port,
        serve_pid: std::process::id(),
        idle_timeout_secs: idle_timeout.as_secs(),
    };
    let text = serde_json::to_string_pretty(&record).unwrap_or_default();
    std::fs::write(paths.server_record(), text).map_err(LocalError::io("write server.json"))?;
    drop(lock);
    touch_last_used(paths);
    on_ready(&record);
    let result = loop {
        std::thread::sleep(Duration::from_millis(WATCHDOG_POLL_MS));
        if let Ok(Some(status)) = child.try_wait() {
            // `orbit local stop` removes the record, then stops the server.
            if read_record(paths).is_none_or(|r| r.pid != record.pid) {
                break Ok(());
            }
            break Err(LocalError::ServerStart(format!(
                "the warm llama-server exited ({status})"
            )));
        }
        if leased(paths) {
            continue;
        }
        if now_secs().saturating_sub(last_used(paths)) >= idle_timeout.as_secs() {
            break Ok(());
        }
    };
    if read_record(paths).is_some_and(|r| r.pid == record.pid) {
        let _ = std::fs::remove_file(paths.server_record());
    }
    stop_child(child);
    result
}

/// `orbit local stop`: stops the warm server; false when none was running.
/// The server is signalled and its `orbit local serve` watchdog, seeing it
/// gone, reaps it and exits; the watchdog is signalled too only if it has
/// not exited within the grace period.
pub fn stop_recorded(paths: &LocalPaths) -> bool {
    let Some(record) = read_record(paths) else {
        return false;
    };
    let _ = std::fs::remove_file(paths.server_record());
    let signal = |pid: u32| {
        i32::try_from(pid)
            .is_ok_and(|p| pid_alive(pid) && kill(Pid::from_raw(p), Signal::SIGTERM).is_ok())
    };
    let stopped = signal(record.pid);
    let deadline = Instant::now() + Duration::from_millis(STOP_GRACE_MS + WATCHDOG_POLL_MS);
    while pid_alive(record.serve_pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    signal(record.serve_pid) || stopped
}
