//! Built-in slash commands in a headless session (`orbit -p "/cost"`, an
//! SDK user message `/compact`): run by orbit without a model request, as
//! Claude Code 2.1.332 runs them — their output as an `assistant` line of
//! model `<synthetic>` and a `success` result of zero turns (observed:
//! `claude -p /cost --output-format stream-json`); `/compact` summarises a
//! resumed history; `/init` is a prompt; `init` lists them.

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, run_stream_json};

/// The `assistant` lines of a stream-json run.
fn assistant_lines(out: &Outcome) -> Vec<Value> {
    out.lines()
        .into_iter()
        .filter(|l| l["type"] == "assistant")
        .collect()
}

#[test]
fn local_commands_answer_without_a_model_request() {
    // (command, a text its output holds)
    let table = [
        ("/cost", "Total cost:"),
        ("/context", "## Context Usage"),
        ("/model", "Current model: `"),
        (
            "/model haiku",
            "Set model to `claude-haiku-5-5` for this session only",
        ),
    ];
    for (command, expected) in table {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("must not be asked")]);
        let out = run_stream_json(&scratch, &server, command, &["--verbose"]);
        assert_eq!(out.code, 0, "{command}: {}", out.stderr);
        assert_eq!(server.request_count(), 0, "{command} asked the model");
        let result = out.result();
        assert_eq!(result["subtype"], "success", "{command}: {result}");
        assert_eq!(result["num_turns"], 0, "{command}");
        assert_eq!(result["modelUsage"], json!({}), "{command}");
        let text = result["result"].as_str().unwrap_or_default();
        assert!(text.contains(expected), "{command}: {text}");
        let assistant = assistant_lines(&out);
        assert_eq!(assistant.len(), 1, "{command}: {}", out.stdout);
        assert_eq!(assistant[0]["message"]["model"], "<synthetic>");
        assert_eq!(assistant[0]["message"]["content"][0]["text"], text);
    }
}

#[test]
fn compact_summarises_a_resumed_history_and_the_next_prompt_starts_from_it() {
    let scratch = Scratch::new();
    let first = FakeAnthropic::start(vec![Reply::text("The answer is 42.")]);
    let out = run_stream_json(&scratch, &first, "What is the answer?", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let compacting = FakeAnthropic::start(vec![Reply::text("SUMMARY-OF-THE-QUESTION")]);
    let out = run_stream_json(
        &scratch,
        &compacting,
        "/compact keep the number",
        &["-c", "--verbose"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(compacting.request_count(), 1, "one summary request");
    let summary_request = body::last_message_texts(&compacting.bodies()[0]).join("\n");
    assert!(
        summary_request.contains("keep the number"),
        "{summary_request}"
    );
    let lines = out.lines();
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "system" && l["subtype"] == "compact_boundary"),
        "{}",
        out.stdout
    );
    let result = out.result();
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["result"], "");

    let next = FakeAnthropic::start(vec![Reply::text("still 42")]);
    let out = run_stream_json(&scratch, &next, "And now?", &["-c"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sent = serde_json::to_string(&next.bodies()[0]["messages"]).unwrap();
    assert!(sent.contains("SUMMARY-OF-THE-QUESTION"), "{sent}");
    assert!(!sent.contains("What is the answer?"), "{sent}");
}

#[test]
fn compact_and_clear_of_an_empty_history_do_nothing_and_clear_refuses_a_resumed_one() {
    for command in ["/compact", "/clear"] {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("must not be asked")]);
        let out = run_stream_json(&scratch, &server, command, &[]);
        assert_eq!(out.code, 0, "{command}: {}", out.stderr);
        assert_eq!(server.request_count(), 0, "{command}");
        assert_eq!(out.result()["result"], "", "{command}");
    }
    let scratch = Scratch::new();
    let first = FakeAnthropic::start(vec![Reply::text("hi")]);
    assert_eq!(run_stream_json(&scratch, &first, "hello", &[]).code, 0);
    let out = run_stream_json(&scratch, &first, "/clear", &["-c"]);
    assert_ne!(out.code, 0);
    let result = out.result();
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert!(
        result["errors"][0]
            .as_str()
            .unwrap()
            .contains("start a new session"),
        "{result}"
    );
}

#[test]
fn init_is_a_prompt_and_the_init_line_lists_the_built_in_commands() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("wrote it")]);
    let out = run_stream_json(&scratch, &server, "/init", &["--verbose"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sent = body::last_message_texts(&server.bodies()[0]).join("\n");
    assert!(sent.contains("CLAUDE.md"), "{sent}");
    let init = out.lines().into_iter().next().unwrap();
    let names = &init["slash_commands"];
    for name in ["compact", "context", "cost", "model", "clear", "init"] {
        assert!(
            names.as_array().unwrap().contains(&json!(name)),
            "{name} missing from {names}"
        );
    }
}
