//! Interactive UI benchmark: the real `orbit` binary in a pseudo-terminal
//! (100×30) against the fake Anthropic server. The bench is the terminal:
//! it reads everything orbit writes (answering cursor-position queries)
//! and types into it.
//!
//! Measures: keystroke-to-screen latency (a typed char until its echo is
//! written; p50/p99 over 300 keys), idle CPU over 5 s (utime+stime from
//! /proc), bytes written per streamed token (a 400-token answer, 2 ms
//! apart), and RSS after a 500-turn session.
//!
//! Run: `cargo build --release -p orbit-cli && cargo run --release -p orbit-tui --example tui_bench -- target/release/orbit`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::pty::{Winsize, openpty};
use orbit_test_support::anthropic::Turn;
use orbit_test_support::{FakeAnthropic, Reply};

const KEYS: usize = 300;
const STREAM_TOKENS: usize = 400;
const TURNS: usize = 500;
const IDLE_SECS: u64 = 5;
const WAIT: Duration = Duration::from_secs(30);

/// What orbit wrote so far.
type Output = Arc<Mutex<Vec<u8>>>;

fn main() {
    let bin = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/release/orbit".to_string());
    let bin = std::fs::canonicalize(&bin).expect("orbit binary (pass its path)");
    let words: Vec<String> = (0..STREAM_TOKENS).map(|i| format!("tok{i} ")).collect();
    let chunks: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut replies = vec![Reply::turn(
        Turn::new()
            .text_chunks(&chunks)
            .event_delay(Duration::from_millis(2)),
    )];
    replies.extend((0..TURNS).map(|i| Reply::text(format!("answer-{i}-done"))));
    let server = FakeAnthropic::start(replies);
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();

    let pty = openpty(
        Some(&Winsize {
            ws_row: 30,
            ws_col: 100,
            ws_xpixel: 0,
            ws_ypixel: 0,
        }),
        None,
    )
    .unwrap();
    let slave = pty.slave;
    let mut child: Child = Command::new(&bin)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("ORBIT_HOME", home.path().join(".orbit"))
        .env("TERM", "xterm-256color")
        .envs(server.env())
        .current_dir(project.path())
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("orbit binary (pass its path)");
    let master = std::fs::File::from(pty.master);
    let mut writer = master.try_clone().unwrap();
    let output: Output = Arc::default();
    spawn_reader(master, Arc::clone(&output), writer.try_clone().unwrap());
    wait_for(&output, 0, b"ctx ");

    // Keystroke to screen.
    let mut latencies = Vec::with_capacity(KEYS);
    for i in 0..KEYS {
        let c = b'a' + u8::try_from(i % 26).unwrap();
        let mark = output.lock().unwrap().len();
        let sent = Instant::now();
        writer.write_all(&[c]).unwrap();
        wait_for(&output, mark, &[c]);
        latencies.push(sent.elapsed());
        if i % 40 == 39 {
            let mark = output.lock().unwrap().len();
            writer.write_all(&[3]).unwrap(); // Ctrl-C clears the input
            wait_quiet(&output, mark);
        }
    }
    writer.write_all(&[3]).unwrap();
    latencies.sort();
    let pct = |p: usize| latencies[(latencies.len() * p / 100).min(latencies.len() - 1)];
    println!(
        "keystroke-to-screen: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({KEYS} keys)",
        ms(pct(50)),
        ms(pct(99)),
        ms(*latencies.last().unwrap())
    );

    // Idle CPU.
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(IDLE_SECS));
    let used = cpu_ticks(pid) - before;
    println!(
        "idle CPU: {used} ticks in {IDLE_SECS} s = {:.2}%",
        used as f64 / (IDLE_SECS as f64 * 100.0) * 100.0
    );

    // Bytes per streamed token.
    let mark = output.lock().unwrap().len();
    writer.write_all(b"stream please\r").unwrap();
    let last = format!("tok{}", STREAM_TOKENS - 1);
    wait_for(&output, mark, last.as_bytes());
    wait_quiet(&output, mark);
    let bytes = output.lock().unwrap().len() - mark;
    println!(
        "streamed answer: {bytes} bytes for {STREAM_TOKENS} tokens = {:.1} bytes/token",
        bytes as f64 / STREAM_TOKENS as f64
    );

    // RSS after a 500-turn session.
    let rss_before = rss_kib(pid);
    let started = Instant::now();
    for i in 0..TURNS {
        let mark = output.lock().unwrap().len();
        writer.write_all(format!("turn {i}\r").as_bytes()).unwrap();
        wait_for(&output, mark, format!("answer-{i}-done").as_bytes());
    }
    wait_quiet(&output, 0);
    let rss_after = rss_kib(pid);
    println!(
        "RSS: {:.1} MiB before, {:.1} MiB after {TURNS} turns ({:.1} s, {:.1} ms/turn)",
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        started.elapsed().as_secs_f64(),
        ms(started.elapsed()) / TURNS as f64
    );

    writer.write_all(&[4]).unwrap(); // Ctrl-D exits
    let deadline = Instant::now() + WAIT;
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "orbit did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Copies the pty's output into `output`, answering `ESC[6n` (cursor
/// position) as a terminal would.
fn spawn_reader(mut master: std::fs::File, output: Output, mut answer: std::fs::File) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        loop {
            let n = match master.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            if chunk.windows(4).any(|w| w == b"\x1b[6n") {
                let _ = answer.write_all(b"\x1b[1;1R");
            }
            output.lock().unwrap().extend_from_slice(chunk);
        }
    });
}

/// Waits until the output after `mark` contains `needle`.
fn wait_for(output: &Output, mark: usize, needle: &[u8]) {
    let deadline = Instant::now() + WAIT;
    loop {
        {
            let out = output.lock().unwrap();
            if out[mark.min(out.len())..]
                .windows(needle.len())
                .any(|w| w == needle)
            {
                return;
            }
        }
        if Instant::now() > deadline {
            let out = output.lock().unwrap();
            let tail = &out[out.len().saturating_sub(3000)..];
            std::fs::write("/tmp/tui_bench_tail.txt", tail).unwrap();
            panic!("waited for {:?}", String::from_utf8_lossy(needle));
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Waits until nothing has been written for 300 ms.
fn wait_quiet(output: &Output, _mark: usize) {
    let mut last = output.lock().unwrap().len();
    let mut since = Instant::now();
    while since.elapsed() < Duration::from_millis(300) {
        std::thread::sleep(Duration::from_millis(10));
        let now = output.lock().unwrap().len();
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}
