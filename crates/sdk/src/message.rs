//! The control protocol's messages, typed both ways (the SDK's
//! `control_request`/`control_response` lines, JSON on stdin and stdout).
//!
//! In: a stdin line is an [`InboundLine`] (a user message kept whole, a
//! control request, an answer to one of orbit's requests, a withdrawn
//! request); a request body is a [`ControlRequest`], tagged by `subtype`
//! (as codex-rs's `Op`), with an [`ControlRequest::Unknown`] fallback that
//! keeps the subtype for the error answer. Out: orbit's own requests are
//! [`OutgoingRequest`]s, every answer is a [`ControlResponse`]. The bodies
//! of the SDK's answers are typed where orbit reads them
//! ([`PermissionAnswer`], [`McpAnswer`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The subtypes [`ControlRequest`] has a variant for.
const KNOWN_SUBTYPES: &[&str] = &[
    "initialize",
    "interrupt",
    "set_permission_mode",
    "set_model",
    "mcp_status",
    "get_context_usage",
    "rewind_files",
];

/// One request from the SDK (`request` of a `control_request` line).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    /// The handshake: the SDK's hooks and agents.
    Initialize(Box<InitializeRequest>),
    /// Stop the running turn.
    Interrupt {},
    /// Switch the permission mode for the calls still to come.
    SetPermissionMode {
        /// The mode's name (`default`, `acceptEdits`, …).
        #[serde(default)]
        mode: String,
    },
    /// Use another model from the next turn on.
    SetModel {
        /// The model (`None`/empty: refused).
        #[serde(default)]
        model: Option<String>,
    },
    /// The MCP servers and their state.
    McpStatus {},
    /// How full the context is.
    GetContextUsage {},
    /// Restore the files to before the prompt of a user message.
    RewindFiles {
        /// The user message's uuid.
        user_message_id: String,
        /// Only say what would change.
        #[serde(default)]
        dry_run: bool,
    },
    /// A known subtype whose fields do not parse.
    #[serde(skip)]
    Malformed {
        /// The request's subtype.
        subtype: String,
        /// Why it does not parse.
        error: String,
    },
    /// A subtype orbit does not know.
    #[serde(skip)]
    Unknown {
        /// The request's subtype (empty when it had none).
        subtype: String,
    },
}

impl ControlRequest {
    /// Reads a request body; never fails (see the fallback variants).
    pub fn parse(request: &Value) -> Self {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !KNOWN_SUBTYPES.contains(&subtype) {
            return Self::Unknown {
                subtype: subtype.to_string(),
            };
        }
        Self::deserialize(request).unwrap_or_else(|e| Self::Malformed {
            subtype: subtype.to_string(),
            error: e.to_string(),
        })
    }
}

/// The `initialize` request: the fields orbit takes, and the rest kept by
/// name (`other`) so each can be reported once.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    /// Per hook event, its matchers (`{"PreToolUse": [HookMatcher…]}`).
    #[serde(default)]
    pub hooks: Option<Map<String, Value>>,
    /// Agent definitions, by name.
    #[serde(default)]
    pub agents: Option<Map<String, Value>>,
    /// The system prompt replacing orbit's: a string or, from the
    /// TypeScript SDK, a list of strings (`[""]` when the program set none,
    /// as the Python SDK's `--system-prompt ""`).
    #[serde(default)]
    pub system_prompt: Option<Value>,
    /// Text appended to the system prompt (the `claude_code` preset's
    /// `append`).
    #[serde(default)]
    pub append_system_prompt: Option<String>,
    /// The TypeScript SDK's in-process MCP servers, by name (reached over
    /// `mcp_message` like the Python SDK's `{"type": "sdk"}` servers).
    #[serde(default)]
    pub sdk_mcp_servers: Option<Vec<String>>,
    /// Their handshake results, captured by the SDK: the first
    /// `initialize` and `tools/list` of each are answered from them
    /// (`crate::manifests`), without a control round trip.
    #[serde(default)]
    pub sdk_mcp_server_manifests: Option<Value>,
    /// The other MCP servers (`{"name": {"type": "stdio", …}}`), which the
    /// TypeScript SDK sends here rather than in `--mcp-config`.
    #[serde(default)]
    pub mcp_servers: Option<Map<String, Value>>,
    /// Settings (as `--settings`), with `settingsDelivery: 'initialize'`.
    #[serde(default)]
    pub settings: Option<Value>,
    /// Denied tools (as `--disallowedTools`).
    #[serde(default)]
    pub disallowed_tools: Option<Vec<String>>,
    /// More directories (as `--add-dir`).
    #[serde(default)]
    pub additional_directories: Option<Vec<String>>,
    /// The output schema, also given as `--json-schema`.
    #[serde(default)]
    pub json_schema: Option<Value>,
    /// Every other field, by name.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One matcher of the SDK's hook config.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct HookMatcher {
    /// The tool-name pattern (`null`: every call).
    #[serde(default)]
    pub matcher: Value,
    /// The SDK's callbacks to run.
    #[serde(default, rename = "hookCallbackIds")]
    pub hook_callback_ids: Vec<Value>,
    /// Seconds each may take.
    #[serde(default)]
    pub timeout: Value,
}

