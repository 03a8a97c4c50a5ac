//! WebSearch (issue 35; DESIGN §11), through the binary: with the
//! Anthropic provider the tool's own Messages request offers the
//! server-side `web_search_20250305` tool (domain filters passed) and the
//! `pause_turn` continuation sends the server blocks back unchanged; with
//! the OpenAI provider a SearXNG-shaped backend answers (domain filters
//! applied by orbit, its key kept from Bash); no backend is one line;
//! `WebSearch` rules and plan mode decide as for WebFetch.

use orbit_test_support::anthropic::side::{SEARCH_SUMMARY, SEARCH_TOOL_USE_ID, SearchHit};
use orbit_test_support::search::FakeSearxng;
use orbit_test_support::{FakeAnthropic, FakeOpenAi, Reply};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_with_env, tool_results_text};
use super::harness::{assert_contains, run_ok};
use super::small_model::{call, text};

const REMINDER: &str = "\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.";

fn hits() -> Vec<SearchHit> {
    vec![
        SearchHit::new("Example A", "https://example.com/a"),
        SearchHit::new("Docs B", "https://docs.example.org/b"),
        SearchHit::new("Sub C", "https://sub.example.com/c"),
        SearchHit::new("Evil D", "https://www.evil.net/d"),
    ]
}

/// `orbit -p` against a fake Messages API whose model calls WebSearch
/// with `input`; returns the server and what the tool said.
fn anthropic_search(input: Value, flags: &[&str]) -> (FakeAnthropic, String) {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "WebSearch", input),
        Reply::text("done"),
    ]);
    server.serve_side_requests(hits());
    let scratch = Scratch::new();
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "look it up"]).args(flags);
    run_ok(cmd);
    let said = tool_results_text(&server.requests()[1].body);
    (server, said)
}

#[test]
fn anthropic_server_side_search_round_trip() {
    let input = json!({"query": "orbit agent", "allowed_domains": ["example.com"]});
    let (server, said) = anthropic_search(input, &["--allowedTools", "WebSearch"]);
    let side = server.side_requests();
    assert_eq!(
        side.len(),
        2,
        "the search, then its pause_turn continuation"
    );
    let first = &side[0].body;
    assert_eq!(
        first["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 8,
                "allowed_domains": ["example.com"]}])
    );
    assert_eq!(first["tool_choice"], json!({"type": "auto"}));
    assert_eq!(first["stream"], false);
    assert!(
        first["model"]
            .as_str()
            .unwrap_or_default()
            .contains("haiku")
    );
    assert_eq!(
        first["messages"][0]["content"][0]["text"],
        "Perform a web search for the query: orbit agent"
    );
    // The continuation keeps the server's blocks as they came.
    let second = &side[1].body;
    assert_eq!(second["messages"][0], first["messages"][0]);
    let kept = &second["messages"][1];
    assert_eq!(kept["role"], "assistant");
    assert_eq!(kept["content"][1]["type"], "server_tool_use");
    assert_eq!(kept["content"][1]["id"], SEARCH_TOOL_USE_ID);
    assert_eq!(kept["content"][2]["type"], "web_search_tool_result");
    assert_eq!(kept["content"][2]["tool_use_id"], SEARCH_TOOL_USE_ID);
    assert_eq!(
        kept["content"][2]["content"][0]["encrypted_content"],
        "ZmFrZQ=="
    );
    // Claude Code's result text.
    assert_eq!(
        said,
        format!(
            "Web search results for query: \"orbit agent\"\n\nI'll search the web.\n\nLinks: [{{\"title\":\"Example A\",\"url\":\"https://example.com/a\"}},{{\"title\":\"Sub C\",\"url\":\"https://sub.example.com/c\"}}]\n\n{SEARCH_SUMMARY}{REMINDER}"
        )
    );
}

#[test]
fn blocked_domains_reach_the_server_tool_and_both_filters_are_refused() {
    let input = json!({"query": "orbit agent", "blocked_domains": ["evil.net"]});
    let (server, said) = anthropic_search(input, &["--allowedTools", "WebSearch"]);
    let tool = &server.side_requests()[0].body["tools"][0];
    assert_eq!(tool["blocked_domains"], json!(["evil.net"]));
    assert!(tool.get("allowed_domains").is_none());
    assert!(
        said.contains("docs.example.org") && !said.contains("evil.net"),
        "{said}"
    );
    let both = json!({"query": "q q", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]});
    let (server, said) = anthropic_search(both, &["--allowedTools", "WebSearch"]);
    assert!(server.side_requests().is_empty());
    assert!(
        said.contains(
            "Cannot specify both allowed_domains and blocked_domains in the same request"
        ),
        "{said}"
    );
}

