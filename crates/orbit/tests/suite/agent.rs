//! The `Agent` facade over the real engine and client against the fake
//! Anthropic server: settings reach the request, a conversation continues,
//! a denial is reported.

use orbit::{Agent, PermissionMode, Provider, ResultSubtype};
use orbit_model::anthropic::AnthropicConfig;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

pub(super) fn agent(server: &FakeAnthropic, dir: &std::path::Path) -> orbit::AgentBuilder {
    Agent::builder()
        .provider(Provider::Anthropic(AnthropicConfig {
            base_url: server.base_url(),
            api_key: Some("k".into()),
            ..AnthropicConfig::default()
        }))
        .cwd(dir)
        .data_dir(dir.join(".orbit"))
}

#[tokio::test]
async fn settings_reach_the_request_and_the_conversation_continues() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("CLAUDE.md"), "Always answer in French.").unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("Bonjour."), Reply::text("Encore.")]);
    let mut agent = agent(&server, dir.path())
        .model("claude-haiku-4-5")
        .append_system_prompt("Be brief.")
        .build()
        .unwrap();
    assert_eq!(agent.ask("hi").await.unwrap().result, "Bonjour.");
    assert_eq!(agent.ask("again").await.unwrap().result, "Encore.");
    let bodies = server.bodies();
    assert_eq!(bodies[0]["model"], "claude-haiku-4-5");
    let system = orbit_test_support::body::system_text(&bodies[0]);
    assert!(system.contains("Always answer in French."), "{system}");
    assert!(system.ends_with("Be brief."), "{system}");
    assert_eq!(bodies[1]["messages"].as_array().unwrap().len(), 3);
    assert_eq!(agent.messages().len(), 4);
}

#[tokio::test]
async fn a_write_without_a_rule_is_denied_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_w",
            "Write",
            json!({"file_path": "x.txt", "content": "x"}),
        ),
        Reply::text("I could not write."),
    ]);
    let mut agent = agent(&server, dir.path())
        .permission_mode(PermissionMode::Default)
        .build()
        .unwrap();
    let result = agent.ask("write x").await.unwrap();
    assert_eq!(result.subtype, ResultSubtype::Success);
    assert_eq!(result.permission_denials.len(), 1);
    assert!(!dir.path().join("x.txt").exists());
    let mut allowed = agent_with_rule(&server, dir.path());
    server.push(Reply::tool_use(
        "toolu_w2",
        "Write",
        json!({"file_path": "x.txt", "content": "x"}),
    ));
    server.push(Reply::text("done"));
    assert!(
        allowed
            .ask("write x")
            .await
            .unwrap()
            .permission_denials
            .is_empty()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("x.txt")).unwrap(),
        "x"
    );
}

fn agent_with_rule(server: &FakeAnthropic, dir: &std::path::Path) -> Agent {
    agent(server, dir).allow(["Write"]).build().unwrap()
}