/// One stdin line, sorted by `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum InboundLine {
    /// `{"type":"user",…}`: kept whole (a replay echoes it).
    User(Value),
    /// `{"type":"control_request","request_id":…,"request":{…}}`.
    Request {
        /// The SDK's id, echoed in the answer.
        id: String,
        /// The body, untouched (see [`ControlRequest::parse`]).
        request: Value,
    },
    /// `{"type":"control_response",…}`: the SDK answering orbit.
    Response(ControlResponse),
    /// `{"type":"control_cancel_request",…}`: nothing to do.
    CancelRequest,
    /// Not JSON, or a type orbit does not take (why).
    Invalid(String),
}

impl InboundLine {
    /// Sorts one line.
    pub fn parse(line: &str) -> Self {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return Self::Invalid(format!("not JSON: {line}"));
        };
        match value.get("type").and_then(Value::as_str) {
            Some("user") => Self::User(value),
            Some("control_request") => Self::Request {
                id: str_field(&value, "request_id"),
                request: value.get("request").cloned().unwrap_or(Value::Null),
            },
            Some("control_response") => {
                let response = value.get("response").cloned().unwrap_or(Value::Null);
                Self::Response(ControlResponse::from_value(&response))
            }
            Some("control_cancel_request") => Self::CancelRequest,
            other => Self::Invalid(format!(
                "unknown message type {}",
                other.unwrap_or("(none)")
            )),
        }
    }
}

/// A `control_response` body: orbit answering the SDK, or the SDK orbit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    /// The request was carried out.
    Success {
        /// The request answered.
        request_id: String,
        /// The answer's body.
        #[serde(default)]
        response: Value,
    },
    /// The request failed.
    Error {
        /// The request answered.
        request_id: String,
        /// Why.
        #[serde(default)]
        error: String,
    },
}

impl ControlResponse {
    /// The answer to request `id`: `Ok(body)` → success, `Err(text)` → error.
    pub fn new(id: &str, answer: Result<Value, String>) -> Self {
        let request_id = id.to_string();
        match answer {
            Ok(response) => Self::Success {
                request_id,
                response,
            },
            Err(error) => Self::Error { request_id, error },
        }
    }

    /// Reads an answer; anything but a success is an error.
    fn from_value(response: &Value) -> Self {
        Self::deserialize(response).unwrap_or_else(|_| Self::Error {
            request_id: str_field(response, "request_id"),
            error: str_field(response, "error"),
        })
    }

    /// The request answered.
    pub fn request_id(&self) -> &str {
        match self {
            Self::Success { request_id, .. } | Self::Error { request_id, .. } => request_id,
        }
    }

    /// The answer as the waiting request takes it.
    pub fn into_result(self) -> Result<Value, String> {
        match self {
            Self::Success { response, .. } => Ok(response),
            Self::Error { error, .. } => Err(error),
        }
    }
}

