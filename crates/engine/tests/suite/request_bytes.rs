//! Issue 11: a request copies no history. The engine keeps the budgeted
//! view it sent (`results::view`) and hands the next request the same
//! `Arc`s for the frozen messages; the client reuses the bytes it wrote for
//! them. Neither may change a byte of what is sent, over a long session
//! with budget replacements, a user message merged into the last one, a
//! compaction and resumes:
//!
//! - every body equals the one a fresh client (nothing cached) serializes
//!   from the same request (a twin client sends each request to a second
//!   fake server through a new `AnthropicClient`);
//! - the bodies of one engine running every prompt equal those of an
//!   engine resumed from the transcript before every prompt (whose kept
//!   view starts empty each time).

use std::path::Path;
use std::sync::Arc;

use futures::{StreamExt, future};
use orbit_engine::{CompactConfig, EngineConfig, QueryEngine, load_transcript};
use orbit_model::{EventStream, ModelClient, ModelRequest};
use orbit_protocol::EngineEvent;
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use orbit_tool::texts::compact::COMPACT_INSTRUCTIONS;
use orbit_tool::{ToolOutput, ToolRegistry};
use serde_json::{Value, json};

use super::results_budget::lined_output;
use super::support::{TestTool, client, config, run};

const SESSION: &str = "3d0c6b2a-5e41-4f8e-9b7a-1c2d3e4f5a60";

/// Sends each request through `cached` (the engine's client) and, first,
/// through a new client to `reference` (empty cache: everything serialized).
struct Twin {
    cached: Arc<dyn ModelClient>,
    reference: Arc<FakeAnthropic>,
}

impl ModelClient for Twin {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        let fresh = client(&self.reference).stream(request);
        let real = self.cached.stream(request);
        // Drain the reference call, then hand on the real one's events.
        fresh.filter(|_| future::ready(false)).chain(real).boxed()
    }

    fn provider(&self) -> &str {
        "anthropic"
    }
}

/// The fake model: a prompt gets two calls whose results together pass the
/// budget; their results get one more call; its result gets an answer;
/// `quiet` gets an empty message (so the next prompt is merged into it);
/// the summary request gets a summary.
fn serve(server: &FakeAnthropic) {
    let head = COMPACT_INSTRUCTIONS.lines().next().unwrap_or_default();
    server.respond_with(move |index, request| {
        let last = body::blocks(&body::last_message(request))
            .pop()
            .unwrap_or(Value::Null);
        let text = last["text"].as_str().unwrap_or_default();
        let id = last["tool_use_id"].as_str().unwrap_or_default();
        let turn = if text.starts_with(head) {
            Turn::new().text("SUMMARY: items echoed so far.")
        } else if text == "quiet" {
            Turn::new()
        } else if id.starts_with("toolu_a") {
            Turn::new().tool_use(format!("toolu_b{index}"), "Big", json!({"chars": 700}))
        } else if id.starts_with("toolu_b") {
            Turn::new().text(format!("done {index}"))
        } else {
            Turn::new()
                .tool_use(format!("toolu_a{index}"), "Big", json!({"chars": 4000}))
                .tool_use(format!("toolu_a{index}x"), "Big", json!({"chars": 3000}))
        };
        Some(Reply::turn(turn.usage(100 + index as u64, 10)))
    });
}

fn tools() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    tools.register(
        TestTool::new("Big", |input, call| async move {
            let n = input["chars"].as_u64().unwrap_or(0) as usize;
            ToolOutput::text(lined_output(&call.tool_use_id, n))
        })
        .arc(),
    );
    tools
}

fn session_config(dir: &Path) -> EngineConfig {
    EngineConfig {
        session_id: SESSION.into(),
        tool_result_budget_chars: 5_000,
        persist_session: true,
        // Only the compaction by hand below: both runs compact at the same point.
        compact: CompactConfig {
            disable_auto: true,
            ..CompactConfig::default()
        },
        ..config(dir)
    }
}

