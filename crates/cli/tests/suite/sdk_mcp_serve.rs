//! `orbit mcp serve` as Claude Code's `claude mcp serve` answers a raw MCP
//! client over stdio: the capabilities advertise `tools.listChanged`, and
//! a call of a tool it does not have is a JSON-RPC error (`-32603`, "Tool
//! NAME not found"), not a tool result.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, wait_within};

#[test]
fn an_unknown_tool_is_a_json_rpc_error_and_the_tool_list_may_change() {
    let scratch = Scratch::new();
    let mut child = orbit_process(&scratch, &[])
        .args(["mcp", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    let mut answer = |id: u64| -> Value {
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "server closed");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}
        }}),
    );
    let init = answer(1);
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "NoSuchTool", "arguments": {}}}));
    let call = answer(2);
    assert_eq!(call["error"]["code"], -32603, "{call}");
    assert_eq!(call["error"]["message"], "Tool NoSuchTool not found");
    assert!(call.get("result").is_none(), "{call}");
    // A known tool still answers with a result.
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "LS", "arguments": {"path": scratch.path()}}}));
    let listed = answer(3);
    assert_eq!(listed["result"]["isError"], false, "{listed}");
    drop(stdin);
    wait_within(&mut child, Duration::from_secs(20));
}
