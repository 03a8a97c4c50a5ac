//! A call of an MCP tool whose server is still starting (see `mcp.rs` for
//! the servers): the orchestrator awaits the server (the stand-in tool is
//! not ready), then validates the input against the real schema with the
//! same pipeline as every tool (the exact T3 text) and runs the call; a
//! server that is not ready within `MCP_TIMEOUT` gives the model a clear
//! error and the run goes on.

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::common::Scratch;
use super::mcp::*;

/// The Python server sleeping `delay_s` before it answers anything, with
/// `MCP_TIMEOUT` at `timeout_ms`; the model calls `add` twice in its first
/// turn (once without `b`) while the server starts. Returns the init line's
/// status of the server and the results the model got.
fn call_while_starting(delay_s: &str, timeout_ms: &str) -> (String, Vec<(String, bool)>) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_0", "mcp__slow__add", json!({"a": 1}))
                .tool_use("toolu_1", "mcp__slow__add", json!({"a": 1, "b": 2})),
        ),
        Reply::text("done"),
    ]);
    let entry = py_stdio(json!({"PY_MCP_START_DELAY": delay_s}));
    let out = run_one_server(
        &scratch,
        &server,
        ("MCP_TIMEOUT", timeout_ms),
        "slow",
        entry,
    );
    let init = &out.lines()[0];
    let status = init["mcp_servers"][0]["status"]
        .as_str()
        .unwrap_or_default();
    (status.to_string(), results(&server))
}

#[test]
fn a_call_while_the_server_starts_waits_then_is_validated_like_any_call() {
    let (status, got) = call_while_starting("1.5", "20000");
    assert_eq!(status, "pending");
    assert_eq!(
        got,
        [
            (
                "<tool_use_error>InputValidationError: mcp__slow__add failed due to the following issue:\nThe required parameter `b` is missing</tool_use_error>".to_string(),
                true
            ),
            ("1+2=3".to_string(), false),
        ]
    );
}

#[test]
fn a_server_that_never_becomes_ready_is_a_clear_error() {
    let (status, got) = call_while_starting("30", "1500");
    assert_eq!(status, "pending");
    let not_ready = "<tool_use_error>mcp__slow__add is not available: it did not become ready within 1500 ms. Try again later or do without it.</tool_use_error>";
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0], (not_ready.to_string(), true));
    // The second call waits again (the server is restarted on its next
    // use): told the same, or the server's own timeout when both bounds
    // end in the same tick.
    let own = "<tool_use_error>MCP server \"slow\" is not connected: did not connect within 1500 ms (MCP_TIMEOUT)</tool_use_error>";
    assert!(
        got[1].1 && [not_ready, own].contains(&got[1].0.as_str()),
        "{got:?}"
    );
}
