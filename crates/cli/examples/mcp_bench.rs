//! MCP benchmark of the `orbit` binary (issue 14), against the fake
//! Anthropic server with server-side timestamps and the Python SDK test
//! server (`tests/fixtures/mcp_server.py`), next to Claude Code running the
//! same scripts against the same fake server (`bench/install-claude-code.sh`
//! installs it; without a path only orbit is measured).
//!
//! - start → first request byte with no MCP server and with 3 stdio
//!   servers configured (orbit connects them in the background: the first
//!   request must not wait for them).
//! - per-call overhead of an MCP tool: in one run, turns alternate a call of
//!   the server's `add` and a `Read` of a one-line file; each turn's client
//!   gap (response finished → next request received) is measured. The
//!   server's own time is timestamped on the server's side of the same
//!   calls: the server runs behind this program's `proxy` mode, which
//!   forwards every line and logs, per `tools/call`, the time from writing
//!   the request to the server's pipe to reading its answer. Overhead = MCP
//!   gap − Read gap − server time (medians of one run). The proxy's own
//!   two pipe hops count as the client's overhead (a conservative error).
//!
//! Runs are interleaved (orbit, then Claude Code, in each round) so the
//! machine's load falls on both alike. Run with `bench/mcp.sh` (release
//! build). Not a test: it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/measure.rs"]
mod measure;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

/// Runs of the startup measurement (per agent and configuration).
const RUNS: usize = 8;
/// MCP calls (and as many Read calls) in one overhead run.
const CALLS: usize = 30;
/// Rounds of the overhead measurement (`MCP_BENCH_ROUNDS` overrides).
const ROUNDS: usize = 3;

fn script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_server.py").to_string()
}

fn mcp_config(servers: usize) -> String {
    let map: serde_json::Map<String, Value> = (0..servers)
        .map(|i| {
            (
                format!("py{i}"),
                json!({"command": measure::python(), "args": [script(), "stdio"]}),
            )
        })
        .collect();
    json!({ "mcpServers": map }).to_string()
}

/// One Python server `py0` behind the timing proxy, logging to `log`.
fn proxied_config(log: &Path) -> String {
    let me = std::env::current_exe().unwrap();
    let args = json!(["proxy", log, measure::python(), script(), "stdio"]);
    json!({"mcpServers": {"py0": {"command": me, "args": args}}}).to_string()
}

/// `proxy LOG PROGRAM ARGS…`: runs the server, forwards stdin to it and its
/// stdout back line by line, and appends to LOG, per answered
/// `tools/call`, the microseconds from writing the request to the server
/// to reading its answer (each at once: the client kills the process
/// group when it ends).
fn proxy(mut args: impl Iterator<Item = String>) {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    let log = args.next().unwrap();
    let program = args.next().unwrap();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_server = child.stdin.take().unwrap();
    let from_server = BufReader::new(child.stdout.take().unwrap());
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let sent_in = Arc::clone(&sent);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let call = serde_json::from_str::<Value>(&line)
                .ok()
                .filter(|v| v["method"] == "tools/call")
                .map(|v| v["id"].to_string());
            // Noted before writing: the answer may be read before this
            // thread runs again.
            if let Some(id) = call {
                sent_in.lock().unwrap().insert(id, Instant::now());
            }
            if to_server.write_all(format!("{line}\n").as_bytes()).is_err() {
                break;
            }
            let _ = to_server.flush();
        }
    });
    let mut out = std::io::stdout().lock();
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    for line in from_server.lines() {
        let Ok(line) = line else { break };
        let t = Instant::now();
        let id = serde_json::from_str::<Value>(&line)
            .ok()
            .filter(|v| v.get("method").is_none())
            .map(|v| v["id"].to_string());
        let _ = out.write_all(format!("{line}\n").as_bytes());
        let _ = out.flush();
        if let Some(start) = id.and_then(|id| sent.lock().unwrap().remove(&id)) {
            let _ = writeln!(log, "{}", (t - start).as_micros());
        }
    }
    let _ = child.wait();
}

