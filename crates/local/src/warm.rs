//! The warm server's state on disk, shared by `crate::server` (which
//! starts, serves and stops servers) and `crate::keep` (which decides when
//! a run starts the shared one): `server.json` ([`ServerRecord`]), the
//! leases runs hold (`leases/<pid>`), the `last_used` time, and the health
//! probe that says a recorded server still answers. A leaf module: it uses
//! neither of them.
//!
//! Flow: `serve` writes the record → a run finds it with [`warm_server`]
//! (alive and healthy), takes a lease and touches `last_used` → the serve
//! watchdog reads [`leased`] and [`last_used`] to stop the server once it
//! has been idle for its period.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nix::sys::signal::kill;
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use crate::{LocalError, LocalPaths};

/// Timeout of one health probe, in milliseconds.
const HEALTH_PROBE_TIMEOUT_MS: u64 = 1_000;

/// The warm server, as `server.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    /// llama-server's pid.
    pub pid: u32,
    /// The port llama-server listens on (localhost).
    pub port: u16,
    /// The `orbit local serve` process watching it.
    pub serve_pid: u32,
    /// Idle time after which the watcher stops the server, in seconds.
    pub idle_timeout_secs: u64,
}

/// `GET /health` answers 200 with `"status":"ok"`.
pub fn healthy(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Duration::from_millis(HEALTH_PROBE_TIMEOUT_MS);
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, timeout) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let request =
        format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status_ok = response
        .lines()
        .next()
        .is_some_and(|l| l.split_whitespace().nth(1) == Some("200"));
    let compact: String = response.chars().filter(|c| !c.is_whitespace()).collect();
    status_ok && compact.contains(r#""status":"ok""#)
}

pub(crate) fn pid_alive(pid: u32) -> bool {
    i32::try_from(pid).is_ok_and(|p| p > 0 && kill(Pid::from_raw(p), None).is_ok())
}

pub(crate) fn read_record(paths: &LocalPaths) -> Option<ServerRecord> {
    let text = std::fs::read_to_string(paths.server_record()).ok()?;
    serde_json::from_str(&text).ok()
}

pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn last_used_file(paths: &LocalPaths) -> PathBuf {
    paths.root().join("last_used")
}

/// When a run last used the warm server (Unix seconds; 0 when unknown).
pub(crate) fn last_used(paths: &LocalPaths) -> u64 {
    std::fs::read_to_string(last_used_file(paths))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

pub(crate) fn touch_last_used(paths: &LocalPaths) {
    let _ = std::fs::write(last_used_file(paths), now_secs().to_string());
}

pub(crate) fn take_lease(paths: &LocalPaths) -> Result<PathBuf, LocalError> {
    let dir = paths.leases_dir();
    std::fs::create_dir_all(&dir).map_err(LocalError::io(format!("create {}", dir.display())))?;
    let lease = dir.join(std::process::id().to_string());
    std::fs::write(&lease, now_secs().to_string())
        .map_err(LocalError::io(format!("write {}", lease.display())))?;
    touch_last_used(paths);
    Ok(lease)
}

/// Whether a run holds a lease (stale leases of dead processes are removed).
pub(crate) fn leased(paths: &LocalPaths) -> bool {
    let Ok(entries) = std::fs::read_dir(paths.leases_dir()) else {
        return false;
    };
    let mut busy = false;
    for entry in entries.filter_map(Result::ok) {
        let pid = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok());
        match pid {
            Some(pid) if pid_alive(pid) => busy = true,
            _ => {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    busy
}

/// The recorded warm server when it is alive and healthy.
pub fn warm_server(paths: &LocalPaths) -> Option<ServerRecord> {
    read_record(paths).filter(|r| pid_alive(r.pid) && healthy(r.port))
}
