//! Issue 11: the engine records its session in a transcript and resumes
//! from it — byte-identical requests (frozen budget decisions included),
//! crash mid-tool, forks, totals across resumes — through the real client
//! against the fake server and real files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use orbit_engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
use orbit_engine::{EngineConfig, QueryEngine, load_transcript};
use orbit_protocol::{ContentBlock, ResultSubtype, Role};
use orbit_session::Repair;
use orbit_test_support::body::without_cache_control;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use orbit_tool::{Tool, ToolOutput, ToolRegistry};
use serde_json::json;

use super::results_budget::lined_output;
use super::support::{Log, TestTool, assert_paired, client, config, result, run, sleeper};

const SESSION: &str = "6f1c2a9e-0b7d-4e53-9a41-2d8c5e7f1a10";
const FORK: &str = "0e4b8c1d-7a2f-4b96-8c35-5f9d1e2a3b47";

/// A tool whose output is `input.chars` chars of lined text.
fn big() -> Arc<dyn Tool> {
    TestTool::new("Big", |input, call| async move {
        let n = input["chars"].as_u64().unwrap_or(0) as usize;
        ToolOutput::text(lined_output(&call.tool_use_id, n))
    })
    .arc()
}

fn registry(tools: &[Arc<dyn Tool>]) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in tools {
        registry.register(Arc::clone(t));
    }
    registry
}

/// A persisted session config: a small result budget, so one of two
/// results of 4,000 and 3,000 chars is replaced and the decision must
/// survive a resume.
fn persisted(dir: &Path, session_id: &str) -> EngineConfig {
    EngineConfig {
        session_id: session_id.into(),
        tool_result_budget_chars: 5_000,
        persist_session: true,
        ..config(dir)
    }
}

/// [`persisted`] without the transcript.
fn in_memory(dir: &Path) -> EngineConfig {
    EngineConfig {
        persist_session: false,
        ..persisted(dir, SESSION)
    }
}

fn transcript(dir: &Path, session_id: &str) -> PathBuf {
    orbit_session::transcript_path(
        &dir.join(".orbit"),
        &dir.canonicalize().unwrap(),
        session_id,
    )
}

/// Prompt 1: two Big calls (over the budget together), then an answer.
fn first_prompt_script() -> Vec<Reply> {
    vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_a", "Big", json!({"chars": 4000}))
                .tool_use("toolu_b", "Big", json!({"chars": 3000}))
                .usage(100, 10),
        ),
        Reply::turn(Turn::new().text("first done").usage(200, 20)),
    ]
}

/// A fake server with `replies` and a new engine talking to it.
fn new_engine(replies: Vec<Reply>, cfg: EngineConfig) -> (FakeAnthropic, QueryEngine) {
    let server = FakeAnthropic::start(replies);
    let engine = QueryEngine::new(cfg, client(&server), registry(&[big()]));
    (server, engine)
}

/// Runs the first prompt in a persisted session that then ends (its
/// transcript stays for a resume).
async fn first_session(dir: &Path) {
    let (_server, mut engine) = new_engine(first_prompt_script(), persisted(dir, SESSION));
    run(&mut engine, "first").await;
}

/// A fake server with `replies` and an engine resumed from the transcript at `path`.
fn resumed(replies: Vec<Reply>, cfg: EngineConfig, path: &Path) -> (FakeAnthropic, QueryEngine) {
    let server = FakeAnthropic::start(replies);
    let loaded = load_transcript(path).unwrap();
    let engine = QueryEngine::resume(cfg, client(&server), registry(&[big()]), loaded);
    (server, engine)
}

