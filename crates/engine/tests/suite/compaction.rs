//! Compaction through the real client against the fake server, with a small
//! window: a 200-turn session keeps running, every request (the summary
//! request included) fits the window, the fallback path keeps a valid
//! history when no summary comes back, and `QueryEngine::compact` applies
//! the caller's instructions.
//!
//! The fake server answers from the request itself (`respond_with`): a
//! summary request (its last block is the compaction instructions) gets a
//! summary; a request whose last message holds tool results gets a final
//! answer; any other request gets a tool call returning ~1,500 bytes. Each
//! reply reports input tokens as a real server would (body bytes / 4).

use std::sync::Arc;

use orbit_engine::{CompactConfig, CompactError, QueryEngine};
use orbit_protocol::{CompactTrigger, ContentBlock, EngineEvent, Message, ResultSubtype, Role};
use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use orbit_tool::texts::compact::{CLEARED_TOOL_RESULT, COMPACT_INSTRUCTIONS};
use orbit_tool::{Tool, ToolOutput};
use serde_json::{Value, json};

use super::support::*;

/// The window of these sessions, in tokens.
const WINDOW_TOKENS: u64 = 4_000;
/// Size of each tool result, in bytes.
const RESULT_BYTES: usize = 1_500;

/// The first line of the summary instructions.
fn instructions_head() -> &'static str {
    COMPACT_INSTRUCTIONS.lines().next().unwrap_or_default()
}

fn last_block(request: &Value) -> Value {
    body::blocks(&body::last_message(request))
        .pop()
        .unwrap_or(Value::Null)
}

fn is_summary_request(body: &Value) -> bool {
    last_block(body)["text"]
        .as_str()
        .is_some_and(|t| t.starts_with(instructions_head()))
}

/// Tokens the fake server reports for a request: body bytes / 4.
fn reported_tokens(body: &Value) -> u64 {
    (body.to_string().len() / 4) as u64
}

/// Answers as described in the module docs; `summary` is the reply to a
/// summary request.
fn serve_session(server: &FakeAnthropic, summary: fn(usize) -> Reply) {
    server.respond_with(move |index, body| {
        let input = reported_tokens(body);
        Some(if is_summary_request(body) {
            summary(index)
        } else if last_block(body)["type"] == "tool_result" {
            Reply::turn(Turn::new().text(format!("done {index}")).usage(input, 5))
        } else {
            Reply::turn(
                Turn::new()
                    .tool_use(format!("toolu_{index}"), "Fetch", json!({"n": index}))
                    .usage(input, 20),
            )
        })
    });
}

fn fetch_tool() -> Arc<dyn Tool> {
    TestTool::new("Fetch", |input, _call| async move {
        let n = input["n"].as_u64().unwrap_or_default();
        ToolOutput::text(format!("result {n}: {}", "r".repeat(RESULT_BYTES)))
    })
    .arc()
}

fn small_window_engine(server: &FakeAnthropic, dir: &std::path::Path) -> QueryEngine {
    let mut cfg = config(dir);
    cfg.compact = CompactConfig {
        context_window: Some(WINDOW_TOKENS),
        ..CompactConfig::default()
    };
    engine(server, cfg, vec![fetch_tool()])
}

/// Roles alternate from a user message and every tool_use is answered.
fn assert_valid(messages: &[Message]) {
    assert_eq!(messages.first().map(|m| m.role), Some(Role::User));
    for pair in messages.windows(2) {
        assert_ne!(pair[0].role, pair[1].role, "{messages:?}");
    }
    assert_paired(messages);
}

/// Every request fits the window with its `max_tokens`, as the server counts.
fn assert_requests_fit(server: &FakeAnthropic) -> (usize, usize) {
    let mut summaries = 0;
    let bodies = server.bodies();
    for (i, body) in bodies.iter().enumerate() {
        let max_tokens = body["max_tokens"].as_u64().unwrap_or_default();
        let total = reported_tokens(body) + max_tokens;
        assert!(
            total <= WINDOW_TOKENS,
            "request {i} (summary: {}) needs {total} tokens of a {WINDOW_TOKENS}-token window: {}",
            is_summary_request(body),
            body["messages"]
        );
        summaries += usize::from(is_summary_request(body));
    }
    (bodies.len(), summaries)
}

