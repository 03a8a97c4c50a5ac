//! Both resource tools through the manager's tool list against an
//! in-process MCP server (an SDK bridge answering the JSON-RPC): what
//! each says of itself, its facts, the unknown-server check, and what
//! the model receives for text, binary and listed resources.

use std::time::Duration;

use orbit_protocol::ToolResultContent;
use orbit_tool::{CallContext, CallFacts, Tool, ToolSource, ToolUseContext};
use serde_json::{Value, json};

use crate::sdk_transport::fake::{FakeServer, initialized, session};

/// An MCP server with two resources: a text note and a PNG.
fn docs(method: &str, params: &Value) -> Value {
    match method {
        "initialize" => initialized(params, "docs", json!({"tools": {}, "resources": {}})),
        "tools/list" => json!({"tools": []}),
        "resources/list" => json!({"resources": [
            {"uri": "note://a", "name": "a", "mimeType": "text/plain"},
            {"uri": "img://b", "name": "b", "mimeType": "image/png"},
        ]}),
        "resources/read" => match params["uri"].as_str() {
            Some("note://a") => json!({"contents": [{"uri": "note://a", "text": "hello"}]}),
            _ => json!({"contents": [
                {"uri": "img://b", "mimeType": "image/png", "blob": "AA=="},
            ]}),
        },
        _ => json!({}),
    }
}

/// `ListMcpResources`' answer: every resource, with its server.
const LISTED: &str = r#"[{"uri":"note://a","name":"a","mimeType":"text/plain","server":"docs"},{"uri":"img://b","name":"b","mimeType":"image/png","server":"docs"}]"#;

/// (tool, input, what the call is about, what the model receives)
type Case<'a> = (&'a dyn Tool, Value, &'a str, Result<&'a str, &'a str>);

/// The facts of a call of `tool` with `input`, and what the call gives
/// the model: its text, or the refusal's.
async fn run(tool: &dyn Tool, input: Value) -> (CallFacts, Result<String, String>) {
    let ctx = ToolUseContext::new("s", std::env::temp_dir(), std::env::temp_dir());
    let mut call = tool.parse(input, &ctx).unwrap();
    let facts = call.facts().clone();
    if let Err(e) = call.validate(&ctx).await {
        return (facts, Err(e.to_string()));
    }
    let out = call.call(&ctx, &CallContext::detached("t")).await;
    let text = out.map(|out| match out.content {
        ToolResultContent::Text(text) => text,
        other => panic!("{other:?}"),
    });
    (facts, text.map_err(|e| e.to_string()))
}

#[tokio::test]
async fn the_resource_tools_list_and_read_the_servers_resources() {
    let manager = session("docs", FakeServer(docs));
    manager.wait_settled(Duration::from_secs(10)).await;
    let tools = manager.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["ListMcpResources", "ReadMcpResource"]);
    let (list, read) = (&*tools[0], &*tools[1]);
    assert!(list.should_defer() && read.should_defer());
    assert_eq!(
        list.description(),
        "Lists the resources of the connected MCP servers (all, or one `server`'s) as JSON: uri, name, mimeType, server."
    );
    assert_eq!(
        read.description(),
        "Reads one resource (`uri`) of an MCP `server`; text contents are returned as they are."
    );

    let cases: [Case<'_>; 6] = [
        (list, json!({}), "", Ok(LISTED)),
        (list, json!({"server": "docs"}), "docs", Ok(LISTED)),
        (
            list,
            json!({"server": "nope"}),
            "nope",
            Err(r#"No MCP server named "nope""#),
        ),
        (
            read,
            json!({"server": "docs", "uri": "note://a"}),
            "note://a",
            Ok("hello"),
        ),
        (
            read,
            json!({"server": "docs", "uri": "img://b"}),
            "img://b",
            Ok("[Resource img://b (image/png): binary content not shown]"),
        ),
        (
            read,
            json!({"server": "nope", "uri": "note://a"}),
            "note://a",
            Err(r#"No MCP server named "nope""#),
        ),
    ];
    for (tool, input, about, want) in cases {
        let (facts, got) = run(tool, input.clone()).await;
        assert_eq!(facts.subject, about, "{input}");
        assert!(facts.read_only && facts.concurrency_safe, "{input}");
        assert_eq!(got.as_deref().map_err(String::as_str), want, "{input}");
    }
}
