//! Session benchmarks (issue 11), on the real writer, reader and binary:
//!
//! - transcript append per turn: what one turn records (the streamed
//!   assistant message, its results, the budget decisions, the totals) as
//!   the engine records it — appends on the caller's thread, then the
//!   `sync` the loop awaits before the next request — timed from the first
//!   append to the end of the sync (the time the turn is blocked), 1,000
//!   turns, median and p99;
//! - resume of a 5,000-message transcript: `load_transcript` +
//!   `SessionSpec::build` (the engine's resume) in process (median of 10) and its peak RSS in a
//!   fresh process (`--resume-only`), then the binary
//!   `orbit -r ID -p hi` against the fake server: start → first request
//!   byte (median of 5) and peak RSS (GNU time's `%M`, max of 5), next to a
//!   new session's.
//!
//! Run with `bench/sessions.sh` (release build). Not a test: it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::{Dirs, GNU_TIME, measured, rss_kib};
use orbit::{BuiltSession, SessionSpec};
use orbit_engine::load_transcript;
use orbit_model::ModelClient;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_protocol::{ContentBlock, Message, ToolResultBlock, ToolUseBlock, Usage};
use orbit_session::{
    Header, MessageRecord, Record, ReplacementsRecord, TranscriptWriter, UsageRecord,
    transcript_path,
};
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

const APPEND_TURNS: usize = 1_000;
const RESUME_MESSAGES: usize = 5_000;
const LOAD_RUNS: usize = 10;
const BINARY_RUNS: usize = 5;
const SESSION: &str = "b3e5f7a9-1c2d-4e6f-8a0b-c1d2e3f4a5b6";

/// Records of turn `i`: the streamed assistant message (text + tool_use),
/// its result (`result_chars` chars), the budget decision, the totals.
fn turn_records(i: usize, result_chars: usize) -> Vec<Record> {
    let id = format!("toolu_bench_{i:05}");
    let assistant = Message::assistant(vec![
        ContentBlock::text(format!(
            "Step {i}: let me look at the next file to see how it is used."
        )),
        ContentBlock::ToolUse(ToolUseBlock {
            id: id.clone(),
            name: "Bash".into(),
            input: json!({"command": format!("grep -rn 'fn step_{i}' src/ | head -50")}),
        }),
    ]);
    let line = format!("src/module_{i}.rs:42: fn step_{i}(input: &str) -> Result<(), Error> {{\n");
    let output: String = line
        .repeat(result_chars / line.len() + 1)
        .chars()
        .take(result_chars)
        .collect();
    let results = Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::text(
        &id, output, false,
    ))]);
    let message = |m| {
        Record::Message(MessageRecord {
            message: m,
            never_persisted: Vec::new(),
        })
    };
    vec![
        message(assistant),
        message(results),
        Record::Replacements(ReplacementsRecord {
            seen: vec![id],
            ..Default::default()
        }),
        Record::Usage(UsageRecord {
            usage: Usage {
                input_tokens: 1_000 * i as u64,
                ..Usage::default()
            },
            total_cost_usd: 0.003 * i as f64,
            turns: i as u32,
        }),
    ]
}

fn header(cwd: &Path) -> Record {
    Record::Header(Header {
        session_id: SESSION.into(),
        cwd: cwd.display().to_string(),
        created_at_ms: 0,
        forked_from: None,
        orbit_version: "bench".into(),
    })
}

/// Result sizes of the resume transcript: 200–3,000 chars, deterministic.
fn result_chars(i: usize) -> usize {
    200 + (i * 7_919) % 2_800
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bench_append(rt: &tokio::runtime::Runtime, dir: &Path) {
    let mut writer = TranscriptWriter::create(dir.join("append.jsonl"));
    writer.append(&header(dir));
    rt.block_on(writer.sync()).unwrap();
    let mut blocked = Vec::with_capacity(APPEND_TURNS);
    let mut appends = Vec::with_capacity(APPEND_TURNS);
    for i in 0..APPEND_TURNS {
        let records = turn_records(i, 4_000);
        let t0 = Instant::now();
        for r in &records {
            writer.append(r);
        }
        let t1 = Instant::now();
        rt.block_on(writer.sync()).unwrap();
        appends.push(t1 - t0);
        blocked.push(t0.elapsed());
    }
    blocked.sort();
    appends.sort();
    let bytes = std::fs::metadata(dir.join("append.jsonl")).unwrap().len();
    println!(
        "transcript append per turn ({APPEND_TURNS} turns, {:.1} KB/turn): blocked median {:.3} ms, p99 {:.3} ms; of it encoding + send median {:.3} ms, p99 {:.3} ms",
        bytes as f64 / APPEND_TURNS as f64 / 1000.0,
        ms(percentile(&blocked, 0.5)),
        ms(percentile(&blocked, 0.99)),
        ms(percentile(&appends, 0.5)),
        ms(percentile(&appends, 0.99)),
    );
}

/// Writes the 5,000-message transcript of the project `cwd`; returns its path.
fn write_resume_transcript(rt: &tokio::runtime::Runtime, home: &Path, cwd: &Path) -> PathBuf {
    let path = transcript_path(home, cwd, SESSION);
    let mut writer = TranscriptWriter::create(path.clone());
    writer.append(&header(cwd));
    writer.append(&Record::Message(MessageRecord {
        message: Message::user_text("Refactor the step functions."),
        never_persisted: Vec::new(),
    }));
    // Each turn adds 2 messages; the last one ends with a text answer.
    for i in 1..RESUME_MESSAGES / 2 {
        for r in turn_records(i, result_chars(i)) {
            writer.append(&r);
        }
    }
    writer.append(&Record::Message(MessageRecord {
        message: Message::assistant(vec![ContentBlock::text("Done with the refactor.")]),
        never_persisted: Vec::new(),
    }));
    rt.block_on(writer.sync()).unwrap();
    path
}

fn bench_resume_in_process(path: &Path, cwd: &Path, home: &Path) {
    let server = FakeAnthropic::start(vec![]);
    let mut samples = Vec::new();
    let mut messages = 0;
    for _ in 0..LOAD_RUNS {
        let client = Arc::new(
            AnthropicClient::new(AnthropicConfig {
                base_url: server.base_url(),
                api_key: Some("k".into()),
                ..AnthropicConfig::default()
            })
            .unwrap(),
        );
        let t0 = Instant::now();
        let engine = resume(path, cwd, home, client).engine;
        samples.push(t0.elapsed());
        messages = engine.messages().len();
    }
    samples.sort();
    let size = std::fs::metadata(path).unwrap().len();
    println!(
        "resume in process ({messages} messages, {:.1} MB transcript): load_transcript + SessionSpec::build median {:.1} ms, max {:.1} ms ({LOAD_RUNS} runs)",
        size as f64 / 1e6,
        ms(percentile(&samples, 0.5)),
        ms(samples[samples.len() - 1]),
    );
}

/// One binary run under GNU time: (start → first request byte, peak RSS KiB).
fn binary_run(bin: &Path, cwd: &Path, home: &Path, args: &[&str]) -> (Duration, u64) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let report = home.join("rss.txt");
    let dirs = Dirs {
        cwd,
        home,
        orbit_home: home,
    };
    let t0 = Instant::now();
    let status = measure::orbit(bin, server.env(), &dirs, args, Some(&report))
        .status()
        .unwrap();
    assert!(status.success(), "orbit failed: {status}");
    let first = server.requests().remove(0).received_at - t0;
    let rss = rss_kib(&report);
    (first, rss)
}