fn boundaries(events: &[EngineEvent]) -> Vec<CompactTrigger> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::CompactBoundary { trigger, .. } => Some(*trigger),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_200_turn_session_keeps_running_and_every_request_fits() {
    let server = FakeAnthropic::start(vec![]);
    serve_session(&server, |index| {
        Reply::turn(Turn::new().text(format!("SUMMARY {index}: fetched results so far.")))
    });
    let dir = tempfile::tempdir().unwrap();
    let mut engine = small_window_engine(&server, dir.path());
    let mut triggers = Vec::new();
    for turn in 0..200 {
        let events = run(&mut engine, &format!("fetch item {turn}")).await;
        let r = result(&events);
        assert_eq!(
            r.subtype,
            ResultSubtype::Success,
            "turn {turn}: {:?}",
            r.errors
        );
        assert!(r.result.starts_with("done "), "turn {turn}: {}", r.result);
        triggers.extend(boundaries(&events));
        assert_valid(engine.messages());
    }
    let (requests, summaries) = assert_requests_fit(&server);
    assert!(triggers.len() >= 20, "{} compactions", triggers.len());
    assert!(triggers.iter().all(|t| *t == CompactTrigger::Auto));
    assert_eq!(summaries, triggers.len());
    // A compaction in the middle of a prompt's work makes the model go on
    // from the summary: at least one more call for that prompt.
    assert!(requests >= 400 + summaries, "{requests} requests");
    // The history stays bounded: the summary and the turns since.
    assert!(engine.messages().len() < 30, "{}", engine.messages().len());
}

#[tokio::test]
async fn when_no_summary_comes_back_the_oldest_results_and_turns_go() {
    let server = FakeAnthropic::start(vec![]);
    // A 400 is not retried: every summary request fails at once.
    serve_session(&server, |_| {
        Reply::api_error(400, "invalid_request_error", "summaries are broken")
    });
    let dir = tempfile::tempdir().unwrap();
    let mut engine = small_window_engine(&server, dir.path());
    let mut triggers = Vec::new();
    let mut cleared_seen = false;
    for turn in 0..40 {
        let events = run(&mut engine, &format!("fetch item {turn}")).await;
        assert_eq!(
            result(&events).subtype,
            ResultSubtype::Success,
            "turn {turn}"
        );
        triggers.extend(boundaries(&events));
        assert_valid(engine.messages());
        cleared_seen |= engine
            .messages()
            .iter()
            .flat_map(Message::tool_results)
            .any(|r| r.content.as_text().ends_with(CLEARED_TOOL_RESULT));
    }
    assert_requests_fit(&server);
    assert!(!triggers.is_empty());
    assert!(triggers.iter().all(|t| *t == CompactTrigger::Fallback));
    assert!(cleared_seen, "old results were cleared");
    // The first prompt (the task) is kept through every fallback.
    let first = &engine.messages()[0].content;
    assert_eq!(first[0], ContentBlock::text("fetch item 0"));
    // One note says turns were dropped, however many fallbacks ran.
    let notes = first
        .iter()
        .filter(|b| matches!(b, ContentBlock::Text { text, .. } if text.contains("could not be summarized")))
        .count();
    assert_eq!(notes, 1);
}

