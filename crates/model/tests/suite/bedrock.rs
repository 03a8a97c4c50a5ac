//! The Bedrock client against the fake Bedrock runtime: the URL and body
//! Claude Code sends, a SigV4 signature recomputed by the test from the
//! same credentials, event-stream frames decoded into the Anthropic
//! client's events, and the faults (a 529-like exception frame, a
//! throttling status, a cut stream, a frame with a bad CRC) retried.

use orbit_model::bedrock::{BedrockClient, BedrockConfig};
use orbit_model::{ModelClient, ModelError};
use orbit_protocol::{ContentBlock, StreamEvent};
use orbit_test_support::bedrock::{SECRET_ACCESS_KEY, sigv4};
use orbit_test_support::vars::lookup;
use orbit_test_support::{BedrockReply, FakeBedrock, bedrock_env};
use serde_json::json;

use super::hi_request as request;
use super::{completed_blocks, retries, run, run_ok};

fn client(server: &FakeBedrock, extra: &[(&str, &str)]) -> BedrockClient {
    let mut env = bedrock_env(server);
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    env.push(("ORBIT_RETRY_MAX_DELAY_MS".into(), "4".into()));
    client_of(&env)
}

fn client_of(env: &[(String, String)]) -> BedrockClient {
    BedrockClient::new(BedrockConfig::from_lookup(lookup(env))).unwrap()
}

/// The fake's variables without the static AWS keys, HOME at `home`.
fn keyless_env(server: &FakeBedrock, home: &std::path::Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = bedrock_env(server)
        .into_iter()
        .filter(|(k, _)| !k.starts_with("AWS_ACCESS") && !k.starts_with("AWS_SECRET"))
        .collect();
    env.push(("HOME".into(), home.display().to_string()));
    env
}

fn good() -> BedrockReply {
    BedrockReply::turn(super::recovered_turn())
}

#[tokio::test]
async fn a_signed_call_streams_the_anthropic_events() {
    let server = FakeBedrock::start(vec![good()]);
    let bedrock = client(&server, &[]);
    let events = run_ok(&bedrock, &request("claude-sonnet-4-5-20250929")).await;
    assert_eq!(
        completed_blocks(&events),
        vec![
            ContentBlock::text("recovered"),
            ContentBlock::tool_use("toolu_1", "Read", json!({"file_path": "a.txt"})),
        ]
    );
    let usage = events.iter().rev().find_map(|e| match e {
        StreamEvent::MessageDelta { usage, .. } => Some(*usage),
        _ => None,
    });
    assert_eq!(
        usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((120, 30))
    );
    let req = &server.requests()[0];
    assert_eq!(
        req.path,
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"
    );
    assert_eq!(req.body["anthropic_version"], "bedrock-2023-05-31");
    assert!(
        req.body.get("model").is_none() && req.body.get("stream").is_none(),
        "{}",
        req.body
    );
    // Only header betas (claude-code-…): no anthropic_beta in the body.
    assert!(req.body.get("anthropic_beta").is_none(), "{}", req.body);
    assert_eq!(req.header("anthropic-beta"), Some("claude-code-20250219"));
    let auth = req.header("authorization").unwrap();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDORBITTEST/")
            && auth.contains("/us-west-2/bedrock/aws4_request"),
        "{auth}"
    );
    sigv4::verify(req, SECRET_ACCESS_KEY).unwrap();
    assert!(sigv4::verify(req, "another-secret").is_err());
}

#[tokio::test]
async fn faults_are_retried_and_the_last_attempt_counts() {
    let throttled = BedrockReply::api_error(429, "throttlingException", "Too many requests");
    let mut script = super::cloud_faults(BedrockReply::turn, throttled);
    script.push(good());
    let server = FakeBedrock::start(script);
    let events = run_ok(&client(&server, &[]), &request("claude-opus-5-5")).await;
    let said: Vec<String> = retries(&events).into_iter().map(|r| r.message).collect();
    assert_eq!(said.len(), 4, "{said:?}");
    assert!(
        said[0].contains("Bedrock serviceUnavailableException: Overloaded"),
        "{said:?}"
    );
    assert!(said[1].contains("Too many requests"), "{said:?}");
    assert!(said[3].contains("CRC"), "{said:?}");
    assert_eq!(
        completed_blocks(&events)[0],
        ContentBlock::text("recovered")
    );
    // Opus 5.5 (thinking on) as Claude Code 2.1.332 sends it to Bedrock: no
    // context_management; the body's betas without claude-code-… and
    // effort-…, which stay in the header.
    let first = &server.requests()[0];
    assert!(
        first.body.get("context_management").is_none(),
        "{}",
        first.body
    );
    assert_eq!(
        first.body["anthropic_beta"],
        json!(["interleaved-thinking-2025-05-14"])
    );
    assert_eq!(
        first.header("anthropic-beta"),
        Some("claude-code-20250219,interleaved-thinking-2025-05-14,effort-2025-11-24")
    );
    for req in server.requests() {
        assert_eq!(
            req.path,
            "/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream"
        );
        sigv4::verify(&req, SECRET_ACCESS_KEY).unwrap();
    }
}

