//! orbit's Anthropic requests against Claude Code 2.1.332's, through the
//! real binary and the fake server. Every expected value below was read
//! off Claude Code's own requests to a capturing fake server
//! (`claude -p hi --model M --output-format json`, `ANTHROPIC_BASE_URL`
//! pointing at it, `ANTHROPIC_API_KEY=test`): model, `max_tokens`,
//! `thinking`, `output_config`, `context_management`, the
//! `anthropic-beta` header, the variables it reads and its
//! `total_cost_usd` for a known usage.

use orbit_test_support::{Completion, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, Turn};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, orbit_with_env, run};

/// `orbit ARGS` in `scratch` with `server_env` (a fake server's
/// variables) plus `env`; it must exit 0.
fn run_ok(
    scratch: &Scratch,
    server_env: Vec<(String, String)>,
    env: &[(&str, &str)],
    args: &[&str],
) -> Outcome {
    let mut vars = server_env;
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut cmd = orbit_with_env(scratch, &vars);
    cmd.args(args);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{args:?} {env:?}: {}", out.stderr);
    out
}

/// One `orbit -p hi` run with `args` and `env` (plus the fake server's);
/// the first request's body, its `anthropic-beta` header and what orbit
/// printed.
fn first_request(args: &[&str], env: &[(&str, &str)]) -> (Value, String, Outcome) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let all: Vec<&str> = ["-p", "hi"].iter().chain(args).copied().collect();
    let out = run_ok(&scratch, server.env(), env, &all);
    let request = server.requests().remove(0);
    let beta = request.header("anthropic-beta").unwrap_or("").to_string();
    (request.body, beta, out)
}

/// The fields Claude Code's request and orbit's must share.
fn shape(body: &Value) -> Value {
    json!({
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "thinking": body["thinking"],
        "output_config": body["output_config"],
        "context_management": body["context_management"],
    })
}

const CLEAR_THINKING: &str = "clear_thinking_20251015";

/// Claude Code's request shape for a model with adaptive thinking.
fn adaptive(model: &str, max_tokens: u32, display: &str, effort: &str) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "thinking": {"type": "adaptive", "display": display},
        "output_config": {"effort": effort},
        "context_management": {"edits": [{"type": CLEAR_THINKING, "keep": "all"}]},
    })
}

/// Claude Code's request shape for a model with budget thinking (no
/// effort).
fn budgeted(model: &str, max_tokens: u32, budget_tokens: u32) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "thinking": {"budget_tokens": budget_tokens, "type": "enabled", "display": "omitted"},
        "output_config": null,
        "context_management": {"edits": [{"type": CLEAR_THINKING, "keep": "all"}]},
    })
}

#[test]
fn opus_sonnet_haiku_and_the_default_are_sent_as_claude_code_sends_them() {
    let json_out: &[&str] = &["--output-format", "json"];
    let cases: [(&[&str], Value); 5] = [
        (
            &["--model", "opus"],
            adaptive("claude-opus-5-5", 128_000, "omitted", "medium"),
        ),
        (
            &["--model", "sonnet"],
            adaptive("claude-sonnet-5-5", 128_000, "omitted", "medium"),
        ),
        (
            &["--model", "haiku"],
            adaptive("claude-haiku-5-5", 128_000, "omitted", "medium"),
        ),
        (
            &[],
            adaptive("claude-opus-5-5", 128_000, "omitted", "medium"),
        ),
        // stream-json output shows thinking: `display: updates`.
        (
            &["--output-format", "stream-json", "--verbose"],
            adaptive("claude-opus-5-5", 128_000, "updates", "medium"),
        ),
    ];
    for (args, want) in cases {
        let format = if args.contains(&"stream-json") {
            &[][..]
        } else {
            json_out
        };
        let all: Vec<&str> = args.iter().chain(format).copied().collect();
        let (body, beta, _) = first_request(&all, &[]);
        assert_eq!(shape(&body), want, "{args:?}");
        assert!(
            beta.starts_with("claude-code-20250219,"),
            "{args:?}: {beta}"
        );
        for needed in ["context-management-2025-06-27", "effort-2025-11-24"] {
            assert!(beta.contains(needed), "{args:?}: {beta}");
        }
    }
}

/// One pinned-model case: args, env and Claude Code's request shape.
type Pinned = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    Value,
);

