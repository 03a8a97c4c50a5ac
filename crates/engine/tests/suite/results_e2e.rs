//! The result pipeline end to end: the real engine, the real Bash tool and
//! the real `AnthropicClient` against the fake server; assertions are on the
//! captured request bodies, i.e. on exactly what the model receives.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use orbit_engine::ToolResultStorage;
use orbit_protocol::ResultSubtype;
use orbit_test_support::{CapturedRequest, FakeAnthropic, Reply, Turn, body};
use orbit_tools::ToolOutput;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::results_budget::lined_output;
use super::results_persist::{seq_40000_message, seq_output};
use super::support::*;

const WAIT: Duration = Duration::from_secs(30);

/// A session with only the real Bash tool, run to success in a temp dir.
struct BashSession {
    /// The requests the model received.
    requests: Vec<CapturedRequest>,
    /// Where the session's large results are saved.
    storage: ToolResultStorage,
    _dir: TempDir,
}

/// Runs `prompt` with the Bash tool against `server` to a successful
/// result, then waits for `requests` model requests.
async fn bash_session(server: &FakeAnthropic, prompt: &str, requests: usize) -> BashSession {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let storage = ToolResultStorage::new(
        &cfg.data_dir,
        &dir.path().canonicalize().unwrap(),
        &cfg.session_id,
    );
    let mut engine = engine(server, cfg, vec![builtin("Bash")]);
    let events = run(&mut engine, prompt).await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    BashSession {
        requests: server.wait_for_requests_async(requests, WAIT).await,
        storage,
        _dir: dir,
    }
}

fn bash_seq_turn(id: &str) -> Reply {
    Reply::tool_use(id, "Bash", json!({"command": "seq 1 40000"}))
}

#[tokio::test]
async fn seq_1_40000_reaches_the_model_as_the_exact_persisted_output() {
    let server = FakeAnthropic::start(vec![bash_seq_turn("toolu_seq"), Reply::text("done")]);
    let session = bash_session(&server, "count", 2).await;
    let sent = body::tool_results(&session.requests[1].body);
    assert_eq!(sent.len(), 1);
    let path = session.storage.path_for("toolu_seq");
    assert_eq!(sent[0].tool_use_id, "toolu_seq");
    assert_eq!(sent[0].text, seq_40000_message(&path));
    assert!(!sent[0].is_error);
    // The file holds seq's raw output byte-exact, final newline included
    // (the inline text is trimmed, the saved file is not).
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(saved.len(), 228_894);
    assert_eq!(saved, seq_output(40_000).as_bytes());
}

#[tokio::test]
async fn an_unwritable_data_dir_sends_the_original_result_and_succeeds() {
    let server = FakeAnthropic::start(vec![bash_seq_turn("toolu_ro"), Reply::text("done")]);
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"file").unwrap();
    let mut cfg = config(dir.path());
    cfg.data_dir = blocker.join("orbit-home");
    let mut engine = engine(&server, cfg, vec![builtin("Bash")]);
    let events = run(&mut engine, "count").await;
    assert_succeeded(&events, "done");

    let requests = server.wait_for_requests_async(2, WAIT).await;
    let sent = body::tool_results(&requests[1].body);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].text, seq_output(40_000).trim_end_matches('\n'));
    assert!(!sent[0].is_error);
}

/// A tool answering `input.n` chars (below its 100,000-char R1 threshold, so
/// only the R2 budget can shrink it).
fn big_tool() -> TestTool {
    TestTool::new(
        "Big",
        |input: Value, call: orbit_tools::CallContext| async move {
            let n = input["n"].as_u64().unwrap_or(0) as usize;
            ToolOutput::text(lined_output(&call.tool_use_id, n))
        },
    )
}

fn messages_json(body: &Value) -> Vec<String> {
    body::messages(body)
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect()
}

fn messages_json_without_cache_control(body: &Value) -> Vec<String> {
    body::messages(body)
        .iter()
        .map(|m| serde_json::to_string(&body::without_cache_control(m)).unwrap())
        .collect()
}