#[tokio::test]
async fn access_errors_name_what_to_check_and_bearer_tokens_replace_sigv4() {
    let server = FakeBedrock::start(vec![
        BedrockReply::api_error(
            403,
            "accessDeniedException",
            "You don't have access to the model with the specified model ID.",
        ),
        good(),
    ]);
    let (_, err) = run(&client(&server, &[]), &request("claude-opus-5-5")).await;
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains("HTTP 403") && text.contains("model access in the Bedrock console"),
        "{text}"
    );
    let bearer = client(&server, &[("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key")]);
    run_ok(&bearer, &request("claude-opus-5-5")).await;
    let req = server.requests().pop().unwrap();
    assert_eq!(req.header("authorization"), Some("Bearer bedrock-api-key"));
}

#[tokio::test]
async fn no_credentials_is_one_line_before_any_request() {
    let server = FakeBedrock::start(vec![good()]);
    let home = tempfile::tempdir().unwrap();
    let env = keyless_env(&server, home.path());
    let (_, err) = run(&client_of(&env), &request("claude-opus-5-5")).await;
    assert!(matches!(err, Some(ModelError::Config(_))), "{err:?}");
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        text,
        "no AWS credentials for Bedrock: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (~/.aws/credentials), or AWS_BEARER_TOKEN_BEDROCK"
    );
    assert_eq!(server.request_count(), 0);
    let _ = ModelClient::provider(
        &BedrockClient::new(BedrockConfig::from_lookup(|n| {
            (n == "AWS_REGION").then(|| "us-east-1".into())
        }))
        .unwrap(),
    );
}

#[tokio::test]
async fn an_sso_profile_trades_the_cached_login_for_role_credentials() {
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(aws.join("sso/cache")).unwrap();
    std::fs::write(
        aws.join("config"),
        "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Dev\n\n[sso-session corp]\nsso_region = us-east-1\nsso_start_url = https://corp.awsapps.com/start\n",
    )
    .unwrap();
    let sha1 = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, b"corp");
    let name: String = sha1.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    let cache = aws.join(format!("sso/cache/{name}.json"));
    let write_login = |expires: &str| {
        let login = json!({"accessToken": "sso-access-token", "expiresAt": expires});
        std::fs::write(&cache, login.to_string()).unwrap();
    };
    write_login("2099-01-01T00:00:00Z");
    let (url, served) = super::one_shot_http(
        r#"{"roleCredentials":{"accessKeyId":"ASIAROLE","secretAccessKey":"role-secret","sessionToken":"role-session","expiration":4102444800000}}"#,
    );
    let server = FakeBedrock::start(vec![good()]);
    let mut env = keyless_env(&server, home.path());
    env.push(("AWS_PROFILE".into(), "dev".into()));
    env.push(("AWS_ENDPOINT_URL_SSO".into(), url));
    run_ok(&client_of(&env), &request("claude-opus-5-5")).await;
    super::assert_head(
        &served.join().unwrap(),
        "GET /federation/credentials?account_id=111122223333&role_name=Dev ",
        "x-amz-sso_bearer_token: sso-access-token",
    );
    let req = &server.requests()[0];
    assert!(
        req.header("authorization")
            .unwrap()
            .contains("Credential=ASIAROLE/")
    );
    assert_eq!(req.header("x-amz-security-token"), Some("role-session"));
    sigv4::verify(req, "role-secret").unwrap();

    write_login("2001-01-01T00:00:00Z");
    let (_, err) = run(&client_of(&env), &request("claude-opus-5-5")).await;
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "AWS SSO profile `dev`: the login has expired: run `aws sso login --profile dev`"
    );
}
