//! Model facts from the catalog, through the real binary: the result's
//! `modelUsage.contextWindow` is the model's window (1,047,576 for
//! gpt-4.1 on the openai provider, `ORBIT_CONTEXT_WINDOW` when set), and
//! the SDK's `get_context_usage` reports the same window (`rawMaxTokens`)
//! in the same session — before the catalog it was 200,000 for every
//! model.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use orbit_test_support::{
    Completion, DEFAULT_MODEL, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, Turn,
};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, orbit_with_env, run, wait_within};

/// The model the fake OpenAI server reports (orbit asks for gpt-4.1).
const OPENAI_REPLY_MODEL: &str = "gpt-4.1-mini";

/// How long one SDK session of these tests may take.
const SESSION_LIMIT: Duration = Duration::from_secs(60);

/// Reads lines until one satisfies `want`; panics at EOF.
fn read_until(lines: &mut impl Iterator<Item = String>, want: impl Fn(&Value) -> bool) -> Value {
    for line in lines {
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line}"));
        if want(&value) {
            return value;
        }
    }
    panic!("stdout ended first");
}

/// One SDK session over stdin (`env`, `extra` flags): a prompt, then
/// `get_context_usage`. Returns the result line and the usage answer.
fn turn_then_context_usage(env: &[(String, String)], extra: &[&str]) -> (Value, Value) {
    let scratch = Scratch::new();
    let mut child = orbit_process(&scratch, env)
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("orbit starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok);
    let mut send = |line: Value| writeln!(stdin, "{line}").and_then(|()| stdin.flush());
    send(json!({"type": "user", "message": {"role": "user", "content": "hi"}})).unwrap();
    let result = read_until(&mut lines, |v| v["type"] == "result");
    send(json!({"type": "control_request", "request_id": "u",
        "request": {"subtype": "get_context_usage"}}))
    .unwrap();
    let answer = read_until(&mut lines, |v| {
        v["type"] == "control_response" && v["response"]["request_id"] == "u"
    });
    drop(stdin);
    let status = wait_within(&mut child, SESSION_LIMIT);
    assert!(status.success(), "{status}");
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    (result, answer["response"]["response"].clone())
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
    // The catalog's Claude window.
    let server = FakeAnthropic::start(vec![reply()]);
    let (result, usage) = turn_then_context_usage(&server.env(), &[]);
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