/// Prompt-cache stability over a scripted 8-request session with a small
/// budget: every request's messages are a byte-identical prefix of the next.
#[tokio::test]
async fn earlier_messages_never_change_between_requests() {
    let big = |turn: Turn, id: &str, n: u64| turn.tool_use(id, "Big", json!({"n": n}));
    let turns = vec![
        Reply::turn(big(Turn::new(), "t1a", 20_000)),
        Reply::turn(big(big(Turn::new(), "t2a", 45_000), "t2b", 30_000)),
        Reply::turn(big(Turn::new(), "t3a", 10_000).tool_use(
            "t3b",
            "Bash",
            json!({"command": "seq 1 40000"}),
        )),
        Reply::turn(big(Turn::new(), "t4a", 60_000)),
        Reply::turn(big(
            big(big(Turn::new(), "t5a", 10_000), "t5b", 10_000),
            "t5c",
            35_000,
        )),
        Reply::turn(big(Turn::new(), "t6a", 0)),
        Reply::turn(big(big(Turn::new(), "t7a", 15_000), "t7b", 15_000)),
        Reply::text("all done"),
    ];
    let server = FakeAnthropic::start(turns);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.tool_result_budget_chars = 50_000;
    let tools = vec![big_tool().arc(), builtin("Bash")];
    let mut engine = engine(&server, cfg, tools);
    let events = run(&mut engine, "go").await;
    assert_succeeded(&events, "all done");

    let requests = server.wait_for_requests_async(8, WAIT).await;
    assert_eq!(requests.len(), 8);
    for pair in requests.windows(2) {
        let (before, after) = (&pair[0].body, &pair[1].body);
        let (raw_before, raw_after) = (messages_json(before), messages_json(after));
        assert!(raw_after.len() > raw_before.len());
        // Only the cache breakpoint moves: every message but the newest of
        // the earlier request is byte-identical as sent …
        let k = raw_before.len() - 1;
        assert_eq!(raw_after[..k], raw_before[..k]);
        // … and the newest one is, apart from its cache_control marker.
        let (clean_before, clean_after) = (
            messages_json_without_cache_control(before),
            messages_json_without_cache_control(after),
        );
        assert_eq!(clean_after[..clean_before.len()], clean_before[..]);
    }

    // The budget triggered where a message's results exceeded 50,000 chars
    // (t3b was already persisted by R1), and every message fits.
    let replaced: BTreeSet<&str> = engine
        .replacement_state()
        .replacements
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(replaced, BTreeSet::from(["t2a", "t4a", "t5c"]));
    let last = &requests[7].body;
    for m in body::messages(last) {
        let total: usize = body::blocks(&m)
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| b["content"].as_str().map_or(0, |t| t.chars().count()))
            .sum();
        assert!(total <= 50_000, "{total}");
    }
    // Every tool_result of the whole history (body::tool_results only looks
    // at the newest message); all contents are strings here.
    let texts: Vec<(String, String)> = body::messages(last)
        .iter()
        .flat_map(body::blocks)
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let id = b["tool_use_id"].as_str().unwrap().to_string();
            (id, b["content"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(texts.len(), 12);
    let text_of = |id: &str| {
        texts
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, t)| t.clone())
            .unwrap()
    };
    assert_eq!(text_of("t2b"), lined_output("t2b", 30_000));
    assert!(text_of("t2a").starts_with("<persisted-output>\nOutput too large (43.9KB)."));
    assert!(text_of("t3b").starts_with("<persisted-output>\nOutput too large (223.5KB)."));
    assert_eq!(text_of("t6a"), "(Big completed with no output)");
    // A replaced result's file holds the original bytes.
    let saved_path = Path::new(
        text_of("t4a")
            .lines()
            .nth(1)
            .unwrap()
            .rsplit("Full output saved to: ")
            .next()
            .unwrap(),
    )
    .to_path_buf();
    assert_eq!(
        std::fs::read_to_string(saved_path).unwrap(),
        lined_output("t4a", 60_000)
    );
}

/// A Bash command printing `n` copies of `c`, no newline.
fn bash_chars(id: &str, n: usize, c: char, exit: Option<i32>) -> Reply {
    let mut command = format!("head -c {n} /dev/zero | tr '\\0' {c}");
    if let Some(code) = exit {
        command.push_str(&format!("; exit {code}"));
    }
    Reply::tool_use(id, "Bash", json!({"command": command}))
}

/// R1's boundary through the engine with the real Bash tool: 29,999 and
/// 30,000 chars reach the model inline, 30,001 as `<persisted-output>`.
#[tokio::test]
async fn bash_30_000_chars_stay_inline_and_30_001_are_persisted() {
    let server = FakeAnthropic::start(vec![
        bash_chars("toolu_29999", 29_999, 'x', None),
        bash_chars("toolu_30000", 30_000, 'x', None),
        bash_chars("toolu_30001", 30_001, 'x', None),
        Reply::text("done"),
    ]);
    let session = bash_session(&server, "fill", 4).await;
    let (requests, storage) = (&session.requests, &session.storage);
    let sent = |n: usize| {
        let mut r = body::tool_results(&requests[n].body);
        assert_eq!(r.len(), 1);
        r.remove(0)
    };
    for (n, id, len) in [(1, "toolu_29999", 29_999), (2, "toolu_30000", 30_000)] {
        let r = sent(n);
        assert_eq!((r.tool_use_id.as_str(), r.is_error), (id, false));
        assert_eq!(r.text, "x".repeat(len));
        assert!(!storage.path_for(id).exists(), "{id} must not be saved");
    }
    let r = sent(3);
    let path = storage.path_for("toolu_30001");
    assert_eq!(
        r.text,
        format!(
            "<persisted-output>\nOutput too large (29.3KB). Full output saved to: {}\n\n\
Preview (first 2KB):\n{}\n...\n</persisted-output>",
            path.display(),
            "x".repeat(2_000)
        )
    );
    assert!(!r.is_error);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x".repeat(30_001));
}

/// R4 through the engine with the real Bash tool: an error of exactly
/// 10,000 chars (`Exit code 1` line included) is sent whole, one of 10,001
/// keeps its first and last 5,000 chars.
#[tokio::test]
async fn bash_errors_are_cut_past_10_000_chars() {
    // "Exit code 1\n" is 12 chars.
    let server = FakeAnthropic::start(vec![
        bash_chars("toolu_10000", 9_988, 'y', Some(1)),
        bash_chars("toolu_10001", 9_989, 'y', Some(1)),
        Reply::text("done"),
    ]);
    let session = bash_session(&server, "fail", 3).await;
    let requests = &session.requests;
    let whole = body::tool_results(&requests[1].body).remove(0);
    assert_eq!(whole.text, format!("Exit code 1\n{}", "y".repeat(9_988)));
    assert!(whole.is_error);
    let cut = body::tool_results(&requests[2].body).remove(0);
    assert_eq!(
        cut.text,
        format!(
            "Exit code 1\n{}\n\n... [1 characters truncated] ...\n\n{}",
            "y".repeat(4_988),
            "y".repeat(5_000)
        )
    );
    assert!(cut.is_error);
}
