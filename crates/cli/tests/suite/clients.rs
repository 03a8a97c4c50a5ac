//! Raw clients of the `orbit` binary for tests that drive it over a pipe
//! or a terminal (re-exported by `common`): [`StreamJsonChild`] speaks the
//! SDK's stream-json protocol on stdin/stdout, [`McpServeClient`] is an MCP
//! client of `orbit mcp serve`, and the tmux helpers ([`tmux`],
//! [`tmux_new_pane`], [`pane_command`], and [`Pane`] over them) run the
//! interactive UI in a pane a test types into and reads. Each starts orbit with `common`'s clean environment.

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::{Scratch, orbit_process, wait_within};

/// Starts `cmd` with its stdin and stdout piped and its stderr `stderr`.
pub fn spawn_piped(cmd: &mut std::process::Command, stderr: Stdio) -> std::process::Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("orbit starts")
}

/// Starts `cmd` headless: stdin closed, stdout `stdout`, stderr piped.
pub fn spawn_headless(cmd: &mut std::process::Command, stdout: Stdio) -> std::process::Child {
    cmd.stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("orbit starts")
}

/// Runs `cmd` headless with stdout discarded, for at most `limit`: its
/// exit status and its stderr.
pub fn run_for_stderr(
    cmd: &mut std::process::Command,
    limit: Duration,
) -> (std::process::ExitStatus, String) {
    let mut child = spawn_headless(cmd, Stdio::null());
    let status = wait_within(&mut child, limit);
    (status, super::common::drain(child.stderr.take()))
}

/// Reads JSON lines until one satisfies `want`; panics at EOF.
pub fn read_until(
    lines: &mut impl Iterator<Item = String>,
    want: impl Fn(&Value) -> bool,
) -> Value {
    for line in lines {
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line}"));
        if want(&value) {
            return value;
        }
    }
    panic!("stdout ended first");
}

/// Longest wait for the next stdout line of a [`StreamJsonChild`].
const STREAM_LINE_TIMEOUT: Duration = Duration::from_secs(60);

/// `orbit --input-format stream-json --output-format stream-json --verbose
/// EXTRA…` (stderr discarded) with its stdin to write lines to and its
/// stdout as lines, for tests that speak the SDK protocol raw.
pub struct StreamJsonChild {
    /// The process (wait for it after [`StreamJsonChild::close`]).
    pub child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: Box<dyn Iterator<Item = String>>,
}

impl StreamJsonChild {
    /// Starts it in `scratch` with only `env` (besides PATH and the homes).
    pub fn spawn(scratch: &Scratch, env: &[(String, String)], extra: &[&str]) -> Self {
        use std::io::BufRead as _;
        let mut cmd = orbit_process(scratch, env);
        cmd.args(["--input-format", "stream-json"])
            .args(["--output-format", "stream-json", "--verbose"])
            .args(extra);
        let mut child = spawn_piped(&mut cmd, Stdio::null());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        // Read on a thread, so a stalled orbit fails the test, not hangs it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let lines = std::iter::from_fn(move || match rx.recv_timeout(STREAM_LINE_TIMEOUT) {
            Ok(line) => Some(line),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("no stdout line from orbit in {STREAM_LINE_TIMEOUT:?}")
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
        });
        Self {
            child,
            stdin,
            lines: Box::new(lines),
        }
    }

    /// Writes one line (`line` as JSON) to orbit's stdin.
    pub fn send(&mut self, line: &Value) {
        use std::io::Write as _;
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap();
    }

    /// Sends a user message with `text`.
    pub fn send_user(&mut self, text: &str) {
        self.send(
            &serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}),
        );
    }

    /// Sends a control request `subtype` (no other fields) with `id`.
    pub fn send_control(&mut self, id: &str, subtype: &str) {
        self.send(
            &serde_json::json!({"type": "control_request", "request_id": id,
            "request": {"subtype": subtype}}),
        );
    }

    /// Reads stdout lines until one satisfies `want` (see [`read_until`]).
    pub fn read_until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        read_until(&mut self.lines, want)
    }

    /// Reads until the `control_response` to `id`; returns its `response`.
    pub fn response_to(&mut self, id: &str) -> Value {
        self.read_until(|v| v["type"] == "control_response" && v["response"]["request_id"] == id)["response"]
            .clone()
    }

    /// Closes orbit's stdin (the end of input).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// Closes stdin and waits up to `limit` for orbit to end: its status
    /// and the stdout lines not read yet, as JSON.
    pub fn finish(mut self, limit: Duration) -> (std::process::ExitStatus, Vec<Value>) {
        self.close();
        let status = wait_within(&mut self.child, limit);
        let rest = self
            .lines
            .map(|l| serde_json::from_str(&l).unwrap_or_else(|_| panic!("{l}")))
            .collect();
        (status, rest)
    }
}