#[tokio::test]
async fn the_request_after_a_resume_is_byte_identical_to_the_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let second = || Reply::turn(Turn::new().text("second done").usage(300, 30));

    // Uninterrupted: both prompts in one engine, nothing persisted.
    let mut script = first_prompt_script();
    script.push(second());
    let (server_a, mut a) = new_engine(script, in_memory(dir.path()));
    run(&mut a, "first").await;
    run(&mut a, "second").await;
    let uninterrupted = server_a.requests()[2].raw_body.clone();
    assert!(
        uninterrupted.contains("<persisted-output>"),
        "the budget replaced a result: {uninterrupted}"
    );

    // The same first prompt, persisted; the process ends; a resume asks the second.
    let (_server_b, mut b) = new_engine(first_prompt_script(), persisted(dir.path(), SESSION));
    let first = result(&run(&mut b, "first").await).clone();
    let cost_before = b.total_cost_usd();
    drop(b);
    let (server_c, mut c) = resumed(
        vec![second()],
        persisted(dir.path(), SESSION),
        &transcript(dir.path(), SESSION),
    );
    assert_eq!(c.session().turns(), 2);
    assert_eq!(c.total_cost_usd(), cost_before);
    let events = run(&mut c, "second").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(server_c.requests()[0].raw_body, uninterrupted);

    // Totals accumulate across the resume; the turn's own are its own.
    assert_eq!(c.session().turns(), 3);
    assert_eq!(c.session().usage().input_tokens, 600);
    assert_eq!(result(&events).usage.input_tokens, 300);
    assert!(c.total_cost_usd() > first.total_cost_usd);
    assert_eq!(c.messages(), a.messages());
}

/// Polls `path` until it contains `needle` (the writer thread is async).
fn wait_for_text(path: &Path, needle: &str) -> String {
    for _ in 0..400 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{} never contained {needle}", path.display());
}

/// Submits "run it" and drives the turn until `toolu_slow` started, then
/// drops the turn's stream.
async fn drive_until_started(engine: &mut QueryEngine, log: &Log) {
    let mut events = engine.submit_message("run it".into());
    for _ in 0..1000 {
        if log.entries().contains(&"start:toolu_slow".to_string()) {
            return;
        }
        let _ = tokio::time::timeout(Duration::from_millis(10), events.next()).await;
    }
    panic!("the tool never started");
}

#[tokio::test]
async fn a_tool_use_cut_off_by_a_crash_is_answered_as_interrupted_and_the_repair_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::default();
    let slow = sleeper("Slow", &log).arc();
    let server = FakeAnthropic::start(vec![Reply::tool_use(
        "toolu_slow",
        "Slow",
        json!({"ms": 60_000}),
    )]);
    let mut engine = QueryEngine::new(
        persisted(dir.path(), SESSION),
        client(&server),
        registry(&[Arc::clone(&slow)]),
    );
    // Drive the turn until the tool runs, then stop as a crash would.
    drive_until_started(&mut engine, &log).await;
    // Forgetting the engine keeps any later record from being written.
    std::mem::forget(engine);
    let path = transcript(dir.path(), SESSION);
    wait_for_text(&path, "toolu_slow");

    let loaded = load_transcript(&path).unwrap();
    assert_eq!(
        loaded.repairs,
        vec![Repair::InterruptedToolUses {
            tool_use_ids: vec!["toolu_slow".into()]
        }]
    );
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut resumed = QueryEngine::resume(
        persisted(dir.path(), SESSION),
        client(&server),
        registry(&[slow]),
        loaded,
    );
    run(&mut resumed, "go on").await;
    assert_paired(resumed.messages());
    let sent = &without_cache_control(&server.bodies()[0])["messages"];
    assert_eq!(sent[1]["content"][0]["type"], "tool_use");
    assert_eq!(
        sent[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_slow",
             "content": INTERRUPT_MESSAGE_FOR_TOOL_USE, "is_error": true},
            {"type": "text", "text": "go on"}
        ])
    );
    // The synthetic result is in the transcript now: nothing left to repair.
    drop(resumed);
    let again = load_transcript(&path).unwrap();
    assert_eq!(again.repairs, vec![]);
    assert_eq!(again.messages.len(), 4);
}

#[tokio::test]
async fn a_fork_gets_its_own_transcript_and_leaves_the_original_untouched() {
    let dir = tempfile::tempdir().unwrap();
    first_session(dir.path()).await;
    let old_path = transcript(dir.path(), SESSION);
    let old_bytes = std::fs::read(&old_path).unwrap();

    let (_server, mut fork) = resumed(
        vec![Reply::text("forked")],
        persisted(dir.path(), FORK),
        &old_path,
    );
    run(&mut fork, "branch off").await;
    assert_eq!(fork.session_id(), FORK);
    drop(fork);

    assert_eq!(std::fs::read(&old_path).unwrap(), old_bytes);
    let forked = load_transcript(&transcript(dir.path(), FORK)).unwrap();
    assert_eq!(forked.header.forked_from.as_deref(), Some(SESSION));
    assert_eq!(forked.turns, 3);
    let original = load_transcript(&old_path).unwrap();
    assert_eq!(forked.messages[..4], original.messages[..]);
    assert_eq!(forked.replacements, original.replacements);
    assert_eq!(forked.messages.last().unwrap().text(), "forked");
}

