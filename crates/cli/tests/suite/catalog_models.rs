//! Model facts from the catalog, through the real binary: the result's
//! `modelUsage.contextWindow` is the model's window (1,047,576 for
//! gpt-4.1 on the openai provider, `ORBIT_CONTEXT_WINDOW` when set), and
//! the SDK's `get_context_usage` reports the same window (`rawMaxTokens`)
//! in the same session — before the catalog it was 200,000 for every
//! model.

use std::time::Duration;

use orbit_test_support::{
    Completion, DEFAULT_MODEL, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, Turn,
};
use serde_json::Value;

use super::common::{Scratch, StreamJsonChild, orbit_with_env, run, wait_within};

/// The model the fake OpenAI server reports (orbit asks for gpt-4.1).
const OPENAI_REPLY_MODEL: &str = "gpt-4.1-mini";

/// How long one SDK session of these tests may take.
const SESSION_LIMIT: Duration = Duration::from_secs(60);

/// One SDK session over stdin (`env`, `extra` flags): a prompt, then
/// `get_context_usage`. Returns the result line and the usage answer.
fn turn_then_context_usage(env: &[(String, String)], extra: &[&str]) -> (Value, Value) {
    let scratch = Scratch::new();
    let mut sdk = StreamJsonChild::spawn(&scratch, env, extra);
    sdk.send_user("hi");
    let result = sdk.read_until(|v| v["type"] == "result");
    sdk.send_control("u", "get_context_usage");
    let answer = sdk.response_to("u");
    sdk.close();
    let status = wait_within(&mut sdk.child, SESSION_LIMIT);
    assert!(status.success(), "{status}");
    assert_eq!(answer["subtype"], "success", "{answer}");
    (result, answer["response"].clone())
}

/// `modelUsage.<model>.contextWindow` of a result line.
fn usage_window(result: &Value, model: &str) -> Value {
    result["modelUsage"][model]["contextWindow"].clone()
}

#[test]
fn openai_model_usage_has_gpt_4_1s_window_as_get_context_usage_does() {
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("hello").usage(40, 4),
    )]);
    let (result, usage) = turn_then_context_usage(&server.env(), &[]);
    assert_eq!(result["result"], "hello", "{result}");
    // The server reports gpt-4.1-mini; orbit asked for gpt-4.1: one family.
    assert_eq!(usage["model"], "gpt-4.1", "{usage}");
    assert_eq!(usage["rawMaxTokens"], 1_047_576, "{usage}");
    assert_eq!(
        usage_window(&result, OPENAI_REPLY_MODEL),
        1_047_576,
        "{result}"
    );
}

#[test]
fn openai_json_result_reports_the_models_window() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("hello").usage(40, 4),
    )]);
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "hi", "--output-format", "json"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let result: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(
        usage_window(&result, OPENAI_REPLY_MODEL),
        1_047_576,
        "{result}"
    );
}

#[test]
fn anthropic_model_usage_and_get_context_usage_agree() {
    let reply = || Reply::turn(Turn::new().text("hello").usage(1_000, 10));
    // The catalog's window of the default model (Opus 5.5: 1M, as Claude
    // Code 2.1.332 reports it in modelUsage.contextWindow), answered as
    // that model.
    let opus = "claude-opus-5-5";
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new().model(opus).text("hello").usage(1_000, 10),
    )]);
    let (result, usage) = turn_then_context_usage(&server.env(), &[]);
    assert_eq!(usage["rawMaxTokens"], 1_000_000, "{usage}");
    assert_eq!(usage_window(&result, opus), 1_000_000, "{result}");
    // A pinned 4.x model: its 200k window.
    let server = FakeAnthropic::start(vec![reply()]);
    let (result, usage) = turn_then_context_usage(&server.env(), &["--model", "claude-sonnet-4-5"]);
    assert_eq!(usage["rawMaxTokens"], 200_000, "{usage}");
    assert_eq!(usage_window(&result, DEFAULT_MODEL), 200_000, "{result}");
    // ORBIT_CONTEXT_WINDOW: the window of this session, in both.
    let server = FakeAnthropic::start(vec![reply()]);
    let mut env = server.env();
    env.push(("ORBIT_CONTEXT_WINDOW".into(), "150000".into()));
    let (result, usage) = turn_then_context_usage(&env, &[]);
    assert_eq!(usage["rawMaxTokens"], 150_000, "{usage}");
    assert_eq!(usage_window(&result, DEFAULT_MODEL), 150_000, "{result}");
}
