//! The Messages API's side of the shared driver ([`crate::driver`]): SSE
//! events go to the [`Assembler`] by their `event:` name and `data:` JSON;
//! only `message_stop` ends a message (a body that ends before it is a cut
//! stream); an error status reads the API's `{"error": {"type", "message"}}`
//! body, with a hint for the statuses a retry cannot fix.

use eventsource_stream::Event;
use serde_json::Value;

use super::sse::Assembler;
use crate::ModelError;
use crate::driver::{Events, Step, WireDecoder, head};

impl WireDecoder for Assembler {
    fn decode(&mut self, event: &Event, out: &mut Events) -> Result<Step, ModelError> {
        let step = self.handle(&event.event, &event.data)?;
        out.extend(self.take_events());
        Ok(step)
    }

    fn end_of_body(&mut self, _out: &mut Events) -> Result<(), ModelError> {
        Err(ModelError::StreamCut)
    }

    fn reset(&mut self) {
        *self = Self::default();
    }

    fn api_error(status: u16, body: &str, url: &str) -> ModelError {
        api_error(status, body, url)
    }
}

/// The API's error (its own `error.message`) plus a hint naming the likely
/// cause for statuses a retry cannot fix.
fn api_error(status: u16, text: &str, url: &str) -> ModelError {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let error = parsed.as_ref().map(|v| &v["error"]);
    let error_type = error.and_then(|e| e["type"].as_str()).map(String::from);
    let api_message = error
        .and_then(|e| e["message"].as_str())
        .map(String::from)
        .unwrap_or_else(|| {
            if text.trim().is_empty() {
                "(empty body)".into()
            } else {
                head(text)
            }
        });
    let hint = match status {
        401 => Some(
            "check the API key: ANTHROPIC_API_KEY (x-api-key) or ANTHROPIC_AUTH_TOKEN (bearer) was rejected"
                .to_string(),
        ),
        403 => Some("the API key lacks permission for this model or endpoint".to_string()),
        404 => Some(format!(
            "check the model name (--model / ANTHROPIC_MODEL) and ANTHROPIC_BASE_URL (request went to {url})"
        )),
        _ => None,
    };
    let message = match hint {
        Some(h) => format!("{api_message} ({h})"),
        None => api_message,
    };
    ModelError::Api {
        status,
        error_type,
        message,
    }
}
