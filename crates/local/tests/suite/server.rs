//! Server lifecycle with a stand-in llama-server: private start, health
//! wait, exact command line, stop; warm reuse with leases; idle stop;
//! `orbit local stop`; start failures.

use std::path::Path;
use std::time::{Duration, Instant};

use orbit_local::server::{self, ServerOptions};
use orbit_local::{CHAT_TEMPLATE, LocalError, LocalPaths, LocalServer};
use serde_json::Value;

use super::fake_runtime;

fn options() -> ServerOptions {
    ServerOptions {
        threads: 2,
        startup_timeout: Duration::from_secs(20),
        ..ServerOptions::default()
    }
}

fn recorded_argv(paths: &LocalPaths) -> Value {
    let text = std::fs::read_to_string(paths.root().join("fake-argv.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn wait_until(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_private_server_starts_healthy_with_the_documented_command_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    let server = LocalServer::acquire(&paths, &options()).unwrap();
    assert!(!server.is_warm());
    let port = server.port();
    assert!(server::healthy(port));
    assert_eq!(server.base_url(), format!("http://127.0.0.1:{port}"));
    assert_eq!(
        server.openai_base_url(),
        format!("http://127.0.0.1:{port}/v1")
    );
    let rec = recorded_argv(&paths);
    let model = paths.model_file().display().to_string();
    let template = paths.template_file().display().to_string();
    let port_s = port.to_string();
    let expected: Vec<&str> = vec![
        "-m",
        &model,
        "--alias",
        orbit_local::MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        &port_s,
        "--jinja",
        "-c",
        "8192",
        "-np",
        "1",
        "-b",
        "512",
        "-t",
        "2",
        "--chat-template-file",
        &template,
        "--temp",
        "0",
        "--seed",
        "42",
    ];
    assert_eq!(rec["argv"], serde_json::json!(expected));
    assert_eq!(rec["omp"], "passive");
    assert_eq!(
        std::fs::read_to_string(paths.template_file()).unwrap(),
        CHAT_TEMPLATE
    );
    server.stop();
    assert!(
        !server::healthy(port),
        "the private server must be gone after stop"
    );
}

#[test]
fn dropping_the_server_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    let port = {
        let server = LocalServer::acquire(&paths, &options()).unwrap();
        server.port()
    };
    assert!(!server::healthy(port));
}

#[test]
fn a_server_that_exits_reports_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    std::fs::write(paths.root().join("fake-exit"), "").unwrap();
    let err = LocalServer::acquire(&paths, &options()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, LocalError::ServerStart(_)), "{text}");
    assert!(text.contains("failed to load model"), "{text}");
}

#[test]
fn without_setup_acquire_says_to_run_setup() {
    let dir = tempfile::tempdir().unwrap();
    let paths = LocalPaths::in_data_dir(dir.path());
    let err = LocalServer::acquire(&paths, &options()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the local model is not set up; run `orbit local setup`"
    );
}

/// `orbit local serve` running on its own thread over a fake runtime.
struct Serving {
    paths: LocalPaths,
    thread: std::thread::JoinHandle<Result<(), LocalError>>,
    /// The warm server, as recorded.
    record: server::ServerRecord,
}

/// Starts [`Serving`] in `data_dir` with `idle_timeout`; returns once the
/// warm server is recorded.
fn serving(data_dir: &Path, idle_timeout: Duration) -> Serving {
    let paths = fake_runtime(data_dir);
    let serve_paths = paths.clone();
    let thread = std::thread::spawn(move || {
        server::serve(&serve_paths, &options(), idle_timeout, &mut |_| {})
    });
    wait_until("server.json", Duration::from_secs(20), || {
        server::warm_server(&paths).is_some()
    });
    let record = server::warm_server(&paths).unwrap();
    Serving {
        paths,
        thread,
        record,
    }
}

#[test]
fn a_warm_server_is_reused_under_a_lease_and_stops_when_idle() {
    let dir = tempfile::tempdir().unwrap();
    let serving = serving(dir.path(), Duration::from_secs(1));
    let (paths, record) = (&serving.paths, &serving.record);
    assert_eq!(record.idle_timeout_secs, 1);

    let run = LocalServer::acquire(paths, &options()).unwrap();
    assert!(run.is_warm());
    assert_eq!(run.port(), record.port);
    let lease = paths.leases_dir().join(std::process::id().to_string());
    assert!(lease.exists());
    // Held past the idle timeout: a leased server is never stopped.
    std::thread::sleep(Duration::from_millis(3_500));
    assert!(server::healthy(record.port), "stopped while leased");
    drop(run);
    assert!(!lease.exists());
    assert!(
        server::healthy(record.port),
        "a warm server outlives the run"
    );

    serving.thread.join().unwrap().unwrap();
    assert!(!server::healthy(record.port), "idle server still up");
    assert!(!paths.server_record().exists());
}

#[test]
fn two_serves_started_together_share_one_warm_server() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (paths, barrier) = (paths.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut ready = None;
                barrier.wait();
                let result = server::serve(&paths, &options(), Duration::from_secs(1), &mut |r| {
                    ready = Some((r.pid, r.port));
                });
                (result, ready)
            })
        })
        .collect();
    let outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for (result, _) in &outcomes {
        assert!(result.is_ok(), "{result:?}");
    }
    let servers: Vec<_> = outcomes.iter().map(|(_, ready)| ready.unwrap()).collect();
    assert_eq!(servers[0], servers[1], "each serve started its own server");
    assert!(!server::healthy(servers[0].1), "idle server still up");
}

#[test]
fn the_watchdog_returns_when_its_server_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let serving = serving(dir.path(), Duration::from_secs(600));
    let (paths, record) = (&serving.paths, &serving.record);
    // What `orbit local stop` does first: drop the record, signal the server.
    std::fs::remove_file(paths.server_record()).unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(record.pid).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let started = Instant::now();
    serving.thread.join().unwrap().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!server::healthy(record.port));
}

#[test]
fn local_stop_signals_the_recorded_server_and_watchdog() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    std::fs::write(paths.template_file(), CHAT_TEMPLATE).unwrap();
    assert!(!server::stop_recorded(&paths), "nothing recorded yet");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut fake_server = server::server_command(&paths, &options(), port)
        .spawn()
        .unwrap();
    let mut fake_watchdog = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    wait_until("health", Duration::from_secs(20), || server::healthy(port));
    let record = server::ServerRecord {
        pid: fake_server.id(),
        port,
        serve_pid: fake_watchdog.id(),
        idle_timeout_secs: 900,
    };
    std::fs::write(
        paths.server_record(),
        serde_json::to_string(&record).unwrap(),
    )
    .unwrap();
    assert_eq!(server::warm_server(&paths), Some(record));
    assert!(server::stop_recorded(&paths));
    assert!(!fake_server.wait().unwrap().success());
    assert!(!fake_watchdog.wait().unwrap().success());
    assert!(!paths.server_record().exists());
}
