//! In-process MCP servers of the program driving orbit (the Claude Agent
//! SDK's `create_sdk_mcp_server`, configured as `{"type": "sdk"}`): orbit is
//! their MCP client, and the wire is the control protocol — each JSON-RPC
//! message goes out as a `control_request {subtype: mcp_message,
//! server_name, message}` and the SDK's response carries the JSON-RPC reply.
//!
//! Data flow: rmcp's client runs over one end of an in-memory duplex pipe
//! (its newline-delimited JSON transport); a bridge task reads each line
//! from the other end, hands it to the [`SdkMcpBridge`] the front end
//! installed ([`set_bridge`]) and writes the reply back as a line. A
//! notification's acknowledgement is dropped (it has no id); a failed call
//! becomes a JSON-RPC error for its request, so the client never hangs.

use std::sync::{Arc, OnceLock};

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

static BRIDGE: OnceLock<Arc<dyn SdkMcpBridge>> = OnceLock::new();

/// Installs the process's bridge (the SDK session's control protocol);
/// false when one was installed already.
pub fn set_bridge(bridge: Arc<dyn SdkMcpBridge>) -> bool {
    BRIDGE.set(bridge).is_ok()
}

/// The client's end of a pipe to SDK server `server`, or why there is none.
pub(crate) fn open(server: &str) -> Result<DuplexStream, String> {
    let bridge = BRIDGE.get().cloned().ok_or_else(|| {
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
