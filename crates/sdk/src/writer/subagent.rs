//! A subagent's output in the parent's stream (issue 32): the `Agent`
//! tool reports each of its subagent's messages as the call's progress
//! (`orbit_tool::subagent::SUBAGENT_EVENT_KEY`); they become `assistant`
//! and `user` lines with `parent_tool_use_id` = the Agent call's id (and
//! Claude Code's `agent_id`, `subagent_type`), their usage counts in
//! `modelUsage`; the finished subagent's cost
//! (`SUBAGENT_COST_KEY`) is added to the result's `total_cost_usd`, as
//! Claude Code 2.1.332 does.

use std::io::{self, Write};

use orbit_protocol::EngineEvent;
use orbit_protocol::sdk::SdkMessage;
use orbit_tool::subagent::{SUBAGENT_COST_KEY, SUBAGENT_EVENT_KEY};
use serde_json::Value;

use super::{StreamWriter, user_api_message};

/// Whether a progress `data` is a subagent's.
pub(super) fn is_subagent(data: &Value) -> bool {
    data.get(SUBAGENT_EVENT_KEY).is_some() || data.get(SUBAGENT_COST_KEY).is_some()
}

impl<W: Write, E: Write> StreamWriter<W, E> {
    /// One subagent progress report of Agent call `tool_use_id`.
    pub(super) fn subagent(&mut self, tool_use_id: &str, data: &Value) -> io::Result<()> {
        if let Some(cost) = data.get(SUBAGENT_COST_KEY).and_then(Value::as_f64) {
            self.subagent_cost_usd += cost;
            return Ok(());
        }
        let Some(Ok(event)) = data
            .get(SUBAGENT_EVENT_KEY)
            .map(|e| serde_json::from_value::<EngineEvent>(e.clone()))
        else {
            return Ok(());
        };
        let lines = match &event {
            EngineEvent::AssistantMessage { .. } => self.assistant_lines(&event),
            EngineEvent::UserMessage { uuid, message } => {
                vec![SdkMessage::User(
                    self.conversation(user_api_message(message), uuid),
                )]
            }
            _ => return Ok(()),
        };
        if !self.stream() {
            return Ok(());
        }
        for line in lines {
            let mut line = serde_json::to_value(&line).map_err(io::Error::other)?;
            line["parent_tool_use_id"] = Value::String(tool_use_id.to_string());
            for key in ["agent_id", "subagent_type"] {
                if let Some(value) = data.get(key) {
                    line[key] = value.clone();
                }
            }
            self.line(&line)?;
        }
        Ok(())
    }
}
