//! L3 through the binary: `--max-turns 2` against a model that keeps calling
//! tools ends with `error_max_turns`, the exact error text, exit 1, and no
//! third request.

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Scratch, blocks, run_stream_json, s};

#[test]
fn max_turns_stops_a_model_that_keeps_calling_tools() {
    let scratch = Scratch::new();
    let file = scratch.write("loop.txt", "again\n");
    let server = FakeAnthropic::start(
        (1..=4)
            .map(|i| Reply::tool_use(format!("toolu_{i}"), "Read", json!({"file_path": s(&file)})))
            .collect(),
    );
    let out = run_stream_json(&scratch, &server, "loop forever", &["--max-turns", "2"]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    let result = out.result();
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["num_turns"], 2);
    assert_eq!(
        result["errors"],
        json!(["Reached maximum number of turns (2)"])
    );
    assert_eq!(
        out.stderr,
        "orbit: error: Reached maximum number of turns (2)\n"
    );
    assert_eq!(server.request_count(), 2);

    // L2: every tool_use printed has its tool_result printed.
    let lines = out.lines();
    let uses: Vec<String> = blocks(&lines, "assistant", "tool_use")
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    let results: Vec<String> = blocks(&lines, "user", "tool_result")
        .map(|b| b["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(uses, vec!["toolu_1", "toolu_2"]);
    assert_eq!(results, uses);
}
