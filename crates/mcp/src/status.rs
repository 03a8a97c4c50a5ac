//! [`McpManager::status_report`]: each server's status in the shape of the
//! Claude Agent SDK's `McpServerStatus` (what its `get_mcp_status()` /
//! `mcpServerStatus()` return): name, status, the error of a failed
//! server, its configuration without secrets (no `env`, no `headers`), and
//! the tools it offers with their annotations.

use serde_json::{Value, json};

use crate::manager::McpManager;
use crate::server::{ServerState, lock};

/// Configuration keys left out of a status: they may hold secrets.
const SECRET_CONFIG_KEYS: [&str; 2] = ["env", "headers"];

impl McpManager {
    /// One `McpServerStatus` object per server, in configuration order.
    pub fn status_report(&self) -> Vec<Value> {
        self.servers
            .iter()
            .map(|server| {
                let shared = lock(&server.shared);
                let mut config = serde_json::to_value(&server.config).unwrap_or(Value::Null);
                if let Some(map) = config.as_object_mut() {
                    for key in SECRET_CONFIG_KEYS {
                        map.remove(key);
                    }
                }
                let mut status = json!({
                    "name": server.name,
                    "status": shared.state.as_str(),
                    "config": config,
                });
                if let ServerState::Failed(why) = &shared.state {
                    status["error"] = json!(why);
                }
                if shared.state == ServerState::Connected {
                    let tools: Vec<Value> = shared
                        .tools
                        .iter()
                        .map(|tool| {
                            json!({
                                "name": tool.remote_name,
                                "description": tool.description,
                                "annotations": {
                                    "readOnly": tool.read_only,
                                    "destructive": tool.destructive,
                                },
                            })
                        })
                        .collect();
                    status["tools"] = json!(tools);
                }
                status
            })
            .collect()
    }
}
