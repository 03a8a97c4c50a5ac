//! Chat completions' side of the shared driver ([`crate::driver`]): each
//! SSE `data:` JSON chunk goes to the [`ChunkAssembler`]; `data: [DONE]`
//! ends the message, and so does a clean end of the body once a
//! `finish_reason` arrived (some servers send no `[DONE]`), and so does the
//! start of a second tool call when one call per reply is wanted (the body
//! is then dropped: [`Step::Cut`]); an error status
//! reads `{"error": {"message", "type"}}` (OpenAI, llama.cpp),
//! `{"error": "…"}`, `{"message": "…"}`, or the raw body.

use eventsource_stream::Event;
use serde_json::Value;

use super::chunks::ChunkAssembler;
use crate::ModelError;
use crate::driver::{Events, Step, WireDecoder};

/// Largest part of an error body quoted in an error message, in bytes.
const MAX_ERROR_BODY_BYTES: usize = 2_000;
/// Most chars of a malformed chunk quoted in the error.
const MAX_MALFORMED_CHARS: usize = 200;

impl WireDecoder for ChunkAssembler {
    fn decode(&mut self, event: &Event, out: &mut Events) -> Result<Step, ModelError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Step::Continue);
        }
        if data == "[DONE]" {
            self.finish(out);
            return Ok(Step::Stop);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            let shown: String = data.chars().take(MAX_MALFORMED_CHARS).collect();
            ModelError::Malformed(format!("{e}: {shown}"))
        })?;
        self.feed(&chunk, out)?;
        if self.cut_after_first_call() {
            self.finish(out);
            return Ok(Step::Cut);
        }
        Ok(Step::Continue)
    }

    fn end_of_body(&mut self, out: &mut Events) -> Result<(), ModelError> {
        // A clean end without `[DONE]` is fine once the choice finished.
        if !self.saw_finish() {
            return Err(ModelError::StreamCut);
        }
        self.finish(out);
        Ok(())
    }

    fn reset(&mut self) {
        ChunkAssembler::reset(self);
    }

    fn api_error(status: u16, body: &str, _url: &str) -> ModelError {
        api_error(status, body)
    }
}

/// An error status with the server's own message.
fn api_error(status: u16, body: &str) -> ModelError {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let err = &parsed["error"];
    let message = err["message"]
        .as_str()
        .or_else(|| err.as_str())
        .or_else(|| parsed["message"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| {
            let mut cut = body.trim().len().min(MAX_ERROR_BODY_BYTES);
            while !body.trim().is_char_boundary(cut) {
                cut -= 1;
            }
            let raw = &body.trim()[..cut];
            if raw.is_empty() {
                format!("HTTP {status} with an empty body")
            } else {
                raw.to_string()
            }
        });
    let error_type = err["type"]
        .as_str()
        .or_else(|| err["code"].as_str())
        .map(str::to_string);
    ModelError::Api {
        status,
        error_type,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_error_bodies() {
        let e = api_error(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        );
        assert_eq!(
            e.to_string(),
            "API error (HTTP 401, invalid_request_error): Incorrect API key provided"
        );
        let e = api_error(404, r#"{"error":"model not found"}"#);
        assert_eq!(e.to_string(), "API error (HTTP 404): model not found");
        let e = api_error(502, "bad gateway");
        assert_eq!(e.to_string(), "API error (HTTP 502): bad gateway");
        let e = api_error(500, "");
        assert_eq!(
            e.to_string(),
            "API error (HTTP 500): HTTP 500 with an empty body"
        );
    }
}
