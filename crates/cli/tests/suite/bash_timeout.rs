//! Issue 17's guard through the binary: a Bash `timeout` below 1,000 is
//! seconds (`timeout: 5` is five seconds, not five milliseconds), so a
//! command a model gives "5" runs to its end.

use orbit_test_support::body;
use serde_json::json;

use super::common::{Scratch, bash_calls, run_stream_json};

#[test]
fn a_bash_timeout_below_1000_is_read_as_seconds() {
    let scratch = Scratch::new();
    let call = json!({"command": "sleep 0.3; echo finished", "timeout": 5});
    let server = bash_calls(&[("toolu_1", call)], "ok");
    let out = run_stream_json(&scratch, &server, "run it", &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let sent = body::tool_results(&server.bodies()[1]);
    assert_eq!(sent[0].text, "finished");
    assert!(!sent[0].is_error);
}
