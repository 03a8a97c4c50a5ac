//! The `openai` provider through the binary (against `FakeOpenAi`) and the
//! provider precedence: `--provider` > `ORBIT_PROVIDER` > credentials in the
//! environment > `settings.json` > local.

use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, run_stream_json_with_env};

fn result_of(stdout: &str) -> serde_json::Value {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|l| l["type"] == "result")
        .unwrap_or_default()
}

#[test]
fn openai_credentials_select_the_openai_provider_and_a_tool_round_trip_works() {
    let scratch = Scratch::new();
    let file = scratch.write("notes.txt", "alpha\n");
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().tool_call(
            "call_1",
            "Read",
            json!({"file_path": file}),
        )),
        OpenAiReply::completion(Completion::new().text("It says alpha.").usage(50, 5)),
    ]);
    // No --provider: OPENAI_* in the environment choose the openai provider.
    let out = run_stream_json_with_env(&scratch, &server.env(), "What is in notes.txt?", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let result = result_of(&out.stdout);
    assert_eq!(result["result"], "It says alpha.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], "gpt-4.1");
    assert_eq!(bodies[0]["stream"], true);
    assert_eq!(bodies[0]["messages"][0]["role"], "system");
    let tool_names: Vec<_> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tool_names.contains(&"Grep".to_string()), "{tool_names:?}");
    let messages = bodies[1]["messages"].as_array().unwrap();
    let n = messages.len();
    // The client's own tool-call id (not the server's `call_1`), paired.
    let id = messages[n - 2]["tool_calls"][0]["id"].as_str().unwrap();
    assert!(id.starts_with("call_") && id != "call_1", "{id}");
    assert_eq!(
        messages[n - 1],
        json!({"role": "tool", "tool_call_id": id, "content": "1\talpha\n2\t"})
    );
    let init: serde_json::Value = serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(init["apiKeySource"], "OPENAI_API_KEY");
    assert_eq!(init["model"], "gpt-4.1");
}

#[test]
fn the_provider_flag_wins_over_the_environment() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![OpenAiReply::text("from openai")]);
    let mut env = server.env();
    env.push(("ANTHROPIC_API_KEY".into(), "k".into()));
    env.push(("ANTHROPIC_BASE_URL".into(), "http://127.0.0.1:9".into()));
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["--provider", "openai", "--model", "my-model", "-p", "hi"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "from openai");
    assert_eq!(server.bodies()[0]["model"], "my-model");
}

#[test]
fn the_settings_file_is_used_when_nothing_else_chooses() {
    let scratch = Scratch::new();
    scratch.write_home(".orbit/settings.json", r#"{"provider": "anthropic"}"#);
    let mut cmd = orbit_with_env(&scratch, &[]);
    cmd.args(["-p", "hi"]);
    let out = run(cmd);
    // settings chose anthropic (not the local model), which then needs a key.
    out.assert_error_containing("set ANTHROPIC_API_KEY");
}

#[test]
fn an_unknown_provider_is_one_error_line() {
    let scratch = Scratch::new();
    let env = [("ORBIT_PROVIDER".to_string(), "bogus".to_string())];
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi"]);
    run(cmd).assert_error_line(
        "orbit: error: ORBIT_PROVIDER: unknown provider `bogus` (expected anthropic, openai or local)",
    );
}

#[test]
fn openai_without_key_or_base_url_says_what_to_set() {
    let scratch = Scratch::new();
    let mut cmd = orbit_with_env(&scratch, &[]);
    cmd.args(["--provider", "openai", "-p", "hi"]);
    let out = run(cmd);
    out.assert_error_containing("set OPENAI_API_KEY");
}
