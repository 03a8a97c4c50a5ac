//! Deferral by default (DESIGN §10, as Claude Code 2.1.332): with 12 real
//! `@modelcontextprotocol/server-everything` servers (npm, see `mcp.rs`)
//! the request carries none of their schemas — only their names, compact,
//! in ToolSearch's description — and grows by at most 8 KB over a request
//! with no server; a deferred tool is found with ToolSearch and called.
//! `ENABLE_TOOL_SEARCH=false` sends every definition, and `auto` keeps the
//! 10% threshold (which 12 servers' schemas do not reach).

use orbit_test_support::body::{self, tool_names};
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};

use super::common::{Scratch, run_stream_json, run_stream_json_with_env};
use super::mcp::{calls, config, npm_server, py_stdio, results, run_with};

/// How many servers the issue measured with.
const SERVERS: usize = 12;
/// The most the deferred tools may add to a request.
const MAX_GROWTH_BYTES: usize = 8 * 1024;

/// The `tools` and `system` of a request body, serialized: what tool
/// definitions and their names cost (the messages are the conversation).
fn fixed_bytes(body: &Value) -> usize {
    body["tools"].to_string().len() + body["system"].to_string().len()
}

/// `--mcp-config` with 12 server-everything servers, `everything_01`…
fn twelve_servers() -> String {
    let command = npm_server("mcp-server-everything");
    let names: Vec<String> = (1..=SERVERS)
        .map(|i| format!("everything_{i:02}"))
        .collect();
    let servers: Vec<(&str, Value)> = names
        .iter()
        .map(|n| (n.as_str(), json!({ "command": command })))
        .collect();
    config(&servers)
}