/// orbit's own requests to the SDK.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum OutgoingRequest {
    /// The permission gate asks the SDK's `canUseTool`.
    CanUseTool {
        /// The tool asked about.
        tool_name: String,
        /// The call's input.
        input: Value,
        /// The call's id.
        tool_use_id: String,
        /// Why the call was not allowed outright.
        decision_reason: String,
        /// Permission updates the SDK's callback may pick (Claude Code's
        /// `PermissionUpdate` shapes, see `crate::suggestions`).
        permission_suggestions: Vec<Value>,
        /// The subagent making the call (Claude Code's `agent_id`); absent
        /// for the session's own calls.
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_id: Option<String>,
    },
    /// Run one of the SDK's hook callbacks.
    HookCallback {
        /// The callback's id (from `initialize`).
        callback_id: String,
        /// The hook's input.
        input: Value,
        /// The call the hook is about, if any.
        tool_use_id: Option<Value>,
    },
    /// One JSON-RPC message for an SDK MCP server.
    McpMessage {
        /// The server's name.
        server_name: String,
        /// The message.
        message: Value,
    },
}

/// The SDK's answer to `can_use_tool`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionAnswer {
    /// Run the call, maybe with a changed input.
    Allow {
        /// The input to run instead.
        #[serde(default, rename = "updatedInput")]
        updated_input: Option<Value>,
    },
    /// Refuse it; `interrupt` also ends the turn.
    Deny {
        /// Why (for the model).
        #[serde(default)]
        message: Option<String>,
        /// End the turn too.
        #[serde(default)]
        interrupt: Option<bool>,
    },
}

/// The SDK's answer to `mcp_message`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct McpAnswer {
    /// The server's JSON-RPC reply.
    pub mcp_response: Value,
}

fn str_field(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every subtype handled today parses to its variant; an unknown one
    /// keeps its name, a known one with bad fields says why.
    #[test]
    fn control_requests_parse_by_subtype() {
        let cases = [
            (
                json!({"subtype": "initialize", "hooks": null}),
                ControlRequest::Initialize(Box::default()),
            ),
            (
                json!({"subtype": "interrupt"}),
                ControlRequest::Interrupt {},
            ),
            (
                json!({"subtype": "set_permission_mode", "mode": "plan"}),
                ControlRequest::SetPermissionMode {
                    mode: "plan".into(),
                },
            ),
            (
                json!({"subtype": "set_model"}),
                ControlRequest::SetModel { model: None },
            ),
            (
                json!({"subtype": "mcp_status"}),
                ControlRequest::McpStatus {},
            ),
            (
                json!({"subtype": "get_context_usage"}),
                ControlRequest::GetContextUsage {},
            ),
            (
                json!({"subtype": "rewind_files", "user_message_id": "u"}),
                ControlRequest::RewindFiles {
                    user_message_id: "u".into(),
                    dry_run: false,
                },
            ),
            (
                json!({"subtype": "fly"}),
                ControlRequest::Unknown {
                    subtype: "fly".into(),
                },
            ),
        ];
        for (body, want) in cases {
            assert_eq!(ControlRequest::parse(&body), want, "{body}");
        }
        let bad = ControlRequest::parse(&json!({"subtype": "set_model", "model": 5}));
        assert!(matches!(bad, ControlRequest::Malformed { .. }), "{bad:?}");
    }

    /// Answers to orbit's requests: success with its body, anything else an
    /// error with its text.
    #[test]
    fn responses_carry_their_request_id() {
        let line = r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"a":1}}}"#;
        let InboundLine::Response(ok) = InboundLine::parse(line) else {
            panic!("{line}");
        };
        assert_eq!(ok.request_id(), "r1");
        assert_eq!(ok.into_result(), Ok(json!({"a": 1})));
        let line = r#"{"type":"control_response","response":{"subtype":"error","request_id":"r2","error":"no"}}"#;
        let InboundLine::Response(err) = InboundLine::parse(line) else {
            panic!("{line}");
        };
        assert_eq!(err.into_result(), Err("no".to_string()));
        assert!(matches!(InboundLine::parse("{"), InboundLine::Invalid(_)));
    }

    /// orbit's requests keep the field order the SDK has always seen.
    #[test]
    fn outgoing_requests_serialize_with_their_subtype_first() {
        let request = OutgoingRequest::McpMessage {
            server_name: "s".into(),
            message: json!({}),
        };
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"subtype":"mcp_message","server_name":"s","message":{}}"#
        );
    }
}