#[tokio::test]
async fn max_turns_counts_the_calls_of_the_whole_session() {
    let dir = tempfile::tempdir().unwrap();
    first_session(dir.path()).await;

    let replies = vec![
        Reply::tool_use("toolu_c", "Big", json!({"chars": 10})),
        Reply::text("never sent"),
    ];
    let cfg = EngineConfig {
        max_turns: Some(3),
        ..persisted(dir.path(), SESSION)
    };
    let (server, mut engine) = resumed(replies, cfg, &transcript(dir.path(), SESSION));
    let events = run(&mut engine, "more").await;
    let end = result(&events);
    assert_eq!(end.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(end.errors, vec!["Reached maximum number of turns (3)"]);
    assert_eq!(end.num_turns, 1, "this prompt's calls");
    assert_eq!(server.request_count(), 1);
    assert_paired(engine.messages());
}

#[tokio::test]
async fn a_turn_dropped_mid_tool_is_dropped_from_the_transcript_too() {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::default();
    let slow = sleeper("Slow", &log).arc();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_slow", "Slow", json!({"ms": 60_000})),
        Reply::text("fine"),
    ]);
    let mut engine = QueryEngine::new(
        persisted(dir.path(), SESSION),
        client(&server),
        registry(&[slow]),
    );
    drive_until_started(&mut engine, &log).await;
    // The embedder dropped the turn; the history has no half pair, and the
    // next prompt goes on from there.
    run(&mut engine, "never mind").await;
    let live = engine.messages().to_vec();
    drop(engine);
    let loaded = load_transcript(&transcript(dir.path(), SESSION)).unwrap();
    assert_eq!(loaded.repairs, vec![]);
    assert_eq!(loaded.messages, live);
    assert!(live.iter().all(|m| m.tool_uses().next().is_none()));
    assert_eq!(live[0].role, Role::User);
    assert_eq!(
        live[0].content,
        vec![
            ContentBlock::text("run it"),
            ContentBlock::text("never mind")
        ]
    );
}

#[tokio::test]
async fn an_unwritable_transcript_does_not_stop_the_session_and_no_persistence_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // The data dir is a file: the transcript cannot be created.
    std::fs::write(dir.path().join(".orbit"), "not a directory").unwrap();
    let (_server, mut engine) = new_engine(
        vec![Reply::text("still here")],
        persisted(dir.path(), SESSION),
    );
    let events = run(&mut engine, "hi").await;
    assert_eq!(result(&events).result, "still here");

    let other = tempfile::tempdir().unwrap();
    let (_server, mut engine) =
        new_engine(vec![Reply::text("memory only")], in_memory(other.path()));
    run(&mut engine, "hi").await;
    assert!(!other.path().join(".orbit").exists());
}

#[tokio::test]
async fn a_resume_after_a_compaction_starts_from_the_boundary_and_sends_the_same_request() {
    let dir = tempfile::tempdir().unwrap();
    let script = || {
        let mut s = first_prompt_script();
        s.push(Reply::text("SUMMARY: two big outputs read."));
        s
    };
    let next = || Reply::turn(Turn::new().text("after the summary").usage(50, 5));

    // Uninterrupted: prompt, compaction, next prompt, in one engine.
    let mut all = script();
    all.push(next());
    let (server_a, mut a) = new_engine(all, in_memory(dir.path()));
    run(&mut a, "first").await;
    let boundary = a.compact(None).await.expect("compacted");
    run(&mut a, "next").await;
    let uninterrupted = server_a.requests()[3].raw_body.clone();

    // Persisted: the same until the compaction; the process ends; a resume
    // starts from the boundary's messages and asks the next prompt.
    let (_server_b, mut b) = new_engine(script(), persisted(dir.path(), SESSION));
    run(&mut b, "first").await;
    b.compact(None).await.expect("compacted");
    drop(b);
    let path = transcript(dir.path(), SESSION);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"compaction\"")
    );
    let (server_c, mut c) = resumed(vec![next()], persisted(dir.path(), SESSION), &path);
    assert_eq!(c.messages(), boundary.messages.as_slice());
    run(&mut c, "next").await;
    assert_eq!(server_c.requests()[0].raw_body, uninterrupted);
    assert_paired(c.messages());
}
