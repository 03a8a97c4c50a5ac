//! `orbit mcp serve`'s `tools/list`, read by a raw MCP client over stdio
//! (newline-delimited JSON-RPC): each tool's `readOnlyHint` is the tool's
//! own read-only fact — true for Read, Glob, Grep and LS, false for Bash,
//! Write and Edit.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, wait_within};

/// The `tools/list` result of `orbit mcp serve`.
fn served_tools() -> Vec<Value> {
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
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}
        }}),
    );
    answer(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = answer(2);
    // End of input: the server exits.
    drop(stdin);
    wait_within(&mut child, Duration::from_secs(20));
    list["result"]["tools"].as_array().unwrap().clone()
}

#[test]
fn read_only_hints_are_the_tools_facts() {
    let tools = served_tools();
    let hint = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not served"))["annotations"]["readOnlyHint"]
            .clone()
    };
    for name in ["Read", "Glob", "Grep", "LS"] {
        assert_eq!(hint(name), json!(true), "{name}");
    }
    for name in ["Bash", "Write", "Edit"] {
        assert_eq!(hint(name), json!(false), "{name}");
    }
}