/// The request bytes of `tools` + `system` with no MCP server.
fn baseline_bytes() -> usize {
    let scratch = Scratch::new();
    let server = calls(&[]);
    let out = run_stream_json(&scratch, &server, "use the tools", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    fixed_bytes(&server.requests()[0].body)
}

#[test]
fn twelve_servers_are_deferred_and_a_found_tool_is_called() {
    let baseline = baseline_bytes();
    let mcp = twelve_servers();
    let scratch = Scratch::new();
    let server = calls(&[
        // Waits for every server, loads nothing: the next request is the
        // one with all 12 servers' tools deferred.
        ("ToolSearch", json!({"query": "select:no_such_tool"})),
        (
            "ToolSearch",
            json!({"query": "select:mcp__everything_07__echo"}),
        ),
        (
            "mcp__everything_07__echo",
            json!({"message": "hello mcp 4410"}),
        ),
        // `+word`: the word must be in the name.
        (
            "ToolSearch",
            json!({"query": "+sum everything_03", "max_results": 1}),
        ),
    ]);
    run_with(&scratch, &server, &mcp, &[]);
    let requests = server.requests();
    let connected = &requests[1].body;
    let bytes = fixed_bytes(connected);
    eprintln!(
        "tools+system: {baseline} bytes with no server, {bytes} with {SERVERS} deferred servers; whole request {} bytes",
        connected.to_string().len()
    );
    assert!(
        bytes <= baseline + MAX_GROWTH_BYTES,
        "{bytes} bytes of tools and system with {SERVERS} deferred servers vs {baseline} with none"
    );
    let names = tool_names(connected);
    assert!(names.contains(&"ToolSearch".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("mcp__")),
        "no MCP schema is sent: {names:?}"
    );
    let search = body::tool(connected, "ToolSearch").unwrap();
    let description = search["description"].as_str().unwrap();
    for i in 1..=SERVERS {
        let line = format!("\nmcp__everything_{i:02}__: echo, ");
        assert!(description.contains(&line), "{line:?} in {description}");
    }
    let got = results(&server);
    assert!(got[0].0.starts_with("No deferred tool matches"), "{got:?}");
    assert!(
        got[1]
            .0
            .starts_with("Loaded tools: mcp__everything_07__echo\n<functions>\n"),
        "{got:?}"
    );
    assert_eq!(got[2], ("Echo: hello mcp 4410".to_string(), false));
    assert!(
        got[3]
            .0
            .starts_with("Loaded tools: mcp__everything_03__get-sum\n"),
        "{got:?}"
    );
    // Loaded from the next request on; the other servers' echo stays deferred.
    let names = tool_names(&requests[3].body);
    assert!(names.contains(&"mcp__everything_07__echo".to_string()));
    assert!(!names.contains(&"mcp__everything_01__echo".to_string()));
}

/// `false` loads every schema; `auto` keeps the 10% threshold, which the
/// 12 servers' schemas do not reach (so they are all sent too).
#[test]
fn enable_tool_search_false_and_auto_send_every_schema() {
    let mcp = twelve_servers();
    for value in ["false", "auto"] {
        let scratch = Scratch::new();
        // One echo per server in one message: each call waits for its
        // server, so the next request has every server's tools.
        let mut turn = Turn::new();
        for i in 1..=SERVERS {
            turn = turn.tool_use(
                format!("toolu_{i}"),
                format!("mcp__everything_{i:02}__echo"),
                json!({ "message": format!("hi {i}") }),
            );
        }
        let server = FakeAnthropic::start(vec![Reply::turn(turn), Reply::text("done")]);
        let mut env = server.env();
        env.push(("ENABLE_TOOL_SEARCH".into(), value.into()));
        let out =
            run_stream_json_with_env(&scratch, &env, "use the tools", &["--mcp-config", &mcp]);
        assert_eq!(out.code, 0, "{value}: {}", out.stderr);
        let body = &server.requests()[1].body;
        let names = tool_names(body);
        let per_server = names
            .iter()
            .filter(|n| n.starts_with("mcp__everything_12__"))
            .count();
        assert!(per_server >= 10, "{value}: {names:?}");
        let all = names.iter().filter(|n| n.starts_with("mcp__")).count();
        assert_eq!(all, SERVERS * per_server, "{value}: {names:?}");
        assert!(
            !names.contains(&"ToolSearch".to_string()),
            "{value}: {names:?}"
        );
        eprintln!(
            "ENABLE_TOOL_SEARCH={value}: {all} MCP tools, tools+system {} bytes, whole request {} bytes",
            fixed_bytes(body),
            body.to_string().len()
        );
    }
}

/// The small-model profile (`ORBIT_SMALL_MODEL=1`, here against the fake
/// server) keeps the auto threshold: a server's few tools are sent in full,
/// where the default profile defers them. (Its ToolSearch flow past the
/// threshold runs on the real local model in
/// `mcp_tool_search::local_model_finds_and_calls_a_deferred_tool`.)
#[test]
fn the_small_model_profile_keeps_the_auto_threshold() {
    let mcp = config(&[("py", py_stdio(json!({})))]);
    for (small, deferred) in [("1", false), ("0", true)] {
        let scratch = Scratch::new();
        // The call waits for the server; the next request has its tools.
        let server = calls(&[("mcp__py__add", json!({"a": 1, "b": 2}))]);
        let mut env = server.env();
        env.push(("ORBIT_SMALL_MODEL".into(), small.into()));
        let out =
            run_stream_json_with_env(&scratch, &env, "use the tools", &["--mcp-config", &mcp]);
        assert_eq!(out.code, 0, "ORBIT_SMALL_MODEL={small}: {}", out.stderr);
        assert_eq!(results(&server)[0], ("1+2=3".to_string(), false));
        let names = tool_names(&server.requests()[1].body);
        assert_eq!(
            (
                names.contains(&"ToolSearch".to_string()),
                names.contains(&"mcp__py__add".to_string())
            ),
            (deferred, !deferred),
            "ORBIT_SMALL_MODEL={small}: {names:?}"
        );
    }
}