fn bench_binary(bin: &Path, cwd: &Path, home: &Path) {
    for (label, args) in [
        ("new session", vec!["-p", "hi"]),
        ("resume of 5,000 messages", vec!["-r", SESSION, "-p", "hi"]),
    ] {
        let runs: Vec<(Duration, u64)> = (0..BINARY_RUNS)
            .map(|_| binary_run(bin, cwd, home, &args))
            .collect();
        let mut times: Vec<Duration> = runs.iter().map(|r| r.0).collect();
        times.sort();
        let peak = runs.iter().map(|r| r.1).max().unwrap_or(0);
        println!(
            "binary, {label}: start -> first request byte median {:.1} ms; peak RSS {:.1} MiB (max of {BINARY_RUNS})",
            ms(percentile(&times, 0.5)),
            peak as f64 / 1024.0
        );
    }
}

/// `load_transcript` + the session assembly (`orbit::SessionSpec`, the
/// front ends' one way to resume) of the bench session.
fn resume(path: &Path, cwd: &Path, home: &Path, client: Arc<dyn ModelClient>) -> BuiltSession {
    let mut spec = SessionSpec::new(
        cwd.to_path_buf(),
        home.to_path_buf(),
        orbit_config::Env::from_process(),
    );
    spec.provider = Some(orbit::Provider::Client(client));
    spec.model = Some("claude-sonnet-4-5".into());
    spec.prompt.replace = Some("You are a bench.".into());
    spec.session_id = Some(SESSION.into());
    spec.resume = Some(load_transcript(path).unwrap());
    spec.build().unwrap()
}

/// `session_bench --resume-only PATH CWD HOME`: resumes once and exits, so
/// GNU time measures the peak RSS of a resume alone.
fn resume_only(args: &[String]) {
    let (path, cwd, home) = (
        Path::new(&args[2]),
        Path::new(&args[3]),
        Path::new(&args[4]),
    );
    let client = Arc::new(
        AnthropicClient::new(AnthropicConfig {
            base_url: "http://127.0.0.1:9".into(),
            api_key: Some("k".into()),
            ..AnthropicConfig::default()
        })
        .unwrap(),
    );
    let engine = resume(path, cwd, home, client).engine;
    assert_eq!(engine.messages().len(), RESUME_MESSAGES);
}

/// Peak RSS (MiB) of `session_bench --resume-only`, max of `BINARY_RUNS`.
fn resume_peak_rss_mib(path: &Path, cwd: &Path, home: &Path) -> f64 {
    let report = home.join("resume-rss.txt");
    let peak = (0..BINARY_RUNS)
        .map(|_| {
            let status = measured(&std::env::current_exe().unwrap(), Some(&report))
                .arg("--resume-only")
                .args([path, cwd, home])
                .status()
                .unwrap();
            assert!(status.success());
            rss_kib(&report)
        })
        .max()
        .unwrap_or(0);
    peak as f64 / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--resume-only") {
        return resume_only(&args);
    }
    let bin = measure::orbit_bin();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    let cwd = scratch.path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();

    bench_append(&rt, scratch.path());
    let path = write_resume_transcript(&rt, &home, &cwd);
    bench_resume_in_process(&path, &cwd, &home);
    if Path::new(GNU_TIME).exists() {
        println!(
            "resume alone (load + SessionSpec::build in a fresh process): peak RSS {:.1} MiB (max of {BINARY_RUNS})",
            resume_peak_rss_mib(&path, &cwd, &home)
        );
    }
    if bin.exists() && Path::new(GNU_TIME).exists() {
        bench_binary(&bin.canonicalize().unwrap(), &cwd, &home);
    } else {
        println!("binary runs skipped: need {} and {GNU_TIME}", bin.display());
    }
}
