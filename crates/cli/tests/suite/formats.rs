//! `--output-format text|json` through the binary.

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::Value;

use super::common::{Scratch, kind, orbit, run, run_orbit};

#[test]
fn text_format_prints_the_final_answer() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("The answer is 42.")]);
    let out = run_orbit(&scratch, &server, &["-p", "question"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "The answer is 42.\n");
    assert_eq!(out.stderr, "");
}

#[test]
fn json_format_prints_one_result_object() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::turn(Turn::new().text("done").usage(10, 5))]);
    let out = run_orbit(
        &scratch,
        &server,
        &["-p", "question", "--output-format", "json"],
    );
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

#[test]
fn verbose_stream_json_shows_tool_progress_between_call_and_result() {
    let scratch = Scratch::new();
    let command = "for i in 1 2 3; do echo line $i; done";
    let script = || {
        FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", "Bash", serde_json::json!({"command": command})),
            Reply::text("ok"),
        ])
    };
    let server = script();
    let verbose = ["--allowedTools", "Bash", "--verbose"];
    let out = super::common::run_stream_json(&scratch, &server, "count", &verbose);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let lines = out.lines();
    let kinds = out.kinds();
    let progress = |k: &String| k == "system/tool_progress" || k == "tool_progress";
    let first = kinds.iter().position(progress).expect("progress");
    let last = kinds.iter().rposition(progress).unwrap();
    assert_eq!(kinds[first - 1], "assistant");
    assert_eq!(kinds[last + 1], "user");
    // orbit's system line, then Claude Code's top-level one, per update.
    let mut streamed = String::new();
    for pair in lines[first..=last].chunks(2) {
        assert_eq!(kind(&pair[0]), "system/tool_progress");
        assert_eq!(pair[1]["type"], "tool_progress");
        assert_eq!(pair[1]["tool_name"], "Bash");
        assert!(pair[1]["elapsed_time_seconds"].as_f64().is_some());
        assert_eq!(pair[1]["data"], pair[0]["data"]);
        for line in pair {
            assert_eq!(line["tool_use_id"], "toolu_1");
            assert_eq!(line["session_id"], lines[0]["session_id"]);
        }
        assert_eq!(pair[0]["data"]["type"], "output");
        streamed.push_str(pair[0]["data"]["output"].as_str().unwrap());
    }
    assert_eq!(streamed, "line 1\nline 2\nline 3\n");

    // Without --verbose there are no progress lines.
    let server = script();
    let out = super::common::run_stream_json(&scratch, &server, "count", &verbose[..2]);
    assert_eq!(
        out.kinds(),
        vec!["system/init", "assistant", "user", "assistant", "result"]
    );
}