/// The server times the proxy logged.
fn server_times(log: &Path) -> Vec<Duration> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| Duration::from_micros(l.parse().unwrap()))
        .collect()
}

/// Three stdio "servers" that start at once and use no CPU (`sleep`):
/// what spawning costs, without the servers' own start-up load.
fn idle_config() -> String {
    let idle = json!({"command": "sleep", "args": ["30"]});
    json!({"mcpServers": {"a": idle, "b": idle, "c": idle}}).to_string()
}

/// Makes one start-up configuration (None: no MCP server).
type MakeConfig = fn() -> Option<String>;

/// The agent under test.
enum Agent {
    Orbit(PathBuf),
    /// Claude Code's `claude`, with the `HOME` all its runs share (a fresh
    /// home per run would measure its first-run set-up).
    Claude(PathBuf, PathBuf),
}

impl Agent {
    fn name(&self) -> &'static str {
        match self {
            Agent::Orbit(_) => "orbit",
            Agent::Claude(..) => "Claude Code",
        }
    }

    /// `-p PROMPT` in `dir` against `server`, with the MCP servers of
    /// `config` (written to a file), MCP tools of `py0` allowed, silent.
    fn command(&self, server: &FakeAnthropic, dir: &Path, config: Option<&str>) -> Command {
        let mut args = vec!["-p", "go"];
        let file = dir.join("mcp.json");
        let file_arg = file.display().to_string();
        if let Some(config) = config {
            std::fs::write(&file, config).unwrap();
            args.extend(["--mcp-config", &file_arg, "--allowedTools", "mcp__py0"]);
        }
        match self {
            Agent::Orbit(bin) => measure::orbit_in(bin, server.env(), dir, &args, None),
            Agent::Claude(bin, home) => {
                let mut cmd = Command::new(bin);
                cmd.env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("HOME", home)
                    .envs(server.env())
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .current_dir(dir)
                    .args(&args)
                    .args(["--output-format", "stream-json", "--verbose"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                cmd
            }
        }
    }

    fn start_to_first_byte(&self, config: Option<String>) -> Duration {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeAnthropic::start(vec![Reply::text("ok")]);
        let mut cmd = self.command(&server, dir.path(), config.as_deref());
        let t0 = Instant::now();
        let status = cmd.status().unwrap();
        assert!(status.success(), "{}", self.name());
        server.requests().remove(0).received_at - t0
    }

    /// (median MCP-call gap, median Read gap, median server time) of one run.
    fn call_gaps(&self) -> (Duration, Duration, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("note.txt");
        std::fs::write(&file, "one line\n").unwrap();
        let mut replies = vec![Reply::tool_use(
            "warm",
            "mcp__py0__add",
            json!({"a": 0, "b": 0}),
        )];
        for i in 0..CALLS {
            replies.push(Reply::tool_use(
                format!("m{i}"),
                "mcp__py0__add",
                json!({"a": i, "b": 1}),
            ));
            replies.push(Reply::tool_use(
                format!("r{i}"),
                "Read",
                json!({"file_path": file.display().to_string()}),
            ));
        }
        replies.push(Reply::text("done"));
        let server = FakeAnthropic::start(replies);
        let log = dir.path().join("server-times.log");
        let status = self
            .command(&server, dir.path(), Some(&proxied_config(&log)))
            .status()
            .unwrap();
        assert!(status.success(), "{}", self.name());
        let reqs = server.requests();
        assert_eq!(
            reqs.len(),
            2 + 2 * CALLS,
            "{}: one request per turn",
            self.name()
        );
        // Every result came back as the tool's answer.
        let last = reqs.last().unwrap().body.to_string();
        assert!(
            last.contains(&format!("{}+1={}", CALLS - 1, CALLS)),
            "{}",
            self.name()
        );
        let gap = |i: usize| reqs[i + 1].received_at - reqs[i].responded_at.unwrap();
        // Request k+1 follows response k; response 1 + 2i is an MCP call, 2 + 2i a Read.
        let mcp = (0..CALLS).map(|i| gap(1 + 2 * i)).collect();
        let read = (0..CALLS).map(|i| gap(2 + 2 * i)).collect();
        let times = server_times(&log);
        assert!(
            times.len() > CALLS,
            "{}: a server time per call",
            self.name()
        );
        (median(mcp), median(read), median(times[1..].to_vec()))
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("proxy") {
        return proxy(std::env::args().skip(2));
    }
    let mut args = std::env::args_os().skip(1);
    let bin: PathBuf = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/orbit"));
    let bin = bin
        .canonicalize()
        .expect("build orbit with --release first");
    println!("binary: {}", bin.display());
    let claude_home = tempfile::tempdir().unwrap();
    let mut agents = vec![Agent::Orbit(bin)];
    if let Some(claude) = args.next() {
        println!("claude: {}", PathBuf::from(&claude).display());
        agents.push(Agent::Claude(
            PathBuf::from(claude),
            claude_home.path().to_path_buf(),
        ));
    }
    // Warm-up (and Claude Code's first-run set-up in its home).
    for agent in &agents {
        agent.start_to_first_byte(None);
    }
    // Start-up, interleaved: per agent (no server, 3 idle, 3 Python).
    let configs: [(&str, MakeConfig); 3] = [
        ("no MCP server", || None),
        ("3 idle stdio servers (`sleep`)", || Some(idle_config())),
        ("3 Python SDK stdio servers", || Some(mcp_config(3))),
    ];
    let mut starts = vec![vec![Vec::new(); configs.len()]; agents.len()];
    for _ in 0..RUNS {
        for (c, (_, config)) in configs.iter().enumerate() {
            for (a, agent) in agents.iter().enumerate() {
                // Claude Code's `-p` waits for its servers before the first
                // request: an idle one would cost it all of MCP_TIMEOUT.
                if c == 1 && matches!(agent, Agent::Claude(..)) {
                    continue;
                }
                starts[a][c].push(agent.start_to_first_byte(config()));
            }
        }
    }
    println!("start -> first request byte (median of {RUNS}):");
    for (a, agent) in agents.iter().enumerate() {
        let none = ms(median(starts[a][0].clone()));
        for (c, (label, _)) in configs.iter().enumerate() {
            if starts[a][c].is_empty() {
                continue;
            }
            let t = ms(median(starts[a][c].clone()));
            println!("  {}: {label}: {t:.2} ms (x{:.2})", agent.name(), t / none);
        }
    }
    // Per-call overhead, interleaved rounds: above a built-in tool's turn
    // (orbit's target), and the whole client turn around the call.
    let mut overheads = vec![Vec::new(); agents.len()];
    let mut client_turns = vec![Vec::new(); agents.len()];
    let rounds = std::env::var("MCP_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    for round in 0..rounds {
        for (a, agent) in agents.iter().enumerate() {
            let (mcp, read, server) = agent.call_gaps();
            let overhead = ms(mcp) - ms(read) - ms(server);
            println!(
                "round {round}: {}: MCP add turn {:.3} ms, Read turn {:.3} ms, server's own time {:.3} ms (medians of {CALLS}) -> overhead {overhead:.3} ms",
                agent.name(),
                ms(mcp),
                ms(read),
                ms(server)
            );
            overheads[a].push(overhead);
            client_turns[a].push(ms(mcp) - ms(server));
        }
    }
    let middle = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (a, agent) in agents.iter().enumerate() {
        println!(
            "{}: MCP turn - Read turn - server's own time: median {:.3} ms of {rounds} rounds ({:?}); MCP turn - server's own time (the client's whole turn): median {:.3} ms",
            agent.name(),
            middle(&overheads[a]),
            overheads[a]
                .iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>(),
            middle(&client_turns[a]),
        );
    }
}
