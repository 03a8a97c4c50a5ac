//! Output lines of the headless CLI (`--output-format json|stream-json`),
//! shaped like the Claude Agent SDK's messages so existing consumers work.
//!
//! Every line carries `session_id` and `uuid`; `assistant` and `user` lines
//! carry the API-shaped `message` and `parent_tool_use_id` (null at top level).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, Role};
use crate::events::{PermissionDenial, ResultSubtype};
use crate::usage::Usage;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SdkMessage {
    System(SdkSystem),
    Assistant(SdkConversationMessage),
    User(SdkConversationMessage),
    Result(SdkResult),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SdkSystem {
    Init {
        cwd: String,
        session_id: String,
        tools: Vec<String>,
        mcp_servers: Vec<Value>,
        model: String,
        #[serde(rename = "permissionMode")]
        permission_mode: String,
        #[serde(rename = "apiKeySource")]
        api_key_source: String,
        output_style: String,
        uuid: String,
    },
    ApiRetry {
        attempt: u32,
        max_retries: u32,
        retry_delay_ms: u64,
        error_status: Option<u16>,
        error: String,
        session_id: String,
        uuid: String,
    },
}

/// The API-shaped message inside an `assistant`/`user` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkApiMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkConversationMessage {
    pub message: SdkApiMessage,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    pub uuid: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SdkResult {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    pub result: String,
    pub stop_reason: Option<String>,
    pub session_id: String,
    pub total_cost_usd: f64,
    pub usage: Usage,
    pub permission_denials: Vec<PermissionDenial>,
    pub errors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    pub uuid: String,
}