/// What one run sent: the engine's bodies and the fresh client's bodies.
struct Sent {
    bodies: Vec<String>,
    fresh: Vec<String>,
    compactions: usize,
}

const PROMPTS: [&str; 7] = ["one", "two", "three", "quiet", "four", "five", "six"];
/// The compaction by hand comes after this prompt.
const COMPACT_AFTER: &str = "four";

/// Runs [`PROMPTS`] in `dir`: in one engine, or (`resume_each`) in an
/// engine resumed from the transcript before every prompt but the first.
async fn session(dir: &Path, resume_each: bool) -> Sent {
    let server = FakeAnthropic::start(vec![]);
    serve(&server);
    let reference = Arc::new(FakeAnthropic::start(vec![]));
    reference.respond_with(|_, _| Some(Reply::text("reference")));
    let twin = || -> Arc<dyn ModelClient> {
        Arc::new(Twin {
            cached: client(&server),
            reference: Arc::clone(&reference),
        })
    };
    let path =
        orbit_session::transcript_path(&dir.join(".orbit"), &dir.canonicalize().unwrap(), SESSION);
    let mut engine = QueryEngine::new(session_config(dir), twin(), tools());
    let mut compactions = 0;
    for (i, prompt) in PROMPTS.into_iter().enumerate() {
        if resume_each && i > 0 {
            drop(engine);
            let loaded = load_transcript(&path).unwrap();
            engine = QueryEngine::resume(session_config(dir), twin(), tools(), loaded);
        }
        let events = run(&mut engine, prompt).await;
        compactions += events
            .iter()
            .filter(|e| matches!(e, EngineEvent::CompactBoundary { .. }))
            .count();
        if prompt == COMPACT_AFTER {
            engine.compact(None).await.unwrap();
            compactions += 1;
        }
    }
    // The temp dir's path and name (in the project slug) differ by run.
    let name = dir.file_name().unwrap().to_string_lossy();
    let name = name.trim_start_matches('.').to_string();
    let dir = dir.display().to_string();
    let normalized = |server: &FakeAnthropic| -> Vec<String> {
        server
            .requests()
            .into_iter()
            .map(|r| r.raw_body.replace(&dir, "<DIR>").replace(&name, "<NAME>"))
            .collect()
    };
    Sent {
        bodies: normalized(&server),
        fresh: normalized(&reference),
        compactions,
    }
}

#[tokio::test]
async fn every_request_of_a_long_session_is_the_bytes_a_fresh_serialization_sends() {
    let (one_dir, each_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = session(one_dir.path(), false).await;
    let each = session(each_dir.path(), true).await;

    // Prompts × 3 calls (quiet: 1) + the summary request.
    assert_eq!(one.bodies.len(), 6 * 3 + 1 + 1);
    assert_eq!(one.compactions, 1);
    let replaced = one
        .bodies
        .iter()
        .filter(|b| b.contains("<persisted-output>"))
        .count();
    assert!(replaced >= 10, "budget replacements in {replaced} bodies");
    // The prompt after `quiet` was merged into its user message.
    assert!(
        one.bodies
            .iter()
            .any(|b| b.contains(r#"{"type":"text","text":"quiet"},{"type":"text","text":"four""#)),
        "no merged prompt"
    );
    for (name, sent) in [("one engine", &one), ("resumed each prompt", &each)] {
        assert_eq!(sent.bodies.len(), sent.fresh.len(), "{name}");
        for (i, (cached, fresh)) in sent.bodies.iter().zip(&sent.fresh).enumerate() {
            assert!(
                cached == fresh,
                "{name}: request {i} differs from a fresh serialization"
            );
        }
    }
    assert_eq!(one.bodies.len(), each.bodies.len());
    for (i, (a, b)) in one.bodies.iter().zip(&each.bodies).enumerate() {
        assert!(
            a == b,
            "request {i}: one engine and resumed engines differ\n{a}\n{b}"
        );
    }
}
