//! The model options the SDK passes, honoured through the real binary and
//! the fake Anthropic server: `--max-thinking-tokens` / `MAX_THINKING_TOKENS`
//! (the request's `thinking` field, the thinking block sent back with its
//! signature, the block on the stream-json line and in the Python SDK's
//! parser) and `--fallback-model` (529 for the main model only: the
//! session switches, says so on a `system` line, and `modelUsage` has both).

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::{Scratch, run_stream_json};
use super::harness::{stream_json_ok, stream_json_ok_with_env};
use super::sdk::sdk;

const THINKING: &str = "The file list first.";
/// A model with budget thinking (an adaptive one, like the default Opus
/// 5.5, is sent no budget, as Claude Code does).
const BUDGET_MODEL: &str = "claude-sonnet-4-5";
const SIGNATURE: &str = "EqQBCkgIARABGAIiQLsig";

/// A thinking block and a Bash call, then the answer.
fn thinking_then_answer() -> FakeAnthropic {
    FakeAnthropic::start(vec![
        Reply::turn(Turn::new().thinking(THINKING, SIGNATURE).tool_use(
            "toolu_ls",
            "Bash",
            json!({"command": "echo listed"}),
        )),
        Reply::text("done thinking"),
    ])
}

#[test]
fn max_thinking_tokens_enables_thinking_and_the_block_goes_back_signed() {
    let scratch = Scratch::new();
    let server = thinking_then_answer();
    let out = stream_json_ok(
        &scratch,
        &server,
        "list",
        &[
            "--model",
            BUDGET_MODEL,
            "--max-thinking-tokens",
            "2048",
            "--permission-mode",
            "bypassPermissions",
        ],
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        // stream-json shows thinking: Claude Code's `display: updates`.
        assert_eq!(
            request.body["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048, "display": "updates"})
        );
        assert!(request.body["max_tokens"].as_u64().unwrap() > 2048);
    }
    // The second request of the turn sends the thinking block back
    // unchanged, signature included, before the tool_use it preceded.
    let assistant = &body::messages(&requests[1].body)[1];
    let blocks = body::blocks(assistant);
    assert_eq!(
        blocks[0],
        json!({"type": "thinking", "thinking": THINKING, "signature": SIGNATURE})
    );
    assert_eq!(blocks[1]["type"], "tool_use");
    // The stream-json assistant line carries the block as the API sent it.
    let lines = out.lines();
    let thinking: Vec<Value> = super::common::blocks(&lines, "assistant", "thinking").collect();
    assert_eq!(thinking.len(), 1, "{lines:?}");
    assert_eq!(thinking[0]["signature"], SIGNATURE);
    assert_eq!(out.result()["result"], "done thinking");
}

#[test]
fn the_environment_budget_applies_and_a_budget_below_the_minimum_is_refused() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("a"), Reply::text("b")]);
    let mut env = server.env();
    env.push(("MAX_THINKING_TOKENS".into(), "3000".into()));
    let model = ["--model", BUDGET_MODEL];
    stream_json_ok_with_env(&scratch, &env, "hi", &model);
    // The flag wins over the environment; 0 turns thinking off.
    stream_json_ok_with_env(
        &scratch,
        &env,
        "hi",
        &["--model", BUDGET_MODEL, "--max-thinking-tokens", "0"],
    );
    let requests = server.requests();
    assert_eq!(requests[0].body["thinking"]["budget_tokens"], 3000);
    assert!(requests[1].body.get("thinking").is_none());
    let low = run_stream_json(&scratch, &server, "hi", &["--max-thinking-tokens", "1000"]);
    low.assert_error_containing("below the API's minimum of 1024");
    assert_eq!(
        server.requests().len(),
        2,
        "no request with a refused budget"
    );
}

#[test]
fn the_python_sdks_max_thinking_tokens_reaches_the_request() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new().thinking(THINKING, SIGNATURE).text("thought"),
    )]);
    let printed = sdk("thinking", &scratch, &server);
    let thinking = printed.of_kind("thinking");
    assert_eq!(thinking.len(), 1, "{}", printed.stderr);
    assert_eq!(thinking[0]["thinking"], THINKING);
    assert_eq!(thinking[0]["signature"], SIGNATURE);
    assert_eq!(printed.of_kind("result")[0]["result"], "thought");
    let requests = server.requests();
    assert_eq!(requests[0].body["thinking"]["budget_tokens"], 2048);
}

const MAIN: &str = "claude-main-test";
const FALLBACK: &str = "claude-fallback-test";

#[test]
fn an_overloaded_main_model_falls_back_for_the_rest_of_the_session() {
    let scratch = Scratch::new();
    // The main model answers once, then is overloaded on every request;
    // the fallback model is not.
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .model(MAIN)
                .tool_use("toolu_1", "Bash", json!({"command": "echo one"}))
                .usage(100, 10),
        ),
        Reply::turn(
            Turn::new()
                .model(FALLBACK)
                .tool_use("toolu_2", "Bash", json!({"command": "echo two"}))
                .usage(200, 20),
        ),
        Reply::turn(Turn::new().model(FALLBACK).text("finished").usage(300, 30)),
    ]);
    server.respond_with(|index, body| (index > 0 && body["model"] == MAIN).then(Reply::overloaded));
    let mut env = server.env();
    env.push(("ORBIT_MAX_RETRIES".into(), "2".into()));
    let out = stream_json_ok_with_env(
        &scratch,
        &env,
        "go",
        &[
            "--model",
            MAIN,
            "--fallback-model",
            FALLBACK,
            "--permission-mode",
            "bypassPermissions",
        ],
    );
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    // One answer and 1 + 2 retried 529s from the main model; after the
    // switch every request goes to the fallback.
    assert_eq!(
        models,
        [MAIN, MAIN, MAIN, MAIN, FALLBACK, FALLBACK],
        "{}",
        out.stderr
    );
    let lines = out.lines();
    let fallback: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "model_fallback")
        .collect();
    assert_eq!(fallback.len(), 1, "{lines:?}");
    assert_eq!(fallback[0]["original_model"], MAIN);
    assert_eq!(fallback[0]["fallback_model"], FALLBACK);
    assert_eq!(fallback[0]["trigger"], "overloaded");
    let result = out.result();
    assert_eq!(result["result"], "finished");
    let usage = result["modelUsage"].as_object().unwrap();
    assert_eq!(usage[MAIN]["inputTokens"], 100, "{usage:?}");
    assert_eq!(usage[FALLBACK]["inputTokens"], 500, "{usage:?}");
}

#[test]
fn a_fallback_equal_to_the_main_model_is_refused() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("never")]);
    let out = run_stream_json(
        &scratch,
        &server,
        "hi",
        &["--model", MAIN, "--fallback-model", MAIN],
    );
    out.assert_error_containing("Fallback model cannot be the same as the main model");
    assert!(server.requests().is_empty());
}
