//! Issue 11 acceptance: the `orbit` binary is killed with SIGKILL at random
//! points of a scripted session (mid-stream, mid-tool, between the writes of
//! a turn, after the end), and at targeted ones (`Kill`): while one of its
//! threads is inside `fdatasync` (seen in `/proc/PID/task/*/syscall`),
//! while the compaction's summary request streams, and the moment the
//! compaction boundary is in the transcript (the session's small
//! `ORBIT_CONTEXT_WINDOW` compacts it before its fourth call). Each is
//! resumed with `--resume`. Every resume must succeed; the request it
//! sends must pair every tool_use with one result, repeat no message, and
//! begin with exactly the messages of the last request sent before the kill
//! (the prompt cache still hits; only the moving `cache_control` breakpoint
//! is ignored) — or, once the boundary is written, with the summary.
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
use orbit_tool::texts::compact::{COMPACT_INSTRUCTIONS, compact_summary_message};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, run_stream_json, wait_within};

const SESSION: &str = "c0ffee00-1234-4abc-8def-0123456789ab";
const DEFAULT_POINTS: u64 = 10;
const DEFAULT_SEED: u64 = 0x5eed_0011;
/// Kill points fall this long after the first request arrived at most
/// (the scripted session takes about 1.1 s; later points kill a finished run).
const KILL_WINDOW_MS: u64 = 1_300;
/// The session's context window, in tokens: the third call reports more
/// input than its threshold, so the fourth request is the summary's.
const CONTEXT_WINDOW_TOKENS: &str = "16000";
/// Input tokens the third call reports (over the window's threshold).
const OVER_THRESHOLD_TOKENS: u64 = 12_000;
/// The summary request is the session's fourth.
const SUMMARY_REQUEST: usize = 4;
/// Chunks of the streamed summary (each [`EVENT_GAP`] apart).
const SUMMARY_CHUNKS: [&str; 12] = [
    "Task: ",
    "append ",
    "to ",
    "log.txt ",
    "and ",
    "write ",
    "out.txt. ",
    "Files: ",
    "log.txt, ",
    "out.txt. ",
    "Open: ",
    "the Write.",
];
/// Longest wait for a targeted kill point, in milliseconds.
const TARGET_WAIT_MS: u64 = 10_000;
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
/// large output (over its 30,000-char threshold: persisted; its usage
/// passes the compaction threshold), the summary request (streamed
/// slowly), a Write, then a slowly streamed answer.
fn script() -> Vec<Reply> {
    let turn = || Turn::new().event_delay(EVENT_GAP).usage(1_000, 50);
    let over = Turn::new()
        .event_delay(EVENT_GAP)
        .usage(OVER_THRESHOLD_TOKENS, 50);
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
        Reply::turn(over.tool_use("toolu_c4", "Bash", json!({"command": "seq 1 9000"}))),
        Reply::turn(turn().text_chunks(&SUMMARY_CHUNKS)),
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

/// Where a point kills `orbit`.
#[derive(Debug, Clone, Copy)]
enum Kill {
    /// This many milliseconds after the first request arrived.
    Timed(u64),
    /// While one of its threads is inside `fdatasync` (or `fsync`).
    InFsync,
    /// This many milliseconds after the summary request arrived (it
    /// streams for about [`SUMMARY_CHUNKS`] × [`EVENT_GAP`]).
    SummaryInFlight(u64),
    /// As soon as the compaction boundary is in the transcript.
    AfterBoundary,
}

impl Kill {
    /// Point `point`'s kind: two timed points in five, one of each other.
    fn pick(point: u64, rng: &mut Rng) -> Self {
        let summary_ms = EVENT_GAP.as_millis() as u64 * SUMMARY_CHUNKS.len() as u64;
        match point % 5 {
            2 => Kill::InFsync,
            // In the first half of the stream: a loaded machine may be late.
            3 => Kill::SummaryInFlight(rng.next() % (summary_ms / 2)),
            4 => Kill::AfterBoundary,
            _ => Kill::Timed(rng.next() % KILL_WINDOW_MS),
        }
    }
}

#[test]
fn sigkill_at_random_points_always_resumes_cleanly() {
    let points = env_u64("ORBIT_CRASH_POINTS", DEFAULT_POINTS);
    let seed = env_u64("ORBIT_CRASH_SEED", DEFAULT_SEED);
    let mut rng = Rng(seed | 1);
    let mut phases: BTreeMap<&str, usize> = BTreeMap::new();
    let mut repairs: BTreeMap<String, usize> = BTreeMap::new();
    for point in 0..points {
        let seen = kill_and_resume(point, Kill::pick(point, &mut rng));
        *phases.entry(seen.phase).or_default() += 1;
        for r in seen.repairs {
            *repairs.entry(r).or_default() += 1;
        }
    }
    eprintln!(
        "crash test: {points} points (seed {seed:#x}); killed {phases:?}; repairs {repairs:?}"
    );
    // The compaction points land where they aim (the fsync one depends on
    // the file system's sync taking long enough to be seen).
    if points >= 5 {
        assert!(
            phases.contains_key("summary request in flight"),
            "{phases:?}"
        );
        assert!(
            phases.contains_key("right after the boundary"),
            "{phases:?}"
        );
    }
}

/// The syscall numbers of `fdatasync` and `fsync` on this architecture.
fn sync_syscalls() -> &'static [&'static str] {
    if cfg!(target_arch = "x86_64") {
        &["75", "74"]
    } else if cfg!(target_arch = "aarch64") {
        &["83", "82"]
    } else {
        &[]
    }
}