/// `tmux -u -L SOCKET ARGS` (-u: UTF-8 whatever the test's locale, CI may
/// have none), asserted to succeed; its stdout.
pub fn tmux(socket: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("tmux")
        .arg("-u")
        .arg("-L")
        .arg(socket)
        .args(args)
        .output()
        .expect("tmux must be installed (ci/provision installs it)");
    assert!(
        out.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The shell line (words quoted) that runs `orbit ARGS…` in a tmux pane
/// with a clean environment: PATH, the scratch homes, a 256-colour UTF-8
/// terminal, and `env`.
pub fn pane_command(scratch: &Scratch, env: &[(String, String)], args: &[&str]) -> String {
    let mut words = vec![
        "env".to_string(),
        "-i".to_string(),
        format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
        format!("HOME={}", scratch.home().display()),
        format!("ORBIT_HOME={}", scratch.home().join(".orbit").display()),
        "TERM=xterm-256color".to_string(),
        "LANG=C.UTF-8".to_string(),
    ];
    words.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
    words.push(env!("CARGO_BIN_EXE_orbit").to_string());
    words.extend(args.iter().map(|a| (*a).to_string()));
    words
        .iter()
        .map(|w| sh_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A detached 100x30 tmux session `name` on the server `socket` (no tmux
/// configuration read) whose one pane runs the shell `line` in `cwd`.
pub fn tmux_new_pane(socket: &str, name: &str, cwd: &Path, line: &str) {
    let cwd = cwd.display().to_string();
    let size = ["-x", "100", "-y", "30"];
    let mut args = vec!["-f", "/dev/null", "new-session", "-d", "-s", name];
    args.extend(size);
    args.extend(["-c", &cwd, line]);
    tmux(socket, &args);
}

/// `word` quoted for a POSIX shell.
pub fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `orbit mcp serve` (in a scratch dir, clean environment) driven by a raw
/// MCP client over stdio: newline-delimited JSON-RPC.
pub struct McpServeClient {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl McpServeClient {
    /// Starts the server in `scratch` (stderr discarded).
    pub fn start(scratch: &Scratch) -> Self {
        let mut cmd = orbit_process(scratch, &[]);
        cmd.args(["mcp", "serve"]);
        let mut child = spawn_piped(&mut cmd, Stdio::null());
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        Self {
            child,
            stdin,
            stdout,
        }
    }

    /// Writes one message.
    pub fn send(&mut self, message: &Value) {
        use std::io::Write as _;
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads messages until the one answering request `id`.
    pub fn answer(&mut self, id: u64) -> Value {
        use std::io::BufRead as _;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == serde_json::json!(id) {
                return message;
            }
        }
    }

    /// The `initialize` handshake (request id 1) and the `initialized`
    /// notification; returns the answer to `initialize`.
    pub fn initialize(&mut self) -> Value {
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}
            }}),
        );
        let answer = self.answer(1);
        self.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    /// Ends the input; the server must exit within 20 s.
    pub fn finish(mut self) {
        self.stdin = None;
        wait_within(&mut self.child, Duration::from_secs(20));
    }
}

/// How long a screen may take to show what a test waits for.
pub const SCREEN_TIMEOUT: Duration = Duration::from_secs(20);
/// Numbers the panes of this process.
static NEXT_PANE: AtomicUsize = AtomicUsize::new(0);

/// One orbit in one tmux pane.
pub struct Pane {
    /// The tmux server socket (one server per pane).
    pub socket: String,
    /// The session (and pane) name.
    pub name: String,
}

impl Pane {
    /// Starts `orbit ARGS` in `scratch` with only PATH, HOME, ORBIT_HOME,
    /// TERM and `env` set; the pane stays after orbit exits.
    /// Starts `orbit ARGS` (with `env`) in a new pane of its own tmux
    /// server, once the UI shows its status line.
    pub fn start(scratch: &Scratch, env: &[(String, String)], args: &[&str]) -> Self {
        // A new tmux server per pane: a name reused right after a
        // kill-session could reach the server while it exits.
        let unique = format!(
            "orbit-tui-{}-{}-{}",
            std::process::id(),
            uuid_like(&scratch.path()),
            NEXT_PANE.fetch_add(1, Ordering::Relaxed)
        );
        let pane = Pane {
            socket: unique.clone(),
            name: unique,
        };
        let line = format!(
            "{}; echo \"[orbit exited $?]\"; sleep 600",
            pane_command(scratch, env, args)
        );
        tmux_new_pane(&pane.socket, &pane.name, &scratch.path(), &line);
        pane.tmux(&["set-option", "-s", "escape-time", "0"]);
        pane.wait_for("ctx ");
        pane
    }

    /// `tmux ARGS` on this pane's server.
    pub fn tmux(&self, args: &[&str]) -> String {
        tmux(&self.socket, args)
    }

    /// The pane's text, scrollback included.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-2000", "-t", &self.name])
    }

    /// The visible rows only.
    pub fn visible(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", &self.name])
    }

    /// Waits until the screen contains `needle`; returns the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |s| s.contains(needle))
    }

    /// Waits until `done` holds for the screen (`what` names it when it
    /// never does); returns the screen.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(
                started.elapsed() < SCREEN_TIMEOUT,
                "waited {SCREEN_TIMEOUT:?} for {what:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `text` literally, then Enter.
    pub fn submit(&self, text: &str) {
        self.tmux(&["send-keys", "-t", &self.name, "-l", text]);
        self.keys(&["Enter"]);
    }

    /// Sends `keys` (tmux key names).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Waits until no job runs (the live region shows no "Working").
    pub fn wait_idle(&self) {
        self.wait_until("an idle UI", |_| !self.visible().contains("✻ Working"));
    }

    /// Ctrl-D when idle, then the exit line; returns the session id it names.
    pub fn exit(&self) -> String {
        self.wait_idle();
        self.keys(&["C-d"]);
        let screen = self.wait_for("[orbit exited 0]");
        let line = screen
            .lines()
            .find(|l| l.contains("orbit --resume "))
            .unwrap_or_else(|| panic!("no resume line:\n{screen}"));
        line.rsplit(' ')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string()
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.socket, "kill-session", "-t", &self.name])
            .output();
    }
}

/// A short token unique to this scratch dir (tmux names must be unique
/// per test; the dir's name already is).
fn uuid_like(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().replace(['.', ':'], "_"))
        .unwrap_or_default()
}
