//! In-process MCP servers of the program driving orbit (the Claude Agent
//! SDK's `create_sdk_mcp_server`, configured as `{"type": "sdk"}`): orbit is
//! their MCP client, and the wire is the control protocol — each JSON-RPC
//! message goes out as a `control_request {subtype: mcp_message,
//! server_name, message}` and the SDK's response carries the JSON-RPC reply.
//!
//! Data flow: rmcp's client runs over one end of an in-memory duplex pipe
//! (its newline-delimited JSON transport); a bridge task reads each line
//! from the other end, hands it to the session's [`SdkMcpBridge`] (the
//! front end puts it in the manager's options, `McpOptions::sdk_bridge`,
//! so each session has its own) and writes the reply back as a line. A
//! notification's acknowledgement is dropped (it has no id); a failed call
//! becomes a JSON-RPC error for its request, so the client never hangs.
//! Tests reach their own in-process MCP servers the same way (`fake`).

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Buffer of the in-memory pipe between rmcp and the bridge, in bytes.
const SDK_PIPE_BUFFER_BYTES: usize = 256 * 1024;
/// JSON-RPC's "internal error" code, for a message the bridge could not pass.
const JSONRPC_INTERNAL_ERROR: i64 = -32603;

/// Passes one JSON-RPC message to an SDK server and returns its reply.
pub trait SdkMcpBridge: Send + Sync {
    /// Sends `message` to the SDK server `server`; the JSON-RPC reply (an
    /// acknowledgement for a notification), or why there is none.
    fn send<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, String>>;
}

/// A session's bridge, shared by its servers (`McpOptions::sdk_bridge`).
#[derive(Clone)]
pub struct SharedBridge(pub Arc<dyn SdkMcpBridge>);

impl std::fmt::Debug for SharedBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedBridge")
    }
}

/// The client's end of a pipe to SDK server `server` over `bridge`, or why
/// there is none.
pub(crate) fn open(bridge: Option<&SharedBridge>, server: &str) -> Result<DuplexStream, String> {
    let bridge = bridge.map(|b| Arc::clone(&b.0)).ok_or_else(|| {
        "an `sdk` server runs inside the program driving orbit over the control protocol \
         (`--input-format stream-json`); this session has none"
            .to_string()
    })?;
    let (client, ours) = tokio::io::duplex(SDK_PIPE_BUFFER_BYTES);
    let server = server.to_string();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(ours);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let id = message.get("id").cloned();
            let reply = match (bridge.send(&server, message).await, id) {
                (_, None) => continue,
                (Ok(reply), Some(_)) => reply,
                (Err(error), Some(id)) => json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": JSONRPC_INTERNAL_ERROR, "message": error},
                }),
            };
            let mut bytes = reply.to_string().into_bytes();
            bytes.push(b'\n');
            if write.write_all(&bytes).await.is_err() {
                break;
            }
        }
    });
    Ok(client)
}

/// An in-process MCP server for tests: a bridge answering each request
/// with a function of its method and params, and a session whose one
/// `sdk` server it is.
#[cfg(test)]
pub(crate) mod fake {
    use super::*;
    use crate::{McpManager, McpOptions, ServerConfig};

    /// A bridge answering each JSON-RPC request with `answer(method,
    /// params)` as its result.
    pub(crate) struct FakeServer<F>(pub(crate) F);

    impl<F: Fn(&str, &Value) -> Value + Send + Sync> SdkMcpBridge for FakeServer<F> {
        fn send<'a>(
            &'a self,
            _server: &'a str,
            message: Value,
        ) -> BoxFuture<'a, Result<Value, String>> {
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            let method = message.get("method").and_then(Value::as_str);
            let result = (self.0)(method.unwrap_or_default(), &message["params"]);
            Box::pin(async move { Ok(json!({"jsonrpc": "2.0", "id": id, "result": result})) })
        }
    }

    /// The `initialize` result of server `name` offering `capabilities`.
    pub(crate) fn initialized(params: &Value, name: &str, capabilities: Value) -> Value {
        json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": capabilities,
            "serverInfo": {"name": name, "version": "1"},
        })
    }

    /// A session whose one server, `name`, is reached over `bridge`.
    pub(crate) fn session(name: &str, bridge: impl SdkMcpBridge + 'static) -> Arc<McpManager> {
        let mut options = McpOptions::new(std::env::temp_dir(), std::env::temp_dir());
        options.sdk_bridge = Some(SharedBridge(Arc::new(bridge)));
        let config = ServerConfig::Sdk { name: name.into() };
        McpManager::start(vec![(name.to_string(), config)], options)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::fake::{FakeServer, initialized};
    use super::*;
    use crate::{McpManager, McpOptions, ServerConfig, ServerState};

    /// A session whose `sdk` server has one tool, its description `label`.
    fn session(label: &'static str) -> Arc<McpManager> {
        let server = FakeServer(move |method: &str, params: &Value| match method {
            "initialize" => initialized(params, label, json!({"tools": {}})),
            "tools/list" => json!({"tools": [{
                "name": "who",
                "description": label,
                "inputSchema": {"type": "object"},
            }]}),
            _ => json!({}),
        });
        super::fake::session("s", server)
    }

    /// Two sessions in one process, each with its own bridge: each
    /// session's `sdk` server is reached over its own.
    #[tokio::test]
    async fn each_session_reaches_its_sdk_servers_over_its_own_bridge() {
        let (a, b) = (session("bridge A"), session("bridge B"));
        for (manager, label) in [(&a, "bridge A"), (&b, "bridge B")] {
            manager.wait_settled(Duration::from_secs(10)).await;
            assert_eq!(manager.statuses()[0].state, ServerState::Connected);
            let report = manager.status_report();
            assert_eq!(report[0]["tools"][0]["description"], label, "{report:?}");
        }
        // Without a bridge: a clear connect error, not a hang.
        let options = McpOptions::new(std::env::temp_dir(), std::env::temp_dir());
        let servers = vec![("s".to_string(), ServerConfig::Sdk { name: "s".into() })];
        let none = McpManager::start(servers, options);
        none.wait_settled(Duration::from_secs(10)).await;
        let status = &none.statuses()[0].state;
        assert!(
            matches!(status, ServerState::Failed(why) if why.contains("control protocol")),
            "{status:?}"
        );
    }
}
