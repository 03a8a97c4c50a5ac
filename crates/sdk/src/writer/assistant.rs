//! The `assistant` line of the stream: one [`EngineEvent::AssistantMessage`]
//! (the session's own or a subagent's, see `subagent.rs`) becomes an
//! `SdkMessage::Assistant`, its usage counted by the writer's tracker.

use std::io::Write;

use orbit_protocol::EngineEvent;
use orbit_protocol::sdk::{SdkApiMessage, SdkMessage};

use super::StreamWriter;

impl<W: Write, E: Write> StreamWriter<W, E> {
    /// The `assistant` line of an [`EngineEvent::AssistantMessage`] (of the
    /// session or of a subagent), its usage counted; None for any other event.
    pub(super) fn assistant_line(&mut self, event: &EngineEvent) -> Option<SdkMessage> {
        let EngineEvent::AssistantMessage {
            uuid,
            message,
            message_id,
            model,
            stop_reason,
            usage,
        } = event
        else {
            return None;
        };
        self.tracker.assistant(&message.content, model, usage);
        let api = SdkApiMessage {
            id: message_id.clone(),
            kind: Some("message".to_string()),
            role: message.role,
            model: Some(model.clone()),
            content: message.content.clone(),
            stop_reason: stop_reason.clone(),
            usage: Some(*usage),
        };
        Some(SdkMessage::Assistant(self.conversation(api, uuid)))
    }
}
