//! Fixtures outside the scratch dir, shared through `common`: a cache
//! directory below the real `$HOME` (for paths the sandbox treats apart
//! from the temp dir) and a server process on a free loopback port, each
//! removed or killed when dropped.

use std::path::PathBuf;
use std::time::Duration;

/// A fresh directory `$HOME/.cache/NAME/<id>`, removed when dropped: for
/// tests whose paths must lie outside the temp dir (sandbox policies treat
/// it apart). The id is short, so a Unix socket path below it fits.
pub struct CacheDir(PathBuf);

impl CacheDir {
    pub fn new(name: &str) -> Self {
        let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
        let id = uuid::Uuid::new_v4().simple().to_string();
        let path = real_home.join(".cache").join(name).join(&id[..12]);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// `rel` below the directory.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for CacheDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server process listening on a free loopback port; killed (by pid) and
/// reaped when dropped.
pub struct PortServer {
    child: std::process::Child,
    pub port: u16,
}

impl PortServer {
    /// Spawns `command(port)` (stdout and stderr discarded) on a free port
    /// and waits until the port takes connections; panics, naming `what`,
    /// when that takes longer than `limit`.
    pub fn start(
        what: &str,
        limit: Duration,
        command: impl FnOnce(u16) -> std::process::Command,
    ) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = command(port)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let server = Self { child, port };
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < limit, "{what} did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

impl Drop for PortServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
