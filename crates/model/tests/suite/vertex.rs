//! The Vertex AI client against the fake Vertex and a fake Google token
//! endpoint: the URL (project, region, a model's own region variable),
//! the body Claude Code sends, a bearer token got with a service
//! account's RS256-signed JWT (checked with the key's public half) and
//! reused until a 401, and the faults retried.

use orbit_model::ModelError;
use orbit_model::vertex::{VertexClient, VertexConfig};
use orbit_protocol::ContentBlock;
use orbit_test_support::vars::lookup;
use orbit_test_support::vertex::{access_token, service_account, verify_jwt};
use orbit_test_support::{FakeGoogleToken, FakeVertex, VertexReply, vertex_env};

use super::hi_request as request;
use super::{completed_blocks, retries, run, run_ok};

fn client(env: &[(String, String)]) -> VertexClient {
    VertexClient::new(VertexConfig::from_lookup(lookup(env))).unwrap()
}

/// The fake's variables without a key file, HOME at `home`, and the
/// metadata server at `metadata_host` when given.
fn keyless_env(
    vertex: &FakeVertex,
    home: &std::path::Path,
    metadata_host: Option<String>,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = vertex_env(vertex, home)
        .into_iter()
        .filter(|(k, _)| k != "GOOGLE_APPLICATION_CREDENTIALS")
        .collect();
    env.push(("HOME".into(), home.display().to_string()));
    env.extend(metadata_host.map(|host| ("GCE_METADATA_HOST".to_string(), host)));
    env
}

fn good() -> VertexReply {
    VertexReply::turn(super::recovered_turn())
}

#[tokio::test]
async fn a_service_account_token_authorizes_calls_until_a_401() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = FakeGoogleToken::start(vec![
        access_token("ya29.first", 3600),
        access_token("ya29.second", 3600),
    ]);
    let key = service_account(dir.path(), &tokens.base_url());
    let overloaded = VertexReply::api_error(529, "overloaded_error", "Overloaded");
    let mut script = vec![good()];
    script.extend(super::cloud_faults(VertexReply::turn, overloaded));
    script.extend([
        good(),
        VertexReply::status(
            401,
            r#"[{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}]"#,
        ),
        good(),
    ]);
    let vertex = FakeVertex::start(script);
    let mut env = vertex_env(&vertex, &key);
    env.push((
        "VERTEX_REGION_CLAUDE_HAIKU_4_5".into(),
        "europe-west1".into(),
    ));
    let client = client(&env);

    let events = run_ok(&client, &request("claude-opus-5-5")).await;
    assert_eq!(
        completed_blocks(&events)[0],
        ContentBlock::text("recovered")
    );
    let req = &vertex.requests()[0];
    assert_eq!(
        req.path,
        "/v1/projects/orbit-test-project/locations/us-east5/publishers/anthropic/models/claude-opus-5-5:streamRawPredict"
    );
    assert_eq!(req.header("authorization"), Some("Bearer ya29.first"));
    assert_eq!(req.body["anthropic_version"], "vertex-2023-10-16");
    assert_eq!(req.body["stream"], true);
    assert!(req.body.get("model").is_none(), "{}", req.body);
    verify_jwt(
        &tokens.requests()[0],
        &dir.path().join("key.pem"),
        &tokens.base_url(),
    )
    .unwrap();

    // The faults: each retried once, the same token reused.
    let events = run_ok(&client, &request("claude-haiku-4-5-20251001")).await;
    assert_eq!(retries(&events).len(), 4, "{:?}", retries(&events));
    let last = vertex.requests().pop().unwrap();
    assert_eq!(
        last.path,
        "/v1/projects/orbit-test-project/locations/europe-west1/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"
    );
    assert_eq!(tokens.request_count(), 1);

    // A 401: a new token, the call retried once with it.
    run_ok(&client, &request("claude-opus-5-5")).await;
    assert_eq!(tokens.request_count(), 2);
    let last = vertex.requests().pop().unwrap();
    assert_eq!(last.header("authorization"), Some("Bearer ya29.second"));
}

#[tokio::test]
async fn missing_credentials_and_refusals_are_one_line() {
    let vertex = FakeVertex::start(vec![good()]);
    let home = tempfile::tempdir().unwrap();
    let closed = format!("127.0.0.1:{}", super::closed_port());
    let env = keyless_env(&vertex, home.path(), Some(closed));
    let (_, err) = run(&client(&env), &request("claude-opus-5-5")).await;
    assert!(matches!(err, Some(ModelError::Config(_))), "{err:?}");
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "no Google credentials for Vertex AI: set GOOGLE_APPLICATION_CREDENTIALS to a key file, or run `gcloud auth application-default login`"
    );
    assert_eq!(vertex.request_count(), 0);

    let tokens = FakeGoogleToken::start(vec![orbit_test_support::ReplyOf::status(
        400,
        r#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#,
    )]);
    let key = service_account(home.path(), &tokens.base_url());
    let env = vertex_env(&vertex, &key);
    let (_, err) = run(&client(&env), &request("claude-opus-5-5")).await;
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.ends_with("refused the credentials (HTTP 400): Invalid JWT Signature."),
        "{text}"
    );
    assert_eq!(vertex.request_count(), 0);
}

#[tokio::test]
async fn a_gcloud_user_login_and_the_metadata_server_give_tokens() {
    // gcloud's application default credentials of a user: the refresh
    // token is exchanged at the file's token_uri.
    let home = tempfile::tempdir().unwrap();
    let tokens = FakeGoogleToken::start(vec![access_token("ya29.user", 3600)]);
    let gcloud = home.path().join(".config/gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    let adc = serde_json::json!({
        "type": "authorized_user",
        "client_id": "cid.apps.googleusercontent.com",
        "client_secret": "csecret",
        "refresh_token": "1//refresh",
        "token_uri": tokens.base_url(),
    });
    std::fs::write(
        gcloud.join("application_default_credentials.json"),
        adc.to_string(),
    )
    .unwrap();
    let vertex = FakeVertex::start(vec![good(), good()]);
    let env = keyless_env(&vertex, home.path(), None);
    run_ok(&client(&env), &request("claude-opus-5-5")).await;
    assert_eq!(
        vertex.requests()[0].header("authorization"),
        Some("Bearer ya29.user")
    );
    let form = &tokens.requests()[0].raw_body;
    assert!(
        form.contains("grant_type=refresh_token") && form.contains("refresh_token=1%2F%2Frefresh"),
        "{form}"
    );

    // No key file: the metadata server's token (Metadata-Flavor: Google).
    let (host, served) = super::one_shot_http(
        r#"{"access_token":"ya29.metadata","expires_in":3599,"token_type":"Bearer"}"#,
    );
    let empty = tempfile::tempdir().unwrap();
    let metadata = host.trim_start_matches("http://").to_string();
    let env = keyless_env(&vertex, empty.path(), Some(metadata));
    run_ok(&client(&env), &request("claude-opus-5-5")).await;
    super::assert_head(
        &served.join().unwrap(),
        "GET /computeMetadata/v1/instance/service-accounts/default/token ",
        "metadata-flavor: google",
    );
    assert_eq!(
        vertex.requests()[1].header("authorization"),
        Some("Bearer ya29.metadata")
    );
}
