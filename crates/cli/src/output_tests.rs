//! Unit tests of the output writer: formats, retries, errors, exit codes.

use super::*;
use orbit_protocol::{ContentBlock, ResultSubtype, Usage};

fn result(subtype: ResultSubtype, errors: Vec<String>) -> TerminalResult {
    TerminalResult {
        subtype,
        num_turns: 1,
        duration_ms: 5,
        duration_api_ms: 3,
        total_cost_usd: 0.5,
        usage: Usage::default(),
        result: "done".into(),
        stop_reason: Some("end_turn".into()),
        permission_denials: vec![],
        errors,
        interrupted: false,
        structured_output: None,
    }
}

fn run(format: OutputFormat, events: &[EngineEvent]) -> (String, String, Option<i32>) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut code = None;
    {
        let mut w = OutputWriter::new(format, true, "sid".into(), &mut out, &mut err);
        for e in events {
            if let Ok(Some(c)) = w.event(e) {
                code = Some(c);
            }
        }
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
        code,
    )
}

#[test]
fn text_prints_result_or_errors() {
    let ok = EngineEvent::Result(result(ResultSubtype::Success, vec![]));
    assert_eq!(
        run(OutputFormat::Text, &[ok]),
        ("done\n".into(), String::new(), Some(0))
    );
    let bad = EngineEvent::Result(result(
        ResultSubtype::ErrorMaxTurns,
        vec!["Reached maximum number of turns (2)".into()],
    ));
    assert_eq!(
        run(OutputFormat::Text, &[bad]),
        (
            String::new(),
            "orbit: error: Reached maximum number of turns (2)\n".into(),
            Some(1)
        )
    );
}

#[test]
fn stream_json_lines_carry_session_and_uuid() {
    let events = vec![
        EngineEvent::UserMessage {
            uuid: "u1".into(),
            message: Message::user(vec![ContentBlock::text("hi")]),
        },
        EngineEvent::ToolProgress {
            tool_use_id: "t1".into(),
            data: Value::String("line".into()),
        },
        EngineEvent::Result(result(ResultSubtype::Success, vec![])),
    ];
    let (out, _, code) = run(OutputFormat::StreamJson, &events);
    assert_eq!(code, Some(0));
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["type"], "user");
    assert_eq!(lines[0]["uuid"], "u1");
    assert_eq!(lines[0]["parent_tool_use_id"], Value::Null);
    assert_eq!(lines[1]["subtype"], "tool_progress");
    // Claude Code's top-level line, orbit's output as `data`.
    assert_eq!(lines[2]["type"], "tool_progress");
    assert_eq!(lines[2]["data"], "line");
    assert!(lines[2]["elapsed_time_seconds"].is_number());
    assert_eq!(lines[3]["type"], "result");
    for l in &lines {
        assert_eq!(l["session_id"], "sid");
        assert!(l["uuid"].is_string());
    }
}

#[test]
fn text_announces_retries_on_stderr_only() {
    let retry = |attempt, delay_ms| {
        EngineEvent::Stream(StreamEvent::Retry {
            attempt,
            max_retries: 10,
            delay_ms,
            error_status: Some(529),
            message: "overloaded\n(529)".into(),
        })
    };
    let events = [
        retry(1, 12),
        retry(2, 523),
        retry(3, 9_960),
        retry(4, 32_400),
    ];
    let (out, err, _) = run(OutputFormat::Text, &events);
    assert_eq!(out, "");
    assert_eq!(
        err,
        "orbit: overloaded (529); retry 1/10 in 0.01 s\n\
         orbit: overloaded (529); retry 2/10 in 0.5 s\n\
         orbit: overloaded (529); retry 3/10 in 10 s\n\
         orbit: overloaded (529); retry 4/10 in 32 s\n"
    );
    let (_, err, _) = run(OutputFormat::Json, &events);
    assert_eq!(err, "", "json keeps stderr for errors");
}

#[test]
fn a_multi_line_error_prints_as_one_line() {
    let bad = EngineEvent::Result(result(
        ResultSubtype::ErrorDuringExecution,
        vec!["API error\n  caused by: connection refused\n".into()],
    ));
    let (_, err, code) = run(OutputFormat::Text, &[bad]);
    assert_eq!(
        err,
        "orbit: error: API error caused by: connection refused\n"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn interrupted_exits_130() {
    let mut r = result(
        ResultSubtype::ErrorDuringExecution,
        vec!["[Request interrupted by user]".into()],
    );
    r.interrupted = true;
    let (out, err, code) = run(OutputFormat::Json, &[EngineEvent::Result(r)]);
    assert_eq!(code, Some(130));
    assert_eq!(err, "orbit: interrupted\n");
    assert!(out.contains("\"is_error\":true"));
}