#[test]
fn pinned_older_models_keep_their_own_shape() {
    let cases: [Pinned; 6] = [
        (
            &["--model", "claude-sonnet-4-5"],
            &[],
            budgeted("claude-sonnet-4-5", 32_000, 31_999),
        ),
        (
            &["--model", "claude-sonnet-4-5"],
            &[("MAX_THINKING_TOKENS", "4000")],
            budgeted("claude-sonnet-4-5", 32_000, 4_000),
        ),
        (
            &["--model", "claude-opus-4-6"],
            &[],
            adaptive("claude-opus-4-6", 64_000, "omitted", "high"),
        ),
        // Thinking off: no thinking, no context management; effort stays.
        (
            &["--model", "claude-opus-4-6", "--thinking", "disabled"],
            &[],
            json!({
                "model": "claude-opus-4-6", "max_tokens": 64_000, "thinking": null,
                "output_config": {"effort": "high"}, "context_management": null,
            }),
        ),
        // Opus 5.5 refuses thinking off: Claude Code still sends adaptive.
        (
            &["--thinking", "disabled"],
            &[],
            adaptive("claude-opus-5-5", 128_000, "omitted", "medium"),
        ),
        // `[1m]`: the id without it, and the 1M beta.
        (
            &["--model", "claude-sonnet-4-5[1m]"],
            &[],
            budgeted("claude-sonnet-4-5", 32_000, 31_999),
        ),
    ];
    for (args, env, want) in cases {
        let (body, beta, _) = first_request(args, env);
        assert_eq!(shape(&body), want, "{args:?} {env:?}");
        let marked = args.iter().any(|a| a.ends_with("[1m]"));
        assert_eq!(beta.contains("context-1m-2025-08-07"), marked, "{beta}");
    }
}

#[test]
fn effort_comes_from_the_flag_the_environment_and_settings() {
    let effort =
        |args: &[&str], env: &[(&str, &str)]| first_request(args, env).0["output_config"].clone();
    let level = |l: &str| json!({"effort": l});
    assert_eq!(effort(&["--effort", "high"], &[]), level("high"));
    // Claude Code: CLAUDE_CODE_EFFORT_LEVEL wins over --effort.
    let low = [("CLAUDE_CODE_EFFORT_LEVEL", "low")];
    assert_eq!(effort(&["--effort", "high"], &low), level("low"));
    assert_eq!(effort(&["--effort", "max"], &[]), level("max"));
    assert_eq!(
        effort(&["--settings", r#"{"effortLevel": "high"}"#], &[]),
        level("high")
    );
    // Opus 4.6 takes no xhigh: high.
    assert_eq!(
        effort(&["--model", "claude-opus-4-6", "--effort", "xhigh"], &[]),
        level("high")
    );
    // `auto`: none sent; a model without effort levels: none.
    assert_eq!(
        effort(&[], &[("CLAUDE_CODE_EFFORT_LEVEL", "auto")]),
        Value::Null
    );
    assert_eq!(
        effort(&["--model", "claude-sonnet-4-5", "--effort", "low"], &[]),
        Value::Null
    );
    // A level orbit does not know: a warning, then the model's default.
    let (body, _, out) = first_request(&["--effort", "turbo"], &[]);
    assert_eq!(body["output_config"], level("medium"));
    assert!(out.stderr.contains("turbo"), "{}", out.stderr);
}

#[test]
fn claude_codes_model_variables_are_read() {
    let model = |args: &[&str], env: &[(&str, &str)]| first_request(args, env).0["model"].clone();
    let opus = [("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-6")];
    assert_eq!(model(&["--model", "opus"], &opus), "claude-opus-4-6");
    assert_eq!(model(&[], &opus), "claude-opus-4-6");
    let sonnet = [("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-4-5")];
    assert_eq!(model(&["--model", "sonnet"], &sonnet), "claude-sonnet-4-5");
    let haiku = [("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5")];
    assert_eq!(model(&["--model", "haiku"], &haiku), "claude-haiku-4-5");
    assert_eq!(model(&["--model", "best"], &[]), "claude-opus-5-5");
    assert_eq!(model(&["--model", "opusplan"], &[]), "claude-sonnet-5-5");
    assert_eq!(
        model(&["--model", "opusplan", "--permission-mode", "plan"], &[]),
        "claude-opus-5-5"
    );
    assert_eq!(model(&["--model", "sonnet[1m]"], &[]), "claude-sonnet-5-5");
    // CLAUDE_CODE_MAX_OUTPUT_TOKENS, capped at the model's limit.
    let max_tokens = |v: &str| {
        first_request(&[], &[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", v)]).0["max_tokens"].clone()
    };
    assert_eq!(max_tokens("5000"), 5_000);
    assert_eq!(max_tokens("200000"), 128_000);
}

#[test]
fn headers_betas_and_prompt_caching_as_claude_code() {
    let env = [
        ("ANTHROPIC_CUSTOM_HEADERS", "X-Foo: one\nX-Bar:two"),
        ("ANTHROPIC_BETAS", "foo-beta-1"),
    ];
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    run_ok(
        &scratch,
        server.env(),
        &env,
        &["-p", "hi", "--betas", "bar-beta-2"],
    );
    let request = server.requests().remove(0);
    assert_eq!(request.header("x-foo"), Some("one"));
    assert_eq!(request.header("x-bar"), Some("two"));
    let beta = request.header("anthropic-beta").unwrap_or("");
    assert!(beta.starts_with("claude-code-20250219,"), "{beta}");
    assert!(beta.ends_with(",foo-beta-1,bar-beta-2"), "{beta}");
    assert!(
        request.body.to_string().contains("cache_control"),
        "cached by default"
    );
    // DISABLE_PROMPT_CACHING: no cache_control anywhere.
    let (body, _, _) = first_request(&[], &[("DISABLE_PROMPT_CACHING", "1")]);
    assert!(!body.to_string().contains("cache_control"), "{body}");
}

#[test]
fn total_cost_is_claude_codes_for_the_same_usage() {
    // (model, input, output, cache write, cache read, Claude Code's total_cost_usd)
    let cases = [
        ("claude-opus-5-5", 1_000, 500, 2_000, 30_000, 0.03),
        ("claude-sonnet-5-5", 1_000, 500, 2_000, 30_000, 0.015),
        ("claude-haiku-5-5", 1_000, 500, 2_000, 30_000, 0.0009),
        // Haiku 5.5 above 100,000 prompt tokens.
        ("claude-haiku-5-5", 95_000, 500, 2_000, 4_000, 0.0502),
    ];
    for (model, input, output, write, read, want) in cases {
        let scratch = Scratch::new();
        let turn = Turn::new()
            .model(model)
            .text("ok")
            .usage(input, output)
            .cache_usage(write, read);
        let server = FakeAnthropic::start(vec![Reply::turn(turn)]);
        let args = ["-p", "hi", "--model", model, "--output-format", "json"];
        let out = run_ok(&scratch, server.env(), &[], &args);
        let result: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        let cost = result["total_cost_usd"].as_f64().unwrap();
        assert!((cost - want).abs() < 1e-9, "{model}: {cost} != {want}");
    }
}

#[test]
fn the_openai_provider_says_once_what_it_ignores() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("ok").usage(10, 1),
    )]);
    let env = [
        ("ANTHROPIC_BETAS", "foo-beta-1"),
        ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "64000"),
    ];
    let out = run_ok(
        &scratch,
        server.env(),
        &env,
        &["-p", "hi", "--effort", "high"],
    );
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("ignores"))
        .collect();
    assert_eq!(
        notes,
        [
            "orbit: note: the openai provider ignores --effort, ANTHROPIC_BETAS, \
             CLAUDE_CODE_MAX_OUTPUT_TOKENS (Anthropic API settings)"
        ],
        "{}",
        out.stderr
    );
    let body = &server.requests()[0].body;
    // orbit's own reply cap for OpenAI models, not the Anthropic variable's.
    assert_eq!(body["max_tokens"], 32_000, "{body}");
    assert!(
        body.get("output_config").is_none() && body.get("reasoning_effort").is_none(),
        "{body}"
    );
}

