//! MCP server configuration as Claude Code reads it: the
//! `{"mcpServers": {NAME: {...}}}` shape of `.mcp.json`, `--mcp-config` and
//! the settings files, and `${VAR}` / `${VAR:-default}` expansion.
//!
//! Data flow: JSON text or value → [`parse_servers`] → one [`ServerConfig`]
//! per name (not yet expanded) → [`ServerConfig::expand`] with the
//! session's variable lookup → the transport connects with it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How to reach one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ServerConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Variables added to orbit's environment for it.
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (`Authorization`, …).
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// A legacy HTTP+SSE endpoint.
    Sse {
        /// The SSE endpoint URL.
        url: String,
        /// Headers sent with every request.
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// An in-process server of the program driving orbit (the Claude
    /// Agent SDK's), reached over the control protocol
    /// ([`crate::sdk_transport`]).
    Sdk {
        /// The server's name in the SDK (the entry's key).
        #[serde(default)]
        name: String,
    },
}

/// A configuration that is not a valid `mcpServers` document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// One server's entry does not have the shape of a server.
    #[error("server `{name}`: {detail}")]
    Server {
        /// The server's name.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// The document has no `mcpServers` object.
    #[error("expected an object with an `mcpServers` object")]
    NoServers,
}

impl ServerConfig {
    /// Parses one server's entry; a missing `type` is stdio when there is a
    /// `command` (as Claude Code).
    pub fn from_value(name: &str, value: &Value) -> Result<Self, ConfigError> {
        let mut value = value.clone();
        if let Value::Object(map) = &mut value
            && !map.contains_key("type")
        {
            let kind = if map.contains_key("command") {
                "stdio"
            } else {
                "http"
            };
            map.insert("type".into(), Value::String(kind.into()));
        }
        // The SDK addresses its in-process servers by their entry's key.
        if let Value::Object(map) = &mut value
            && map.get("type").and_then(Value::as_str) == Some("sdk")
        {
            map.insert("name".into(), Value::String(name.into()));
        }
        serde_json::from_value(value).map_err(|e| ConfigError::Server {
            name: name.to_string(),
            detail: e.to_string(),
        })
    }

    /// The entry as Claude Code writes it (`type` included).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The transport's name: `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerConfig::Stdio { .. } => "stdio",
            ServerConfig::Http { .. } => "http",
            ServerConfig::Sse { .. } => "sse",
            ServerConfig::Sdk { .. } => "sdk",
        }
    }

    /// The same with `${VAR}` and `${VAR:-default}` expanded in the command,
    /// arguments, env values, URL and header values. Also returns the names
    /// of variables that were unset and had no default (left as written).
    pub fn expand(&self, lookup: &dyn Fn(&str) -> Option<String>) -> (Self, Vec<String>) {
        let mut missing = Vec::new();
        let mut ex = |s: &str| expand_vars(s, lookup, &mut missing);
        let expanded = match self {
            ServerConfig::Stdio { command, args, env } => ServerConfig::Stdio {
                command: ex(command),
                args: args.iter().map(|a| ex(a)).collect(),
                env: env.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
            },
            ServerConfig::Http { url, headers } => ServerConfig::Http {
                url: ex(url),
                headers: headers.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
            },
            ServerConfig::Sse { url, headers } => ServerConfig::Sse {
                url: ex(url),
                headers: headers.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
            },
            ServerConfig::Sdk { name } => ServerConfig::Sdk { name: name.clone() },
        };
        (expanded, missing)
    }
}

/// The servers of a `{"mcpServers": {...}}` document, in file order.
pub fn parse_servers(doc: &Value) -> Result<Vec<(String, ServerConfig)>, ConfigError> {
    let Some(Value::Object(servers)) = doc.get("mcpServers") else {
        return Err(ConfigError::NoServers);
    };
    servers
        .iter()
        .map(|(name, value)| Ok((name.clone(), ServerConfig::from_value(name, value)?)))
        .collect()
}

/// [`parse_servers`] of a JSON text.
pub fn parse_servers_text(text: &str) -> Result<Vec<(String, ServerConfig)>, ConfigError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json(e.to_string()))?;
    parse_servers(&doc)
}

/// Expands `${VAR}` and `${VAR:-default}` in `s`; an unset variable without
/// a default is left as written and its name pushed to `missing`.
pub fn expand_vars(
    s: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let body = &after[..end];
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                missing.push(name.to_string());
                out.push_str(&rest[start..start + 3 + end]);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The part of a tool or server name the model sees: characters other than
/// ASCII letters, digits, `_` and `-` become `_` (as Claude Code).
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `mcp__SERVER__TOOL`, both parts normalized.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", normalize_name(server), normalize_name(tool))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variables_expand_as_claude_code_does() {
        let lookup = |name: &str| (name == "HOME").then(|| "/home/u".to_string());
        let cases = [
            ("${HOME}/x", "/home/u/x", vec![]),
            ("${NOPE:-fallback}", "fallback", vec![]),
            ("${HOME:-unused}", "/home/u", vec![]),
            ("a${NOPE}b", "a${NOPE}b", vec!["NOPE"]),
            ("${unterminated", "${unterminated", vec![]),
            ("plain", "plain", vec![]),
        ];
        for (input, want, want_missing) in cases {
            let mut missing = Vec::new();
            assert_eq!(expand_vars(input, &lookup, &mut missing), want, "{input}");
            assert_eq!(missing, want_missing, "{input}");
        }
    }

    #[test]
    fn server_entries_parse_in_claude_codes_shapes() {
        let doc = json!({"mcpServers": {
            "a": {"command": "npx", "args": ["-y", "x"], "env": {"K": "v"}},
            "b": {"type": "http", "url": "http://h/mcp", "headers": {"Authorization": "Bearer t"}},
            "c": {"type": "sse", "url": "http://h/sse"},
            "d": {"url": "http://h/d"}
        }});
        let servers = parse_servers(&doc).unwrap();
        let kinds: Vec<_> = servers
            .iter()
            .map(|(n, s)| (n.as_str(), s.kind()))
            .collect();
        assert_eq!(
            kinds,
            [("a", "stdio"), ("b", "http"), ("c", "sse"), ("d", "http")]
        );
        let err = parse_servers(&json!({"mcpServers": {"x": {"type": "stdio"}}})).unwrap_err();
        assert!(err.to_string().contains("server `x`"), "{err}");
        assert_eq!(parse_servers(&json!({})), Err(ConfigError::NoServers));
    }

    #[test]
    fn tool_names_are_normalized() {
        assert_eq!(
            tool_name("my server", "get.file"),
            "mcp__my_server__get_file"
        );
    }
}
