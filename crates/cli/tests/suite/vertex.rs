//! Claude on Google Vertex AI through the binary (`CLAUDE_CODE_USE_VERTEX=1`
//! against the fake Vertex and a fake Google token endpoint): a three-turn
//! session with tools, every request at the project's and region's URL
//! with the bearer token a service account's signed JWT bought (the JWT
//! checked with the key's public half), tool results and usage as with the
//! Anthropic provider, the faults retried; a missing project in one line.

use super::bedrock::{notes_turns, run_notes_session};
use super::common::{Scratch, orbit_with_env, run};
use orbit_test_support::vertex::{access_token, service_account, verify_jwt};
use orbit_test_support::{FakeGoogleToken, FakeVertex, Turn, VertexReply, vertex_env};

#[test]
fn a_three_turn_session_with_tools_runs_on_vertex_with_a_service_account() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.txt", "alpha\n");
    let tokens = FakeGoogleToken::start(vec![access_token("ya29.session", 3600)]);
    let key = service_account(&scratch.home(), &tokens.base_url());
    let [read, grep, answer] = notes_turns(&notes);
    let vertex = FakeVertex::start(vec![
        VertexReply::turn(read),
        VertexReply::api_error(529, "overloaded_error", "Overloaded"),
        VertexReply::turn(grep),
        VertexReply::turn(Turn::new().text("cut").cut_after(3)),
        VertexReply::turn(Turn::new().text("bad").malformed_at(2)),
        VertexReply::turn(answer),
    ]);
    let env = vertex_env(&vertex, &key);
    let requests = run_notes_session(&scratch, &env, || vertex.requests(), (6, 3));
    for req in &requests {
        assert_eq!(
            req.path,
            "/v1/projects/orbit-test-project/locations/us-east5/publishers/anthropic/models/claude-opus-5-5:streamRawPredict"
        );
        assert_eq!(req.header("authorization"), Some("Bearer ya29.session"));
        assert_eq!(req.body["anthropic_version"], "vertex-2023-10-16");
        assert!(req.body.get("model").is_none(), "{}", req.body);
    }
    assert_eq!(tokens.request_count(), 1);
    let pem = scratch.home().join("key.pem");
    verify_jwt(&tokens.requests()[0], &pem, &tokens.base_url()).unwrap();
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
