//! The SDK's `initialize` request folded into the session's options.
//!
//! The TypeScript SDK sends much of what the Python SDK puts on the command
//! line in its `initialize` control request instead: the system prompt and
//! its append, its in-process MCP servers (`sdkMcpServers`), its other MCP
//! servers (`mcpServers`, by default), and on request the settings, the
//! denied tools and the extra directories. Data flow: `orbit_sdk::handshake`
//! reads and answers the request → [`fold`] writes each field into the
//! parsed [`Args`] as the matching flag would have → the session is built
//! from those args, so both SDKs reach the same code path: an in-process
//! server becomes an `--mcp-config` entry `{"type": "sdk"}`, exactly what
//! the Python SDK passes. The fields orbit cannot honour are listed by
//! `orbit_sdk::handshake` and reported by [`notes`].

use std::path::PathBuf;

use orbit_sdk::message::InitializeRequest;
use serde_json::{Map, Value, json};

use crate::args::Args;

/// Writes the request's fields into `args`; a field given both ways takes
/// the request's value (the SDK sends each one way only).
pub fn fold(args: &mut Args, request: &InitializeRequest) {
    if let Some(prompt) = request.system_prompt.as_ref().and_then(prompt_text) {
        args.system_prompt = Some(prompt);
        args.system_prompt_file = None;
    }
    if let Some(append) = &request.append_system_prompt {
        args.append_system_prompt = Some(append.clone());
        args.append_system_prompt_file = None;
    }
    if let Some(names) = &request.sdk_mcp_servers {
        let servers: Map<String, Value> = names
            .iter()
            .map(|name| (name.clone(), json!({"type": "sdk"})))
            .collect();
        if !servers.is_empty() {
            args.mcp_config
                .push(json!({ "mcpServers": servers }).to_string());
        }
    }
    if let Some(servers) = &request.mcp_servers
        && !servers.is_empty()
    {
        args.mcp_config
            .push(json!({ "mcpServers": servers }).to_string());
    }
    if let Some(settings) = &request.settings
        && !settings.is_null()
    {
        args.settings = Some(match settings {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
    }
    if let Some(denied) = &request.disallowed_tools {
        args.disallowed_tools.extend(denied.iter().cloned());
    }
    if let Some(dirs) = &request.additional_directories {
        args.add_dir.extend(dirs.iter().map(PathBuf::from));
    }
}

/// `systemPrompt` as one text: a string, or a list of strings joined by a
/// blank line.
fn prompt_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n\n"),
        ),
        _ => None,
    }
}

/// How long `system/init` waits for the SDK's in-process MCP servers: their
/// handshake is local (the TypeScript SDK's captured manifests) or a few
/// control round trips (the Python SDK's).
const SDK_SERVERS_WAIT_MS: u64 = 1_000;
/// How often the wait looks at their state.
const SDK_SERVERS_POLL_MS: u64 = 5;

/// Waits (at most [`SDK_SERVERS_WAIT_MS`]) until the session's `{"type":
/// "sdk"}` servers are no longer pending, then refreshes the statuses
/// `system/init` lists: like Claude Code, the program sees them
/// `connected` there. Other servers keep connecting in the background.
pub async fn settle_sdk_servers(
    args: &Args,
    mcp: Option<&orbit_mcp::McpManager>,
    statuses: &mut Vec<orbit_mcp::ServerStatus>,
) {
    let Some(mcp) = mcp else { return };
    let names = sdk_server_names(args);
    if names.is_empty() {
        return;
    }
    let pending = |mcp: &orbit_mcp::McpManager| {
        mcp.statuses()
            .iter()
            .any(|s| names.contains(&s.name) && s.state == orbit_mcp::ServerState::Pending)
    };
    let deadline =
        tokio::time::Instant::now() + std::time::Duration::from_millis(SDK_SERVERS_WAIT_MS);
    while pending(mcp) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(SDK_SERVERS_POLL_MS)).await;
    }
    *statuses = mcp.statuses();
}

/// The names of the `{"type": "sdk"}` servers among `--mcp-config`'s
/// inline JSON (the Python SDK's, and the TypeScript SDK's folded in).
fn sdk_server_names(args: &Args) -> Vec<String> {
    args.mcp_config
        .iter()
        .filter(|text| text.trim_start().starts_with('{'))
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .filter_map(|doc| doc.get("mcpServers").and_then(Value::as_object).cloned())
        .flat_map(|servers| {
            servers
                .into_iter()
                .filter(|(_, s)| s.get("type").and_then(Value::as_str) == Some("sdk"))
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One stderr note per `initialize` field orbit does not honour.
pub fn notes(not_honoured: &[String]) -> Vec<String> {
    not_honoured
        .iter()
        .map(|name| {
            format!(
                "orbit: note: the SDK's initialize field `{name}` is accepted but not honoured yet"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use orbit_sdk::ControlRequest;

    use super::*;

    fn request(body: Value) -> InitializeRequest {
        match ControlRequest::parse(&body) {
            ControlRequest::Initialize(init) => *init,
            other => panic!("{other:?}"),
        }
    }

    /// Each field lands where its flag would: the prompt, the append, the
    /// SDK servers as `{"type": "sdk"}` entries, the other servers, the
    /// settings, the denied tools and the directories.
    #[test]
    fn initialize_fields_become_the_flags_they_stand_for() {
        let mut args = Args::try_parse_from(["orbit", "--input-format", "stream-json"])
            .unwrap_or_else(|e| panic!("{e}"));
        let init = request(json!({
            "subtype": "initialize",
            "systemPrompt": ["You are a release bot.", "Be brief."],
            "appendSystemPrompt": "APPENDED",
            "sdkMcpServers": ["calc"],
            "mcpServers": {"fs": {"type": "stdio", "command": "fs-server"}},
            "settings": {"model": "opus"},
            "disallowedTools": ["Write"],
            "additionalDirectories": ["/tmp/extra"],
            "title": "my session",
        }));
        fold(&mut args, &init);
        assert_eq!(
            args.system_prompt.as_deref(),
            Some("You are a release bot.\n\nBe brief.")
        );
        assert_eq!(args.append_system_prompt.as_deref(), Some("APPENDED"));
        assert_eq!(
            args.mcp_config,
            [
                r#"{"mcpServers":{"calc":{"type":"sdk"}}}"#,
                r#"{"mcpServers":{"fs":{"type":"stdio","command":"fs-server"}}}"#,
            ]
        );
        assert_eq!(args.settings.as_deref(), Some(r#"{"model":"opus"}"#));
        assert_eq!(args.disallowed_tools, ["Write"]);
        assert_eq!(args.add_dir, [PathBuf::from("/tmp/extra")]);
        assert_eq!(
            orbit_sdk::initialize_not_honoured(&init),
            ["title".to_string()]
        );
    }
}
