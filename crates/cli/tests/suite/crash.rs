//! Issue 11 acceptance: the `orbit` binary is killed with SIGKILL at random
//! points of a scripted session (mid-stream, mid-tool, between the writes of
//! a turn, after the end) and resumed with `--resume`. Every resume must
//! succeed; the request it sends must pair every tool_use with one result,
//! repeat no message, and begin with exactly the messages of the last
//! request sent before the kill (the prompt cache still hits; only the
//! moving `cache_control` breakpoint is ignored).
//!
//! A kill rarely lands inside a `write` (records are small), so every
//! fourth point also tears the transcript's last record the way such a
//! kill would (half a line appended): the resume must drop it with one
//! warning.
//!
//! `ORBIT_CRASH_POINTS` (default 10) sets the number of kill points and
//! `ORBIT_CRASH_SEED` the seed; `bench/crash.sh` runs 100.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use orbit_test_support::body::without_cache_control;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, run_stream_json, wait_within};

const SESSION: &str = "c0ffee00-1234-4abc-8def-0123456789ab";
const DEFAULT_POINTS: u64 = 10;
const DEFAULT_SEED: u64 = 0x5eed_0011;
/// Kill points fall this long after the first request arrived at most
/// (the scripted session takes about 0.9 s; later points kill a finished run).
const KILL_WINDOW_MS: u64 = 1_100;
/// Every this many points, the kill is made to tear the last record.
const TEAR_EVERY: u64 = 4;
/// Streamed events are this far apart.
const EVENT_GAP: Duration = Duration::from_millis(8);

/// A small deterministic generator (xorshift64*), so a failing point can be
/// replayed with its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn transcript(scratch: &Scratch) -> std::path::PathBuf {
    orbit_session::transcript_path(&scratch.home().join(".orbit"), &scratch.path(), SESSION)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Five model calls: text + slow Bash, two parallel tools, a Bash with a
/// large output (over its 30,000-char threshold: persisted), a Write, then
/// a slowly streamed answer.
fn script() -> Vec<Reply> {
    let turn = || Turn::new().event_delay(EVENT_GAP).usage(1_000, 50);
    vec![
        Reply::turn(turn().text("Turn one: appending.").tool_use(
            "toolu_c1",
            "Bash",
            json!({"command": "sleep 0.15; echo one >> log.txt"}),
        )),
        Reply::turn(
            turn()
                .tool_use("toolu_c2", "Read", json!({"file_path": "log.txt"}))
                .tool_use(
                    "toolu_c3",
                    "Bash",
                    json!({"command": "echo two >> log.txt; sleep 0.1"}),
                ),
        ),
        Reply::turn(turn().tool_use("toolu_c4", "Bash", json!({"command": "seq 1 9000"}))),
        Reply::turn(turn().tool_use(
            "toolu_c5",
            "Write",
            json!({"file_path": "out.txt", "content": "done\n"}),
        )),
        Reply::turn(turn().text_chunks(&["The ", "work ", "is ", "done ", "now."])),
    ]
}

/// What one kill point saw.
#[derive(Debug, Default)]
struct Seen {
    phase: &'static str,
    repairs: Vec<String>,
}

#[test]
fn sigkill_at_random_points_always_resumes_cleanly() {
    let points = env_u64("ORBIT_CRASH_POINTS", DEFAULT_POINTS);
    let seed = env_u64("ORBIT_CRASH_SEED", DEFAULT_SEED);
    let mut rng = Rng(seed | 1);
    let mut phases: BTreeMap<&str, usize> = BTreeMap::new();
    let mut repairs: BTreeMap<String, usize> = BTreeMap::new();
    for point in 0..points {
        let delay_ms = rng.next() % KILL_WINDOW_MS;
        let seen = kill_and_resume(point, delay_ms);
        *phases.entry(seen.phase).or_default() += 1;
        for r in seen.repairs {
            *repairs.entry(r).or_default() += 1;
        }
    }
    eprintln!(
        "crash test: {points} points (seed {seed:#x}); killed {phases:?}; repairs {repairs:?}"
    );
}

