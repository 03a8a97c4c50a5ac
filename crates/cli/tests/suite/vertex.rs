//! Claude on Google Vertex AI through the binary (`CLAUDE_CODE_USE_VERTEX=1`
//! against the fake Vertex and a fake Google token endpoint): a three-turn
//! session with tools, every request at the project's and region's URL
//! with the bearer token a service account's signed JWT bought (the JWT
//! checked with the key's public half), tool results and usage as with the
//! Anthropic provider, the faults retried; a missing project in one line.

use orbit_test_support::vertex::{access_token, service_account, verify_jwt};
use orbit_test_support::{FakeGoogleToken, FakeVertex, Turn, VertexReply, vertex_env};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, run_stream_json_with_env, tool_results_text};

#[test]
fn a_three_turn_session_with_tools_runs_on_vertex_with_a_service_account() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.txt", "alpha\n");
    let tokens = FakeGoogleToken::start(vec![access_token("ya29.session", 3600)]);
    let key = service_account(&scratch.home(), &tokens.base_url());
    let vertex = FakeVertex::start(vec![
        VertexReply::turn(
            Turn::new()
                .text("Reading.")
                .tool_use("toolu_1", "Read", json!({"file_path": notes}))
                .usage(100, 10),
        ),
        VertexReply::api_error(529, "overloaded_error", "Overloaded"),
        VertexReply::turn(
            Turn::new()
                .tool_use(
                    "toolu_2",
                    "Grep",
                    json!({"pattern": "alpha", "output_mode": "content"}),
                )
                .usage(200, 20),
        ),
        VertexReply::turn(Turn::new().text("cut").cut_after(3)),
        VertexReply::turn(Turn::new().text("bad").malformed_at(2)),
        VertexReply::turn(Turn::new().text("It says alpha.").usage(300, 30)),
    ]);
    let out = run_stream_json_with_env(
        &scratch,
        &vertex_env(&vertex, &key),
        "What is in notes.txt?",
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let result = out.result();
    assert_eq!(result["result"], "It says alpha.");
    assert_eq!(result["num_turns"], 3, "{result}");
    assert_eq!(result["usage"]["output_tokens"], 60, "{result}");
    let requests = vertex.requests();
    assert_eq!(requests.len(), 6);
    for req in &requests {
        assert_eq!(
            req.path,
            "/v1/projects/orbit-test-project/locations/us-east5/publishers/anthropic/models/claude-opus-5-5:streamRawPredict"
        );
        assert_eq!(req.header("authorization"), Some("Bearer ya29.session"));
        assert_eq!(req.body["anthropic_version"], "vertex-2023-10-16");
        assert!(req.body.get("model").is_none(), "{}", req.body);
    }
    assert!(
        tool_results_text(&requests[1].body).contains("1\talpha"),
        "{}",
        requests[1].body
    );
    assert_eq!(tokens.request_count(), 1);
    verify_jwt(
        &tokens.requests()[0],
        &scratch.home().join("key.pem"),
        &tokens.base_url(),
    )
    .unwrap();
    let retries = out
        .lines()
        .into_iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "api_retry")
        .count();
    assert_eq!(retries, 3, "{}", out.stdout);
}

#[test]
fn a_missing_project_is_one_line_before_any_request() {
    let scratch = Scratch::new();
    let vertex = FakeVertex::start(vec![VertexReply::text("never")]);
    let env: Vec<(String, String)> = vertex_env(&vertex, &scratch.home())
        .into_iter()
        .filter(|(k, _)| k != "ANTHROPIC_VERTEX_PROJECT_ID")
        .collect();
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi"]);
    run(cmd).assert_error_line(
        "orbit: error: Vertex AI needs a Google Cloud project: set ANTHROPIC_VERTEX_PROJECT_ID (and CLOUD_ML_REGION, default us-east5)",
    );
    assert_eq!(vertex.request_count(), 0);
}
