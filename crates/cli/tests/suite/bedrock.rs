//! Claude on Amazon Bedrock through the binary (`CLAUDE_CODE_USE_BEDROCK=1`
//! against the fake Bedrock runtime): a three-turn session with tools whose
//! every request is SigV4-signed (recomputed here from the same
//! credentials), sent to the model's inference-profile URL, with tool
//! results and usage as with the Anthropic provider; the faults (an
//! overloaded exception frame, a throttling status, a cut stream, a frame
//! with a bad CRC) retried; the errors of a missing region or missing
//! credentials in one line, before any request.

use orbit_test_support::bedrock::{SECRET_ACCESS_KEY, sigv4};
use orbit_test_support::{BedrockReply, CapturedRequest, FakeBedrock, Turn, bedrock_env};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, run_stream_json_with_env, tool_results_text};

/// The three good turns of both cloud sessions: Read `notes`, Grep
/// `alpha`, the answer "It says alpha." (output tokens 10 + 20 + 30).
pub(super) fn notes_turns(notes: &std::path::Path) -> [Turn; 3] {
    [
        Turn::new()
            .text("Reading.")
            .tool_use("toolu_1", "Read", json!({"file_path": notes}))
            .usage(100, 10),
        Turn::new()
            .tool_use(
                "toolu_2",
                "Grep",
                json!({"pattern": "alpha", "output_mode": "content"}),
            )
            .usage(200, 20),
        Turn::new().text("It says alpha.").usage(300, 30),
    ]
}

/// Runs "What is in notes.txt?" (stream-json) with `env` and checks what
/// both cloud sessions end with: the answer after three turns, the good
/// turns' output tokens, `retries` `api_retry` lines; then checks the
/// server's requests (`requests()`: `count` of them, the Read result in
/// the second) and returns them.
pub(super) fn run_notes_session(
    scratch: &Scratch,
    env: &[(String, String)],
    requests: impl Fn() -> Vec<CapturedRequest>,
    (count, retries): (usize, usize),
) -> Vec<CapturedRequest> {
    let out = run_stream_json_with_env(scratch, env, "What is in notes.txt?", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let result = out.result();
    assert_eq!(result["result"], "It says alpha.");
    assert_eq!(result["num_turns"], 3, "{result}");
    assert_eq!(result["usage"]["output_tokens"], 60, "{result}");
    let retried = out
        .lines()
        .into_iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "api_retry")
        .count();
    assert_eq!(retried, retries, "{}", out.stdout);
    let requests = requests();
    assert_eq!(requests.len(), count);
    let read = tool_results_text(&requests[1].body);
    assert!(read.contains("1\talpha"), "{}", requests[1].body);
    requests
}

#[test]
fn a_three_turn_session_with_tools_runs_on_bedrock_signed_and_retried() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.txt", "alpha\n");
    let [read, grep, answer] = notes_turns(&notes);
    let server = FakeBedrock::start(vec![
        BedrockReply::turn(read),
        BedrockReply::turn(Turn::new().text("partial").error_after(
            3,
            "overloaded_error",
            "Overloaded",
        )),
        BedrockReply::turn(grep),
        BedrockReply::api_error(429, "throttlingException", "Too many requests, please wait"),
        BedrockReply::turn(Turn::new().text("cut").cut_after(3)),
        BedrockReply::turn(Turn::new().text("bad crc").malformed_at(2)),
        BedrockReply::turn(answer),
    ]);
    let env = bedrock_env(&server);
    let requests = run_notes_session(&scratch, &env, || server.requests(), (7, 4));
    for req in &requests {
        assert_eq!(
            req.path,
            "/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream"
        );
        assert_eq!(req.body["anthropic_version"], "bedrock-2023-05-31");
        assert!(req.body.get("model").is_none(), "{}", req.body);
        sigv4::verify(req, SECRET_ACCESS_KEY).unwrap_or_else(|e| panic!("{}: {e}", req.path));
    }
}

#[test]
fn a_missing_region_or_missing_credentials_is_one_line_before_any_request() {
    let scratch = Scratch::new();
    let server = FakeBedrock::start(vec![BedrockReply::text("never")]);
    let without = |names: &[&str]| -> Vec<(String, String)> {
        bedrock_env(&server)
            .into_iter()
            .filter(|(k, _)| !names.contains(&k.as_str()))
            .collect()
    };
    let mut cmd = orbit_with_env(&scratch, &without(&["AWS_REGION"]));
    cmd.args(["-p", "hi"]);
    run(cmd).assert_error_line(
        "orbit: error: Bedrock needs an AWS region: set AWS_REGION (e.g. us-east-1)",
    );
    let mut cmd = orbit_with_env(
        &scratch,
        &without(&["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]),
    );
    cmd.args(["-p", "hi"]);
    let out = run(cmd);
    out.one_error_line("no AWS credentials for Bedrock: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (~/.aws/credentials), or AWS_BEARER_TOKEN_BEDROCK");
    assert_eq!(server.request_count(), 0);
}

#[test]
fn a_profile_in_the_aws_credentials_file_signs_and_anthropic_model_picks_the_profile() {
    let scratch = Scratch::new();
    scratch.write_home(
        ".aws/credentials",
        "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = wrong\n[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = work-secret\n",
    );
    let server = FakeBedrock::start(vec![BedrockReply::text("ok")]);
    let mut env: Vec<(String, String)> = bedrock_env(&server)
        .into_iter()
        .filter(|(k, _)| k != "AWS_ACCESS_KEY_ID" && k != "AWS_SECRET_ACCESS_KEY")
        .collect();
    env.push(("AWS_PROFILE".into(), "work".into()));
    env.push((
        "ANTHROPIC_MODEL".into(),
        "eu.anthropic.claude-sonnet-4-5-20250929-v1:0".into(),
    ));
    let out = run_stream_json_with_env(&scratch, &env, "hi", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let req = &server.requests()[0];
    assert_eq!(
        req.path,
        "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"
    );
    assert!(
        req.header("authorization")
            .unwrap()
            .contains("Credential=AKIDWORK/")
    );
    sigv4::verify(req, "work-secret").unwrap();
}
