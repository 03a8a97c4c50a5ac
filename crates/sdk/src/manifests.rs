//! The TypeScript SDK's `sdkMcpServerManifests`: the handshake results of
//! its in-process MCP servers, captured by the SDK before `initialize` so
//! the CLI need not ask for them over the control channel.
//!
//! Data flow: the handshake parks each manifest of a server named in
//! `sdkMcpServers` ([`Manifests::park`]) → when orbit's MCP client talks
//! to that server through the bridge ([`crate::Control`]'s
//! `SdkMcpBridge::send`), its first `initialize` (asking for the captured
//! protocol version or a newer one, which the server answers with the
//! captured one) and its first `tools/list` are answered here, and the
//! `notifications/initialized` after a local `initialize` is not sent; every
//! other message (`tools/call`, …) goes to the SDK as before. A manifest is
//! used once and only for the connect that follows `initialize`, as Claude
//! Code does; without one (the Python SDK) nothing changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

/// One server's captured handshake, consumed as it is used.
#[derive(Debug, Default)]
struct Parked {
    initialize: Option<Value>,
    tools_list: Option<Value>,
    /// `initialize` was answered here: skip `notifications/initialized`.
    answered_initialize: bool,
}

/// The parked manifests of one session, by server name.
#[derive(Clone, Default)]
pub struct Manifests(Arc<Mutex<HashMap<String, Parked>>>);

impl Manifests {
    /// Parks the manifests of the servers in `names`; returns the
    /// `sdk_mcp_manifests_parked` answer (`{name: "parked"}`).
    pub fn park(&self, manifests: Option<&Value>, names: &[String]) -> Map<String, Value> {
        let mut answer = Map::new();
        let Some(Value::Object(manifests)) = manifests else {
            return answer;
        };
        let mut parked = lock(&self.0);
        for (name, manifest) in manifests {
            let initialize = manifest.get("initializeResult").filter(|v| v.is_object());
            if !names.contains(name) || initialize.is_none() {
                continue;
            }
            parked.insert(
                name.clone(),
                Parked {
                    initialize: initialize.cloned(),
                    tools_list: manifest.get("toolsListResult").cloned(),
                    answered_initialize: false,
                },
            );
            answer.insert(name.clone(), json!("parked"));
        }
        answer
    }

    /// The reply to `message` for `server` from its manifest, when there is
    /// one: `Some(Value::Null)` for a notification not to send.
    pub fn answer(&self, server: &str, message: &Value) -> Option<Value> {
        let mut parked = lock(&self.0);
        let entry = parked.get_mut(server)?;
        let id = message.get("id").cloned();
        match message.get("method").and_then(Value::as_str)? {
            "initialize" => {
                let result = entry.initialize.take()?;
                // A server answers a version it does not know with its
                // latest, the captured one: a request for the captured
                // version or a newer one gets the captured answer. An
                // older one may get another: the full handshake then.
                let wanted = message
                    .pointer("/params/protocolVersion")
                    .and_then(Value::as_str);
                let captured = result.get("protocolVersion").and_then(Value::as_str);
                if !matches!((wanted, captured), (Some(w), Some(c)) if w >= c) {
                    entry.tools_list = None;
                    return None;
                }
                entry.answered_initialize = true;
                Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
            "notifications/initialized" if entry.answered_initialize => {
                entry.answered_initialize = false;
                Some(Value::Null)
            }
            "tools/list" if message.pointer("/params/cursor").is_none() => {
                let result = entry.tools_list.take()?;
                Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
            _ => None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Value {
        json!({"calc": {
            "initializeResult": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}},
            "toolsListResult": {"tools": [{"name": "add"}]},
        }, "other": {"initializeResult": {}}})
    }

    /// A named server's handshake is answered once from its manifest; a
    /// server not named, a second connect or another version goes to the SDK.
    #[test]
    fn a_parked_manifest_answers_the_first_handshake_once() {
        let manifests = Manifests::default();
        let parked = manifests.park(Some(&manifest()), &["calc".to_string()]);
        assert_eq!(Value::Object(parked), json!({"calc": "parked"}));
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25"}});
        let reply = manifests.answer("calc", &init).unwrap_or_default();
        assert_eq!(reply["result"]["capabilities"], json!({"tools": {}}));
        assert_eq!(reply["id"], 0);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(manifests.answer("calc", &note), Some(Value::Null));
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let tools = manifests.answer("calc", &list).unwrap_or_default();
        assert_eq!(tools["result"]["tools"][0]["name"], "add");
        // Used once: a reconnect handshakes over the control channel.
        assert_eq!(manifests.answer("calc", &init), None);
        assert_eq!(manifests.answer("calc", &list), None);
        assert_eq!(manifests.answer("other", &init), None);
        // A newer version gets the captured answer; an older one none.
        let newer = Manifests::default();
        newer.park(Some(&manifest()), &["calc".to_string()]);
        let new =
            json!({"id": 0, "method": "initialize", "params": {"protocolVersion": "2026-07-28"}});
        assert!(newer.answer("calc", &new).is_some());
        let again = Manifests::default();
        again.park(Some(&manifest()), &["calc".to_string()]);
        let old =
            json!({"id": 0, "method": "initialize", "params": {"protocolVersion": "2024-11-05"}});
        assert_eq!(again.answer("calc", &old), None);
        assert_eq!(again.answer("calc", &list), None);
    }
}
