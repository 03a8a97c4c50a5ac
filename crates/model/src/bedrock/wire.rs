//! Bedrock's side of the shared driver: the events of the event-stream
//! framing (`crate::eventstream`) go to the Messages API's assembler.
//! A `chunk` event's payload is `{"bytes": base64(one Messages streaming
//! event)}`; the decoded event is handed to `anthropic::sse::Assembler`
//! as if it had come over SSE. An exception frame
//! (`exception/throttlingException`, …) is a stream error of the kind
//! the retry policy knows (throttling → `rate_limit_error`, unavailable →
//! `overloaded_error`, internal/stream errors → `api_error`, retried; a
//! validation or access error is final). An error status reads Bedrock's
//! `{"message": …}` body, with a hint naming what to check.

use base64::Engine;
use eventsource_stream::Event;
use serde_json::Value;

use crate::ModelError;
use crate::cloud::{CloudDecoder, CloudWire};
use crate::driver::head;

/// Bedrock's side of the cloud decoder.
#[derive(Debug)]
pub(crate) struct BedrockWire;

/// The Bedrock decoder: chunks to the Messages assembler.
pub(crate) type BedrockDecoder = CloudDecoder<BedrockWire>;

/// The retry policy's name for a Bedrock exception.
fn error_type_of(exception: &str) -> &'static str {
    match exception {
        "throttlingException" => "rate_limit_error",
        "serviceUnavailableException" => "overloaded_error",
        "internalServerException" | "modelStreamErrorException" => "api_error",
        "accessDeniedException" => "permission_error",
        _ => "invalid_request_error",
    }
}

impl CloudWire for BedrockWire {
    fn messages_event(event: &Event) -> Result<Option<(String, String)>, ModelError> {
        if let Some(exception) = event.event.strip_prefix("exception/") {
            let message = serde_json::from_str::<Value>(&event.data)
                .ok()
                .and_then(|v| v.get("message").and_then(Value::as_str).map(String::from))
                .unwrap_or_else(|| head(&event.data));
            return Err(ModelError::StreamError {
                error_type: error_type_of(exception).to_string(),
                message: format!("Bedrock {exception}: {message}"),
            });
        }
        if event.event != "chunk" {
            return Ok(None);
        }
        let malformed = |why: &str| {
            ModelError::Malformed(format!("Bedrock chunk {why}: {}", head(&event.data)))
        };
        let payload: Value =
            serde_json::from_str(&event.data).map_err(|_| malformed("is not JSON"))?;
        let encoded = payload
            .get("bytes")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("has no bytes"))?;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| malformed("bytes are not base64"))?;
        let text = String::from_utf8_lossy(&decoded).into_owned();
        Ok(Some(("chunk".to_string(), text)))
    }

    fn api_error(status: u16, body: &str, url: &str) -> ModelError {
        let message = serde_json::from_str::<Value>(body).ok().and_then(|v| {
            v.get("message")
                .or_else(|| v.get("Message"))
                .and_then(Value::as_str)
                .map(String::from)
        });
        let hint = match status {
            400 => Some("Bedrock refused the request: check the model id (ANTHROPIC_MODEL) and its features in this region".to_string()),
            401 | 403 => Some(format!(
                "AWS refused the credentials or the account has no access to this model: check AWS_PROFILE / the keys, AWS_REGION, and model access in the Bedrock console (request went to {url})"
            )),
            404 => Some(format!(
                "no such model or inference profile in this region: check ANTHROPIC_MODEL and AWS_REGION (request went to {url})"
            )),
            _ => None,
        };
        let error_type = match status {
            429 => Some("throttlingException".to_string()),
            403 => Some("accessDeniedException".to_string()),
            _ => None,
        };
        crate::cloud::api_error_with_hint(status, error_type, message, body, hint)
    }
}
