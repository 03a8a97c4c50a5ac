//! `--output-format text|json` through the binary.

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::Value;

use super::common::{Scratch, orbit, run};

#[test]
fn text_format_prints_the_final_answer() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("The answer is 42.")]);
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["-p", "question"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "The answer is 42.\n");
    assert_eq!(out.stderr, "");
}

#[test]
fn json_format_prints_one_result_object() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::turn(Turn::new().text("done").usage(10, 5))]);
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["-p", "question", "--output-format", "json"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    let result: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "done");
    assert_eq!(result["num_turns"], 1);
    assert_eq!(result["usage"]["input_tokens"], 10);
    assert_eq!(result["usage"]["output_tokens"], 5);
    assert_eq!(result["session_id"].as_str().map(str::len), Some(36));
}

#[test]
fn prompt_is_read_from_stdin_when_p_has_no_value() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["-p", "--output-format", "text"])
        .write_stdin("prompt from stdin\n");
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "ok\n");
    let body = &server.requests()[0].body;
    let first = &body["messages"][0]["content"];
    let text = match first {
        Value::String(t) => t.clone(),
        other => other[0]["text"].as_str().unwrap_or_default().to_string(),
    };
    assert_eq!(text, "prompt from stdin\n");
}
