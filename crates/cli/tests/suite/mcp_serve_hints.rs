//! `orbit mcp serve`'s `tools/list`, read by a raw MCP client over stdio
//! (newline-delimited JSON-RPC): each tool's `readOnlyHint` is the tool's
//! own read-only fact — true for Read, Glob, Grep and LS, false for Bash,
//! Write and Edit.

use serde_json::{Value, json};

use super::common::{McpServeClient, Scratch};

/// The `tools/list` result of `orbit mcp serve`.
fn served_tools() -> Vec<Value> {
    let scratch = Scratch::new();
    let mut server = McpServeClient::start(&scratch);
    server.initialize();
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = server.answer(2);
    // End of input: the server exits.
    server.finish();
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
