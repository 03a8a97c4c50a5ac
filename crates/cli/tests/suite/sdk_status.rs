//! The SDK's status requests, `mcp_status` and `get_context_usage`:
//! answered in the shapes the SDKs type (`McpStatusResponse`,
//! `ContextUsageResponse`), through raw control requests on the real
//! binary's stdin and through the Python SDK's `ClaudeSDKClient`.

use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::common::{Scratch, StreamJsonChild};
use super::mcp::{config, py_stdio};
use super::sdk::sdk;

/// How long the MCP server may take to connect.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

#[test]
fn raw_control_requests_get_mcp_status_and_context_usage() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new().text("hello there").usage(1_234, 56),
    )]);
    let mcp = config(&[("py", py_stdio(json!({"SECRET_FOR_TEST": "hidden"})))]);
    let mut sdk = StreamJsonChild::spawn(&scratch, &server.env(), &["--mcp-config", &mcp]);
    // Before any turn: the estimate, by category.
    sdk.send_control("c0", "get_context_usage");
    let before = sdk.response_to("c0")["response"].clone();
    let names: Vec<&str> = before["categories"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names[..2], ["System prompt", "System tools"], "{before}");
    assert!(names.contains(&"Messages") && names.contains(&"Free space"));
    assert!(before["categories"][0]["tokens"].as_u64().unwrap() > 0);
    // The default model's window (Opus 5.5: 1M).
    assert_eq!(before["rawMaxTokens"], 1_000_000);
    assert!(
        before["systemTools"].as_array().unwrap().len() > 3,
        "{before}"
    );
    sdk.send_user("hi");
    sdk.read_until(|v| v["type"] == "result");
    // After the turn: the API's count of the context.
    sdk.send_control("c1", "get_context_usage");
    let after = sdk.response_to("c1");
    assert_eq!(after["subtype"], "success", "{after}");
    let usage = &after["response"];
    assert_eq!(usage["totalTokens"], 1_234 + 56, "{usage}");
    assert!(
        usage["model"].as_str().unwrap().starts_with("claude"),
        "{usage}"
    );
    // 1,290 of 1M tokens.
    assert!(usage["percentage"].as_f64().unwrap() > 0.12, "{usage}");
    assert_eq!(usage["isAutoCompactEnabled"], true);
    // mcp_status: polled until the server has connected.
    let started = Instant::now();
    let status = loop {
        sdk.send_control("m", "mcp_status");
        let answer = sdk.response_to("m")["response"].clone();
        let servers = answer["mcpServers"].as_array().unwrap().clone();
        assert_eq!(servers.len(), 1, "{answer}");
        if servers[0]["status"] != "pending" || started.elapsed() > CONNECT_LIMIT {
            break servers[0].clone();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status["name"], "py");
    assert_eq!(status["status"], "connected", "{status}");
    assert_eq!(status["config"]["type"], "stdio");
    assert!(status["config"].get("env").is_none(), "{status}");
    let tools = status["tools"].as_array().unwrap();
    assert!(!tools.is_empty(), "{status}");
    assert!(tools.iter().all(|t| t["name"].is_string()
        && !t["name"].as_str().unwrap().starts_with("mcp__")
        && t["annotations"]["readOnly"].is_boolean()));
    sdk.close();
    let code = sdk.child.wait().unwrap();
    assert!(code.success(), "{code}");
}

#[test]
fn the_python_sdk_reads_mcp_status_and_context_usage() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::turn(
        Turn::new().text("status checked").usage(2_000, 10),
    )]);
    let printed = sdk("status", &scratch, &server);
    let mcp = printed.of_kind("mcp_status");
    assert_eq!(mcp.len(), 1, "{}", printed.stderr);
    let servers = mcp[0]["value"]["mcpServers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{mcp:?}");
    assert_eq!(servers[0]["name"], "calc");
    assert_eq!(servers[0]["status"], "connected");
    assert_eq!(servers[0]["config"]["type"], "sdk");
    assert_eq!(servers[0]["tools"][0]["name"], "add");
    let usage = printed.of_kind("context_usage");
    let usage = &usage[0]["value"];
    assert_eq!(usage["totalTokens"], 2_010, "{usage}");
    assert!(
        usage["categories"].as_array().unwrap().len() >= 4,
        "{usage}"
    );
    let mcp_tools = usage["mcpTools"].as_array().unwrap();
    let add = mcp_tools.iter().find(|t| t["name"] == "mcp__calc__add");
    let add = add.unwrap_or_else(|| panic!("{usage}"));
    assert_eq!(add["serverName"], "calc");
    assert!(add["tokens"].as_u64().unwrap() > 0);
    // Deferred by default (DESIGN §10): listed, not loaded.
    assert_eq!(add["isLoaded"], false, "{usage}");
}
