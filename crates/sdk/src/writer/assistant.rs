//! The `assistant` lines of the stream: one [`EngineEvent::AssistantMessage`]
//! (the session's own or a subagent's, see `subagent.rs`) becomes one
//! `SdkMessage::Assistant` per content block, as Claude Code 2.1.332 writes
//! them (observed: a reply of text then tool_use is two `assistant` lines of
//! the same message id, `stop_reason` null on each; the result line carries
//! the turn's stop reason). The first keeps the history entry's uuid, the
//! others get their own. Its usage is counted once by the writer's tracker.

use std::io::Write;

use orbit_protocol::sdk::{SdkApiMessage, SdkMessage};
use orbit_protocol::{ContentBlock, EngineEvent};

use super::{StreamWriter, new_uuid};

impl<W: Write, E: Write> StreamWriter<W, E> {
    /// The `assistant` lines of an [`EngineEvent::AssistantMessage`] (of the
    /// session or of a subagent), its usage counted; empty for any other
    /// event.
    pub(super) fn assistant_lines(&mut self, event: &EngineEvent) -> Vec<SdkMessage> {
        let EngineEvent::AssistantMessage {
            uuid,
            message,
            message_id,
            model,
            stop_reason: _,
            usage,
        } = event
        else {
            return Vec::new();
        };
        self.tracker.assistant(&message.content, model, usage);
        let line = |content: Vec<ContentBlock>, uuid: &str| {
            let api = SdkApiMessage {
                id: message_id.clone(),
                kind: Some("message".to_string()),
                role: message.role,
                model: Some(model.clone()),
                content,
                stop_reason: None,
                usage: Some(*usage),
            };
            SdkMessage::Assistant(self.conversation(api, uuid))
        };
        if message.content.is_empty() {
            return vec![line(Vec::new(), uuid)];
        }
        message
            .content
            .iter()
            .enumerate()
            .map(|(i, block)| {
                let block = vec![block.clone()];
                if i == 0 {
                    line(block, uuid)
                } else {
                    line(block, &new_uuid())
                }
            })
            .collect()
    }
}