#[tokio::test]
async fn compact_by_hand_with_instructions() {
    let server = FakeAnthropic::start(vec![
        Reply::text("first answer"),
        Reply::text("SUMMARY: one question answered."),
        Reply::text("second answer"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(&server, config(dir.path()), vec![]);
    run(&mut engine, "first question").await;
    let boundary = engine
        .compact(Some("Keep the question.".into()))
        .await
        .expect("compacted");
    assert_eq!(boundary.trigger, CompactTrigger::Manual);
    assert_eq!(
        boundary.summary.as_deref(),
        Some("SUMMARY: one question answered.")
    );
    assert_eq!(engine.messages(), boundary.messages.as_slice());
    assert_eq!(engine.messages().len(), 1);
    let bodies = server.bodies();
    let asked = last_block(&bodies[1])["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(asked.starts_with(instructions_head()), "{asked}");
    assert!(
        asked.ends_with("Additional instructions:\nKeep the question."),
        "{asked}"
    );
    // The next prompt joins the summary message; the session goes on.
    let events = run(&mut engine, "second question").await;
    assert_eq!(result(&events).result, "second answer");
    let sent = &server.bodies()[2]["messages"];
    assert_eq!(sent.as_array().map(Vec::len), Some(1));
    let texts: Vec<&str> = sent[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert!(texts[0].contains("<summary>\nSUMMARY: one question answered.\n</summary>"));
    assert_eq!(texts[1], "second question");
    // Nothing to compact in an empty session.
    let mut empty = super::support::engine(&server, config(dir.path()), vec![]);
    assert_eq!(empty.compact(None).await, Err(CompactError::Empty));
}

/// The `n` of the last message's last tool result (`result {n}: …`).
fn last_result_n(body: &Value) -> Option<u64> {
    let block = last_block(body);
    if block["type"] != "tool_result" {
        return None;
    }
    let text = block["content"]
        .as_str()
        .map(str::to_string)
        .or_else(|| block["content"][0]["text"].as_str().map(str::to_string))?;
    text.strip_prefix("result ")?
        .split(':')
        .next()?
        .parse()
        .ok()
}

/// Each prompt needs three fetches in a row: the model calls `Fetch n+1`
/// after the result of `Fetch n`, and answers after the third. A
/// compaction in the middle of that chain must keep the last call and its
/// result verbatim after the summary, or the model starts over at 1.
#[tokio::test]
async fn a_compaction_mid_work_keeps_the_last_call_and_its_result() {
    const FETCHES_PER_PROMPT: u64 = 3;
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|index, body| {
        let input = reported_tokens(body);
        Some(if is_summary_request(body) {
            // A summary that forgets the chain, as a small model's does.
            Reply::turn(Turn::new().text("SUMMARY: fetching things."))
        } else {
            match last_result_n(body) {
                Some(n) if n >= FETCHES_PER_PROMPT => {
                    Reply::turn(Turn::new().text(format!("done {index}")).usage(input, 5))
                }
                last => Reply::turn(
                    Turn::new()
                        .tool_use(
                            format!("toolu_{index}"),
                            "Fetch",
                            json!({"n": last.unwrap_or(0) + 1}),
                        )
                        .usage(input, 20),
                ),
            }
        })
    });
    let dir = tempfile::tempdir().unwrap();
    let mut engine = small_window_engine(&server, dir.path());
    for prompt in 0..12 {
        let events = run(&mut engine, &format!("fetch batch {prompt}")).await;
        assert_eq!(result(&events).subtype, ResultSubtype::Success);
        // Exactly Fetch 1, 2, 3: never started over.
        let fetched: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                EngineEvent::AssistantMessage { message, .. } => Some(message),
                _ => None,
            })
            .flat_map(|m| {
                m.tool_uses()
                    .map(|t| t.input["n"].as_u64().unwrap_or(0))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(fetched, [1, 2, 3], "prompt {prompt}");
        assert_valid(engine.messages());
    }
    assert_requests_fit(&server);
    // The requests right after a summary that was made in the middle of
    // the work: the summary and the run's prompt, then the last call and
    // its whole result. The summary request quotes the same prompt.
    let bodies = server.bodies();
    let mut mid_work = 0;
    for pair in bodies.windows(2) {
        if !is_summary_request(&pair[0]) || last_result_n(&pair[1]).is_none() {
            continue;
        }
        let sent = pair[1]["messages"].as_array().cloned().unwrap_or_default();
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert!(
            body::blocks(&sent[0])[0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("<summary>")
        );
        let prompt = body::blocks(&sent[0])[1]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(prompt.starts_with("fetch batch "), "{sent:?}");
        let instructions = last_block(&pair[0])["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            instructions.contains(&format!("<request>\n{prompt}\n</request>")),
            "{instructions}"
        );
        assert_eq!(body::blocks(&sent[1])[0]["type"], "tool_use");
        assert!(
            last_block(&pair[1])
                .to_string()
                .contains(&"r".repeat(RESULT_BYTES))
        );
        mid_work += 1;
    }
    assert!(
        mid_work >= 2,
        "{mid_work} compactions in the middle of the work"
    );
}