fn kill_and_resume(point: u64, delay_ms: u64) -> Seen {
    let context = format!("point {point} (kill {delay_ms} ms after the first request)");
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(script());
    let mut child = orbit_process(&scratch, &server.env())
        .args(["-p", "do the work", "--output-format", "stream-json"])
        .args(["--session-id", SESSION, "--allowedTools", "Bash,Write"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    server.wait_for_requests(1, Duration::from_secs(20));
    let kill_at = Instant::now() + Duration::from_millis(delay_ms);
    while Instant::now() < kill_at && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let finished = child.try_wait().unwrap().is_some();
    let _ = child.kill(); // SIGKILL
    wait_within(&mut child, Duration::from_secs(10));
    let before = server.requests();
    let streaming = before.last().is_some_and(|r| r.responded_at.is_none());
    let phase = match (finished, streaming) {
        (true, _) => "after the end",
        (false, true) => "mid-stream",
        (false, false) => "mid-tool or between writes",
    };

    // A kill inside `write` itself is rare at these record sizes; every
    // TEAR_EVERY-th point leaves what it leaves: the first half of a record.
    let torn = point % TEAR_EVERY == TEAR_EVERY - 1;
    if torn {
        let line = r#"{"v":1,"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"never finished"}]}}"#;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(transcript(&scratch))
            .unwrap();
        file.write_all(&line.as_bytes()[..line.len() / 2]).unwrap();
    }

    let resume_server = FakeAnthropic::start(vec![Reply::text("resumed")]);
    let out = run_stream_json(&scratch, &resume_server, "go on", &["-r", SESSION]);
    assert_eq!(out.code, 0, "{context}: resume failed: {}", out.stderr);
    let repairs: Vec<String> = out
        .stderr
        .lines()
        .map(|l| {
            assert!(
                l.starts_with(&format!("orbit: warning: session {SESSION}: ")),
                "{context}: {l}"
            );
            match l {
                _ if l.contains("incomplete last record") => "torn last line".to_string(),
                _ if l.contains("cut off by a crash") => "interrupted tool_use".to_string(),
                other => panic!("{context}: unexpected warning {other}"),
            }
        })
        .collect();
    assert!(repairs.len() <= 2, "{context}: {}", out.stderr);
    assert_eq!(
        repairs.iter().filter(|r| *r == "torn last line").count(),
        usize::from(torn),
        "{context}: {}",
        out.stderr
    );

    let resumed = without_cache_control(&resume_server.bodies()[0]);
    let messages = resumed["messages"].as_array().unwrap();
    check_history(messages, &context);
    let last_before = without_cache_control(&before.last().unwrap().body);
    check_prefix(
        last_before["messages"].as_array().unwrap(),
        messages,
        &context,
    );
    Seen { phase, repairs }
}

/// Roles alternate from a user message; every tool_use is answered once in
/// the next message and every result answers one; no message repeats.
fn check_history(messages: &[Value], context: &str) {
    let mut uses = HashSet::new();
    let mut results = HashSet::new();
    let mut assistant_texts = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        assert_eq!(m["role"], role, "{context}: message {i}: {m}");
        let blocks = m["content"].as_array().unwrap();
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => assert!(
                    uses.insert(b["id"].to_string()),
                    "{context}: tool_use twice: {b}"
                ),
                Some("tool_result") => {
                    assert!(
                        results.insert(b["tool_use_id"].to_string()),
                        "{context}: result twice: {b}"
                    )
                }
                _ => {}
            }
        }
        if role == "assistant" {
            assert!(
                assistant_texts.insert(m.to_string()),
                "{context}: message {i} repeated"
            );
            let ids: Vec<&Value> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| &b["id"])
                .collect();
            let next = messages
                .get(i + 1)
                .map(|n| n["content"].as_array().unwrap().clone())
                .unwrap_or_default();
            let answered: Vec<&Value> = next
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| &b["tool_use_id"])
                .collect();
            assert_eq!(answered, ids, "{context}: results of message {i}");
        }
    }
    assert_eq!(uses, results, "{context}: unpaired tool_use or result");
}

/// The resumed request starts with the messages of the last request sent
/// before the kill, byte for byte; only its last (user) message may have
/// gained blocks (the new prompt is merged into it).
fn check_prefix(before: &[Value], after: &[Value], context: &str) {
    let n = before.len();
    assert!(after.len() >= n, "{context}: history shrank");
    for i in 0..n - 1 {
        assert_eq!(
            after[i].to_string(),
            before[i].to_string(),
            "{context}: message {i} changed"
        );
    }
    let last = before[n - 1]["content"].as_array().unwrap();
    let now = after[n - 1]["content"].as_array().unwrap();
    assert!(now.len() >= last.len(), "{context}: last message shrank");
    for (j, block) in last.iter().enumerate() {
        assert_eq!(
            now[j].to_string(),
            block.to_string(),
            "{context}: block {j} of the last message"
        );
    }
}