#[test]
fn the_fallback_model_resolves_aliases_like_model_and_gets_its_own_shape() {
    let scratch = Scratch::new();
    // The main model is overloaded; the fallback (`haiku`, pinned to Haiku
    // 4.5 by ANTHROPIC_DEFAULT_HAIKU_MODEL) answers.
    let server = FakeAnthropic::start(vec![Reply::text("from the fallback")]);
    server.respond_with(|_, body| (body["model"] == "claude-opus-5-5").then(Reply::overloaded));
    let env = [
        ("ORBIT_MAX_RETRIES", "0"),
        ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5"),
    ];
    let args = ["-p", "hi", "--fallback-model", "haiku"];
    run_ok(&scratch, server.env(), &env, &args);
    let bodies = server.bodies();
    let last = bodies.last().unwrap();
    assert_eq!(bodies[0]["model"], "claude-opus-5-5");
    // Capped at Haiku 4.5's limit, with its budget thinking (no effort).
    assert_eq!(
        shape(last),
        budgeted("claude-haiku-4-5", 64_000, 63_999),
        "{last}"
    );
}

#[test]
fn custom_headers_are_a_secret_bash_does_not_see() {
    // Gateway credentials travel in ANTHROPIC_CUSTOM_HEADERS: the request
    // carries them, the processes tools start do not.
    let scratch = Scratch::new();
    let command = json!({"command": "echo \"headers=[$ANTHROPIC_CUSTOM_HEADERS]\""});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", command),
        Reply::text("done"),
    ]);
    let env = [("ANTHROPIC_CUSTOM_HEADERS", "X-Gateway-Key: gw-secret-1")];
    let args = ["-p", "hi", "--permission-mode", "bypassPermissions"];
    run_ok(&scratch, server.env(), &env, &args);
    let requests = server.requests();
    assert_eq!(requests[0].header("x-gateway-key"), Some("gw-secret-1"));
    let results = orbit_test_support::body::tool_result_texts(&requests[1].body);
    assert_eq!(results, ["headers=[]"], "{results:?}");
}