/// Whether a thread of `pid` is inside a sync call now.
fn in_sync(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("syscall")).is_ok_and(|s| {
            let number = s.split_whitespace().next().unwrap_or_default();
            sync_syscalls().contains(&number)
        })
    })
}

/// Waits (bounded, or until orbit exits) for `ready`; whether it came.
fn wait_until(child: &mut std::process::Child, mut ready: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + Duration::from_millis(TARGET_WAIT_MS);
    while Instant::now() < until && child.try_wait().unwrap().is_none() {
        if ready() {
            return true;
        }
        std::hint::spin_loop();
    }
    false
}

/// Kills `child` at `kill`; the phase it landed in, when targeted and hit.
fn kill_at(
    kill: Kill,
    child: &mut std::process::Child,
    server: &FakeAnthropic,
    scratch: &Scratch,
) -> Option<&'static str> {
    let pid = child.id();
    let hit = match kill {
        Kill::Timed(delay_ms) => {
            let kill_at = Instant::now() + Duration::from_millis(delay_ms);
            while Instant::now() < kill_at && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_millis(1));
            }
            None
        }
        Kill::InFsync => wait_until(child, || in_sync(pid)).then_some("in fdatasync"),
        Kill::SummaryInFlight(delay_ms) => {
            server.wait_for_requests(SUMMARY_REQUEST, Duration::from_millis(TARGET_WAIT_MS));
            std::thread::sleep(Duration::from_millis(delay_ms));
            Some("summary request in flight")
        }
        Kill::AfterBoundary => {
            let path = transcript(scratch);
            wait_until(child, || has_boundary(&path)).then_some("right after the boundary")
        }
    };
    let _ = child.kill(); // SIGKILL
    wait_within(child, Duration::from_secs(10));
    hit
}

/// Whether the transcript at `path` holds a compaction boundary.
fn has_boundary(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains(r#""type":"compaction""#))
}

fn is_summary_request(body: &Value) -> bool {
    let head = COMPACT_INSTRUCTIONS.lines().next().unwrap_or_default();
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .and_then(|c| c.last())
        .and_then(|b| b["text"].as_str())
        .is_some_and(|t| t.starts_with(head))
}

fn kill_and_resume(point: u64, kill: Kill) -> Seen {
    let context = format!("point {point} ({kill:?})");
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(script());
    let mut env = server.env();
    env.push(("ORBIT_CONTEXT_WINDOW".into(), CONTEXT_WINDOW_TOKENS.into()));
    let mut child = orbit_process(&scratch, &env)
        .args(["-p", "do the work", "--output-format", "stream-json"])
        .args(["--session-id", SESSION, "--allowedTools", "Bash,Write"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    server.wait_for_requests(1, Duration::from_secs(20));
    let running = child.try_wait().unwrap().is_none();
    let hit = kill_at(kill, &mut child, &server, &scratch);
    let before = server.requests();
    let streaming = before.last().is_some_and(|r| r.responded_at.is_none());
    let summary_streaming = streaming && is_summary_request(&before.last().unwrap().body);
    let phase = match (hit, running, streaming) {
        // Late (the stream already ended): counted where it landed.
        (Some("summary request in flight"), _, _) if !summary_streaming => {
            if streaming {
                "mid-stream"
            } else {
                "mid-tool or between writes"
            }
        }
        (Some(phase), _, _) => phase,
        (None, false, _) => "after the end",
        (None, true, true) => "mid-stream",
        (None, true, false) => "mid-tool or between writes",
    };
    let boundary_written = has_boundary(&transcript(&scratch));
    if phase == "right after the boundary" {
        assert!(boundary_written, "{context}");
    }

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
    // The summary request is not the conversation: compare with the last
    // request of the conversation sent before the kill.
    let last_before = before
        .iter()
        .rev()
        .find(|r| !is_summary_request(&r.body))
        .map(|r| without_cache_control(&r.body))
        .unwrap();
    let last_before = last_before["messages"].as_array().unwrap();
    let summary_head = compact_summary_message("");
    let summary_head = summary_head.split("<summary>").next().unwrap_or_default();
    let starts_with_summary = |messages: &[Value]| {
        messages[0]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with(summary_head))
    };
    // Once the boundary is written the resume continues from it.
    assert_eq!(starts_with_summary(messages), boundary_written, "{context}");
    if boundary_written && !starts_with_summary(last_before) {
        // Killed before any request of the compacted history was sent.
        assert!(
            messages[0]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains(SUMMARY_CHUNKS.concat().trim())),
            "{context}"
        );
    } else {
        check_prefix(last_before, messages, &context);
    }
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