/// The tool message's text in an OpenAI request body.
fn openai_tool_text(body: &Value, n: usize) -> String {
    let tools: Vec<&Value> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .collect();
    tools.get(n).map_or_else(String::new, |m| {
        m["content"].as_str().unwrap_or_default().to_string()
    })
}

#[test]
fn searxng_backend_with_the_openai_provider() {
    let searx = FakeSearxng::start(hits());
    let server = FakeOpenAi::start(vec![
        call(
            "call_1",
            "WebSearch",
            json!({"query": "rust async", "blocked_domains": ["evil.net"]}),
        ),
        call(
            "call_2",
            "Bash",
            json!({"command": "echo \"key=[$ORBIT_WEBSEARCH_API_KEY]\""}),
        ),
        text("done"),
    ]);
    let scratch = Scratch::new();
    let mut vars = server.env();
    vars.extend([
        ("ORBIT_WEBSEARCH_BACKEND".to_string(), "searxng".to_string()),
        ("ORBIT_WEBSEARCH_URL".to_string(), searx.base_url()),
        (
            "ORBIT_WEBSEARCH_API_KEY".to_string(),
            "search-secret-77".to_string(),
        ),
    ]);
    let mut cmd = orbit_with_env(&scratch, &vars);
    cmd.args(["-p", "look it up", "--provider", "openai"])
        .args([
            "--allowedTools",
            "WebSearch",
            "--allowedTools",
            "Bash(echo:*)",
        ]);
    run_ok(cmd);
    let asked = searx.requests();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .path
            .starts_with("/search?q=rust+async&format=json"),
        "{}",
        asked[0].path
    );
    let bodies = server.bodies();
    let said = openai_tool_text(&bodies[1], 0);
    assert!(said.starts_with("Web search results for query: \"rust async\"\n\nLinks: [{\"title\":\"Example A\",\"url\":\"https://example.com/a\"},"), "{said}");
    assert!(said.contains("- Docs B: About Docs B."), "snippets: {said}");
    assert!(!said.contains("evil.net"), "blocked: {said}");
    assert!(said.ends_with(REMINDER), "{said}");
    let echoed = openai_tool_text(&bodies[2], 1);
    assert!(
        echoed.contains("key=[]"),
        "the key is kept from Bash: {echoed}"
    );
}

#[test]
fn without_a_backend_the_openai_provider_says_how_to_set_one() {
    let server = FakeOpenAi::start(vec![
        call("call_1", "WebSearch", json!({"query": "rust async"})),
        text("done"),
    ]);
    let scratch = Scratch::new();
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "look it up", "--allowedTools", "WebSearch"]);
    run_ok(cmd);
    let said = openai_tool_text(&server.bodies()[1], 0);
    assert_contains(
        &said,
        "WebSearch is not available: the openai provider has no web search; set ORBIT_WEBSEARCH_BACKEND",
    );
    assert_eq!(said.lines().count(), 1, "{said}");
}

#[test]
fn websearch_rules_and_plan_mode_decide() {
    let input = json!({"query": "orbit agent"});
    // Headless with no rule: the ask is a denial; no search is made.
    let (server, said) = anthropic_search(input.clone(), &[]);
    assert!(server.side_requests().is_empty(), "{said}");
    // A deny rule wins even when permissions are skipped.
    let (server, said) = anthropic_search(
        input.clone(),
        &[
            "--dangerously-skip-permissions",
            "--disallowedTools",
            "WebSearch",
        ],
    );
    assert!(server.side_requests().is_empty(), "{said}");
    // Plan mode lets the read-only search run with its rule.
    let (server, said) = anthropic_search(
        input,
        &["--permission-mode", "plan", "--allowedTools", "WebSearch"],
    );
    assert_eq!(server.side_requests().len(), 2, "{said}");
    assert!(said.starts_with("Web search results for query"), "{said}");
}
