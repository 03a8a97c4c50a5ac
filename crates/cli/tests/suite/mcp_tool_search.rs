//! Deferred MCP tools end to end (see `mcp.rs` for the servers): 300 tools
//! sent by name only and loaded with ToolSearch, the real local model
//! finding one, and loaded tools surviving a compaction and a resume.

use orbit_test_support::body::{self, tool_names};
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Scratch, prompt_too_long, run_stream_json, run_stream_json_with_env};
use super::mcp::*;

/// The `tools` and `system` of a request body, serialized: what the tool
/// definitions cost.
fn fixed_bytes(body: &Value) -> usize {
    body["tools"].to_string().len() + body["system"].to_string().len()
}

/// 300 MCP tools are deferred: the request after the server connected is
/// at most 8 KB larger than a request with no MCP server; the scripted model
/// finds tools by keyword with ToolSearch, their definitions join `tools`
/// from the next request on, and it calls one. With ENABLE_TOOL_SEARCH=false
/// every definition is sent.
#[test]
fn tool_search_defers_300_tools_and_loads_them_by_keyword() {
    let baseline = {
        let scratch = Scratch::new();
        let server = calls(&[]);
        run_stream_json(&scratch, &server, "use the tools", &[]);
        fixed_bytes(&server.requests()[0].body)
    };
    let mcp = config(&[("py", py_stdio(json!({"PY_MCP_TOOLS": "300"})))]);
    let scratch = Scratch::new();
    let server = calls(&[
        // A pending server's tool: the call waits for the connection.
        ("mcp__py__add", json!({"a": 1, "b": 1})),
        ("ToolSearch", json!({"query": "stock price"})),
        ("mcp__py__tool_6", json!({"city": "Oslo"})),
    ]);
    run_with(&scratch, &server, &mcp, &[]);
    let requests = server.requests();
    let connected = &requests[1].body;
    assert!(
        fixed_bytes(connected) <= baseline + 8 * 1024,
        "{} bytes of tools and system with 300 deferred tools vs {baseline} with none",
        fixed_bytes(connected)
    );
    let search = body::tool(connected, "ToolSearch").expect("ToolSearch is offered");
    let description = search["description"].as_str().unwrap();
    // Compact: the server's tools on one line after their shared prefix.
    assert!(
        description.contains("\nmcp__py__: add, ") && description.ends_with(", tool_299"),
        "{description}"
    );
    assert!(
        !tool_names(connected)
            .iter()
            .any(|n| n.starts_with("mcp__py__tool_"))
    );
    let got = results(&server);
    assert_eq!(got[0], ("1+1=2".to_string(), false));
    assert_eq!(
        got[1].0.lines().next().unwrap(),
        "Loaded tools: mcp__py__tool_1, mcp__py__tool_6, mcp__py__tool_11, mcp__py__tool_16, mcp__py__tool_21"
    );
    assert!(got[1].0.contains(r#"<function>{"name":"mcp__py__tool_6","description":"Looks up the stock price of city number 6. Answers"#), "{}", got[1].0);
    // Loaded from the next request on, and kept.
    for request in &requests[3..] {
        let names = tool_names(&request.body);
        assert!(names.contains(&"mcp__py__tool_6".to_string()), "{names:?}");
        assert!(!names.contains(&"mcp__py__tool_2".to_string()), "{names:?}");
    }
    assert_eq!(got[2], ("stock price #6 for Oslo: fine".to_string(), false));

    // Off: all 300 definitions are sent.
    let scratch = Scratch::new();
    let server = calls(&[("mcp__py__add", json!({"a": 1, "b": 1}))]);
    let mut env = server.env();
    env.push(("ENABLE_TOOL_SEARCH".into(), "false".into()));
    let out = run_stream_json_with_env(&scratch, &env, "use the tools", &["--mcp-config", &mcp]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names = tool_names(&server.requests()[1].body);
    assert!(
        names.contains(&"mcp__py__tool_299".to_string())
            && !names.contains(&"ToolSearch".to_string())
    );
}

/// The real local model (Qwen2.5-Coder-1.5B through `orbit local`, see
/// `local_model.rs`) finds a deferred MCP tool with ToolSearch and calls it:
/// its 8192-token window defers the Python server's 20 tools at once.
#[test]
fn local_model_finds_and_calls_a_deferred_tool() {
    use super::local_model as lm;
    let _turn = lm::local_turn();
    let scratch = Scratch::new();
    let py =
        json!({"command": python(), "args": [py_script(), "stdio"], "env": {"PY_MCP_TOOLS": "20"}});
    let mcp = config(&[("py", py)]);
    // The 1.5B model sometimes answers from the loaded definitions instead
    // of calling the tool it found (seen in 2 of ~6 CI runs); a second
    // attempt in a new session is allowed, the first one's output printed.
    let timetable = [
        "mcp__py__tool_2",
        "mcp__py__tool_7",
        "mcp__py__tool_12",
        "mcp__py__tool_17",
    ];
    let attempt = || {
        let mut cmd = lm::orbit_local_cmd(&scratch);
        cmd.args([
            "-p",
            "Find the train timetable tool with ToolSearch, then call it for the city Oslo and tell me its answer.",
            "--mcp-config",
            &mcp,
            "--output-format",
            "stream-json",
            "--verbose",
            "--max-turns",
            "6",
    ]);
        let out = super::common::run(cmd);
        let calls = lm::tool_calls(&lm::lines(&out));
        let called_timetable = calls
            .iter()
            .any(|(name, _)| timetable.contains(&name.as_str()));
        (out, calls, called_timetable)
    };
    let (mut out, mut calls, called) = attempt();
    if !called {
        eprintln!(
            "attempt 1 called no timetable tool: {calls:?}\n{}",
            lm::describe(&out)
        );
        (out, calls, _) = attempt();
    }
    let lines = lm::lines(&out);
    assert!(
        calls.iter().any(|(name, input)| name == "ToolSearch"
            && input["query"]
                .as_str()
                .is_some_and(|q| q.to_lowercase().contains("train"))),
        "no ToolSearch for the timetable: {calls:?}\n{}",
        lm::describe(&out)
    );
    let called: Vec<&str> = calls
        .iter()
        .filter(|(name, _)| name.starts_with("mcp__py__tool_"))
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(
        called.iter().any(|n| timetable.contains(n)),
        "no timetable tool called: {calls:?}\n{}",
        lm::describe(&out)
    );
    let answers: Vec<String> = super::common::blocks(&lines, "user", "tool_result")
        .filter_map(|b| match &b["content"] {
            Value::String(s) => Some(s.clone()),
            other => other[0]["text"].as_str().map(str::to_string),
        })
        .collect();
    assert!(
        answers
            .iter()
            .any(|a| a.starts_with("train timetable #") && a.ends_with("for Oslo: fine")),
        "{answers:?}\n{}",
        lm::describe(&out)
    );
}

/// The tools ToolSearch loaded stay loaded when the session is continued
/// — the resumed session finds them in its history — and when a compaction
/// dropped the history that loaded them: in the same run and after a
/// resume (the compaction boundary's record keeps them).
#[test]
fn loaded_tools_survive_a_compaction_and_a_resume() {
    let mcp = config(&[("py", py_stdio(json!({"PY_MCP_TOOLS": "300"})))]);
    let loads_then = |after: Vec<Reply>| {
        let mut replies = vec![
            Reply::tool_use("toolu_0", "mcp__py__add", json!({"a": 1, "b": 1})),
            Reply::tool_use(
                "toolu_1",
                "ToolSearch",
                json!({"query": "select:mcp__py__tool_6"}),
            ),
        ];
        replies.extend(after);
        FakeAnthropic::start(replies)
    };
    let loaded_only_tool_6 = |body: &Value, case: &str| {
        let names = tool_names(body);
        assert!(
            names.contains(&"mcp__py__tool_6".to_string()),
            "{case}: {names:?}"
        );
        assert!(
            !names.contains(&"mcp__py__tool_7".to_string()),
            "{case}: {names:?}"
        );
    };
    let compacts = || {
        vec![
            prompt_too_long(),
            Reply::text("SUMMARY: tool_6 was loaded."),
            Reply::text("done"),
        ]
    };
    for (case, first_replies, compacted) in [
        ("resume", vec![Reply::text("done")], false),
        ("compaction, then resume", compacts(), true),
    ] {
        let scratch = Scratch::new();
        let first = loads_then(first_replies);
        let out = run_with(&scratch, &first, &mcp, &[]);
        assert!(
            results(&first)[1]
                .0
                .starts_with("Loaded tools: mcp__py__tool_6\n"),
            "{case}"
        );
        if compacted {
            let boundary = out
                .lines()
                .into_iter()
                .filter(|l| l["subtype"] == "compact_boundary")
                .count();
            assert_eq!(boundary, 1, "{case}: {}", out.stdout);
            // The retried request after the compaction: its history is the
            // summary, then the last call (ToolSearch) and its result kept
            // verbatim; its tools still hold tool_6.
            let retried = first.requests().pop().unwrap().body;
            let sent = retried["messages"].as_array().unwrap();
            assert_eq!(sent.len(), 3, "{case}: {sent:?}");
            assert!(sent[0].to_string().contains("<summary>"), "{case}");
            assert!(sent[1].to_string().contains("toolu_1"), "{case}");
            loaded_only_tool_6(&retried, case);
        }
        let second = calls(&[("mcp__py__add", json!({"a": 2, "b": 2}))]);
        run_with(&scratch, &second, &mcp, &["--continue"]);
        // After the server connected: tool_6 in full, the other deferred tools not.
        loaded_only_tool_6(&second.requests()[1].body, case);
    }
}
