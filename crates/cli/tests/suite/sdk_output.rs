//! The stream-json transcript as Claude Code's SDK readers see it (issue
//! 15's output audit): one full run snapshotted (init fields, one `user`
//! line per tool result with its `tool_use_result`, `modelUsage`,
//! `terminal_reason`), error results without a `result` key, and the
//! `stream_event` lines of `--include-partial-messages` reassembling the
//! answer the model streamed.

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};

use super::common::{Scratch, run_stream_json};
use super::harness::stream_json_ok;

/// Keys whose values change from run to run.
const VOLATILE_KEYS: [&str; 6] = [
    "uuid",
    "session_id",
    "duration_ms",
    "duration_api_ms",
    "claude_code_version",
    "orbit_version",
];

/// Replaces volatile values (and the tool list, which grows with orbit).
fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if VOLATILE_KEYS.contains(&key.as_str()) || key == "tools" && v.is_array() {
                    *v = json!(format!("[{key}]"));
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

#[test]
fn a_full_transcript_has_the_fields_sdk_readers_take() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.txt", "alpha\nbeta\ngamma\n");
    let notes = notes.display().to_string();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_read", "Read", json!({"file_path": notes}))
                .tool_use(
                    "toolu_bash",
                    "Bash",
                    json!({"command": "echo out; echo err >&2"}),
                ),
        ),
        Reply::tool_use(
            "toolu_edit",
            "Edit",
            json!({"file_path": notes, "old_string": "beta", "new_string": "BETA"}),
        ),
        Reply::turn(Turn::new().text("all done").usage(1_000, 20)),
    ]);
    let out = stream_json_ok(
        &scratch,
        &server,
        "read, run, edit",
        &[
            "--permission-mode",
            "bypassPermissions",
            "--agents",
            r#"{"reviewer":{"description":"d","prompt":"p"}}"#,
        ],
    );
    assert!(!out.stderr.contains("no subagents yet"), "{}", out.stderr);
    let mut lines = out.lines();
    lines.iter_mut().for_each(redact);
    let text = scratch.redact(&serde_json::to_string_pretty(&lines).unwrap());
    let lines: Value = serde_json::from_str(&text).unwrap();
    insta::assert_json_snapshot!("sdk_stream_json_transcript", lines);
    // The edit happened, and the model got both results of the first turn.
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let results = orbit_test_support::body::tool_results(&requests[1].body);
    assert_eq!(results.len(), 2);
}

#[test]
fn error_results_have_no_result_key_and_say_why_they_ended() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "true"})),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "true"})),
    ]);
    let out = run_stream_json(&scratch, &server, "loop", &["--max-turns", "1"]);
    let result = out.result();
    assert_eq!(result["subtype"], "error_max_turns");
    assert!(result.get("result").is_none(), "{result}");
    assert_eq!(result["terminal_reason"], "max_turns");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn partial_messages_carry_the_raw_stream_events() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::text("streamed answer"),
        Reply::text("streamed answer"),
    ]);
    let cases: [(&[&str], usize); 2] = [(&[], 0), (&["--include-partial-messages"], 1)];
    for (extra, want_starts) in cases {
        let out = stream_json_ok(&scratch, &server, "hi", extra);
        let events = out.field_where("type", "stream_event", "event");
        let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
        let starts = kinds.iter().filter(|k| **k == "message_start").count();
        assert_eq!(starts, want_starts, "{extra:?}: {kinds:?}");
        if want_starts == 0 {
            continue;
        }
        assert_eq!(kinds.first(), Some(&"message_start"));
        assert_eq!(kinds.last(), Some(&"message_stop"));
        let text: String = events
            .iter()
            .filter(|e| e["delta"]["type"] == "text_delta")
            .filter_map(|e| e["delta"]["text"].as_str())
            .collect();
        assert_eq!(text, "streamed answer");
        // The stream events come before the assembled assistant line.
        let kinds = out.kinds();
        let first_event = kinds.iter().position(|k| k == "stream_event");
        let assistant = kinds.iter().position(|k| k == "assistant");
        assert!(first_event < assistant, "{kinds:?}");
    }
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn write_results_carry_the_overwrites_hunks_and_a_create_has_none() {
    let scratch = Scratch::new();
    let lines: Vec<String> = (1..=12).map(|n| format!("line {n}")).collect();
    let before = lines.join("\n") + "\n";
    let notes = scratch.write("notes.txt", &before);
    let after = before.replace("line 2\n", "line two\n") + "line 13\n";
    let created = scratch.path().join("new.txt");
    let (notes, created) = (notes.display().to_string(), created.display().to_string());
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_read", "Read", json!({"file_path": notes})),
        Reply::turn(
            Turn::new()
                .tool_use(
                    "toolu_over",
                    "Write",
                    json!({"file_path": notes, "content": after}),
                )
                .tool_use(
                    "toolu_new",
                    "Write",
                    json!({"file_path": created, "content": "fresh\n"}),
                ),
        ),
        Reply::text("written"),
    ]);
    let out = stream_json_ok(
        &scratch,
        &server,
        "rewrite",
        &["--permission-mode", "bypassPermissions"],
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), after);
    let results: Vec<Value> = out
        .lines()
        .into_iter()
        .filter(|l| l["type"] == "user" && l["tool_use_result"]["filePath"].is_string())
        .map(|l| l["tool_use_result"].clone())
        .collect();
    let over = results.iter().find(|r| r["filePath"] == notes.as_str());
    let over = over.unwrap_or_else(|| panic!("{results:?}"));
    assert_eq!(over["type"], "update");
    assert_eq!(over["originalFile"], before.as_str());
    // Two changes 10 lines apart: two hunks with 3 lines of context.
    assert_eq!(
        over["structuredPatch"],
        json!([
            {"oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 5,
             "lines": [" line 1", "-line 2", "+line two", " line 3", " line 4", " line 5"]},
            {"oldStart": 10, "oldLines": 3, "newStart": 10, "newLines": 4,
             "lines": [" line 10", " line 11", " line 12", "+line 13"]},
        ])
    );
    let new = results.iter().find(|r| r["filePath"] == created.as_str());
    let new = new.unwrap_or_else(|| panic!("{results:?}"));
    assert_eq!(new["type"], "create");
    assert_eq!(new["structuredPatch"], json!([]));
    assert_eq!(new["originalFile"], Value::Null);
    assert_eq!(new["content"], "fresh\n");
}
