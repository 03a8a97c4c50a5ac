//! L4 through the binary: transient faults are retried (announced with
//! `system/api_retry` lines) and a 401 fails at once with one clear line.

use std::time::Duration;

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::Value;

use super::common::{Outcome, Scratch, orbit_with_env, run, run_orbit, run_stream_json};

/// Bound of the connection-refused run (retries with backoff included).
const UNREACHABLE_RUN_LIMIT: Duration = Duration::from_secs(240);

/// A 127.0.0.1 port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `text` output announces each retry on stderr as
/// `orbit: MESSAGE; retry N/M in S s` and ends with one error line.
#[test]
fn unreachable_server_announces_retries_then_one_error_line() {
    let scratch = Scratch::new();
    let env = [
        (
            "ANTHROPIC_BASE_URL".to_string(),
            format!("http://127.0.0.1:{}", closed_port()),
        ),
        ("ANTHROPIC_API_KEY".to_string(), "test-key".to_string()),
        // Short backoff; the retry count stays the model crate's default.
        ("ORBIT_RETRY_BASE_DELAY_MS".to_string(), "1".to_string()),
    ];
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi"]).timeout(UNREACHABLE_RUN_LIMIT);
    let out = run(cmd);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "");
    let lines: Vec<&str> = out.stderr.lines().collect();
    let (last, retries) = lines.split_last().expect("stderr lines");
    assert!(last.starts_with("orbit: error: "), "{}", out.stderr);
    assert!(!retries.is_empty(), "no retry lines: {}", out.stderr);
    let mut max = None;
    for (i, line) in retries.iter().enumerate() {
        let (head, tail) = line
            .rsplit_once("; retry ")
            .unwrap_or_else(|| panic!("{line}"));
        assert!(
            head.starts_with("orbit: ") && head.len() > "orbit: ".len(),
            "{line}"
        );
        assert!(!head.starts_with("orbit: error:"), "{line}");
        let (count, delay) = tail.split_once(" in ").unwrap_or_else(|| panic!("{line}"));
        let (attempt, of) = count.split_once('/').unwrap_or_else(|| panic!("{line}"));
        assert_eq!(attempt.parse::<usize>().unwrap(), i + 1, "{line}");
        let of: usize = of.parse().unwrap();
        assert_eq!(*max.get_or_insert(of), of, "{line}");
        let secs = delay.strip_suffix(" s").unwrap_or_else(|| panic!("{line}"));
        assert!(secs.parse::<f64>().is_ok(), "{line}");
    }
    assert!(lines[0].contains("; retry 1/"), "{}", out.stderr);
    assert_eq!(
        Some(retries.len()),
        max,
        "every retry announced: {}",
        out.stderr
    );
}

/// Runs `orbit -p hi` in stream-json against `faults` then `answer`: it
/// succeeds with one `system/api_retry` line per fault, one request per
/// reply, and the answer as the only assistant message.
fn retried_to_success(faults: Vec<Reply>, answer: &str) -> Outcome {
    let scratch = Scratch::new();
    let retries = faults.len();
    let mut replies = faults;
    replies.push(Reply::text(answer));
    let server = FakeAnthropic::start(replies);
    let out = run_stream_json(&scratch, &server, "hi", &[]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let mut kinds = vec!["system/init"];
    kinds.extend(std::iter::repeat_n("system/api_retry", retries));
    kinds.extend(["assistant", "result"]);
    assert_eq!(out.kinds(), kinds);
    assert_eq!(
        out.lines()[retries + 1]["message"]["content"],
        serde_json::json!([{"type": "text", "text": answer}])
    );
    assert_eq!(out.result()["subtype"], "success");
    assert_eq!(server.request_count(), retries + 1);
    out
}

#[test]
fn overloaded_529_is_retried_to_success() {
    let out = retried_to_success(vec![Reply::overloaded().retry_after_ms(1)], "recovered");
    let retry = &out.lines()[1];
    assert_eq!(retry["attempt"], 1);
    assert_eq!(retry["error_status"], 529);
    assert!(retry["max_retries"].as_u64().unwrap() >= 1);
    assert!(retry["retry_delay_ms"].as_u64().is_some());
    assert!(retry["uuid"].is_string());
    assert_eq!(retry["session_id"], out.lines()[0]["session_id"]);
    let result = out.result();
    assert_eq!(result["result"], "recovered");
    assert_eq!(result["num_turns"], 1);
}

#[test]
fn unauthorized_401_fails_at_once_with_one_clear_line() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::api_error(401, "authentication_error", "invalid x-api-key"),
        Reply::text("must not be requested"),
    ]);
    let out = run_stream_json(&scratch, &server, "hi", &[]);
    let line = out.one_error_line("invalid x-api-key");
    assert!(line.contains("401"), "{line}");
    assert_eq!(out.kinds(), vec!["system/init", "result"]);
    let result = out.result();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert_eq!(server.request_count(), 1);
}

#[test]
fn unauthorized_in_text_format_prints_only_the_error_line() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::api_error(
        401,
        "authentication_error",
        "invalid x-api-key",
    )]);
    let out = run_orbit(&scratch, &server, &["-p", "hi"]);
    assert_eq!(out.stdout, "");
    out.one_error_line("invalid x-api-key");
}

#[test]
fn stream_cut_mid_block_is_retried_to_success() {
    // message_start, ping, content_block_start, one text_delta, then cut.
    let cut = Reply::turn(Turn::new().text("partial answer").cut_after(4));
    let out = retried_to_success(vec![cut], "whole answer");
    assert_eq!(out.lines()[1]["error_status"], Value::Null);
    // Only the complete attempt reaches the conversation.
    assert_eq!(out.result()["result"], "whole answer");
}

#[test]
fn malformed_event_and_overloaded_error_event_are_retried_to_success() {
    let overloaded =
        Turn::new()
            .text("overloaded")
            .error_after(4, "overloaded_error", "Overloaded");
    retried_to_success(
        vec![
            Reply::turn(Turn::new().text("garbled").malformed_at(3)),
            Reply::turn(overloaded),
        ],
        "whole answer",
    );
}
