//! llama.cpp's streamed prompt progress as [`crate::activity`] reports
//! (`OpenAiConfig::report_activity`, the local provider): a decoder that
//! wraps the chunk assembler, reads each chunk's `prompt_progress`
//! (`{"total", "cache", "processed", "time_ms"}`, sent when the request
//! says `return_progress: true`: one chunk when reading starts and one per
//! batch read) as [`ModelActivity::ReadingPrompt`], the first chunk with
//! content or a tool call as [`ModelActivity::Generating`], and the end of
//! the response as [`ModelActivity::Idle`]. The events it passes on are
//! the assembler's, unchanged.

use eventsource_stream::Event;
use serde_json::Value;

use super::chunks::ChunkAssembler;
use crate::ModelError;
use crate::activity::{ModelActivity, report};
use crate::driver::{Events, Step, WireDecoder};

/// The chunk assembler, reporting what the server does.
pub(super) struct Reporting(pub(super) ChunkAssembler);

/// The activity one chunk shows, if any.
fn activity_of(chunk: &Value) -> Option<ModelActivity> {
    if let Some(progress) = chunk.get("prompt_progress") {
        let field = |name: &str| progress.get(name).and_then(Value::as_u64).unwrap_or(0);
        return Some(ModelActivity::ReadingPrompt {
            processed: field("processed"),
            total: field("total"),
            cached: field("cache"),
        });
    }
    let delta = chunk.pointer("/choices/0/delta")?;
    let has = |name: &str| delta.get(name).is_some_and(|v| !v.is_null());
    (has("content") || has("tool_calls")).then_some(ModelActivity::Generating)
}

impl WireDecoder for Reporting {
    fn decode(&mut self, event: &Event, out: &mut Events) -> Result<Step, ModelError> {
        if let Ok(chunk) = serde_json::from_str::<Value>(event.data.trim())
            && let Some(activity) = activity_of(&chunk)
        {
            report(activity);
        }
        let step = self.0.decode(event, out);
        if !matches!(step, Ok(Step::Continue)) {
            report(ModelActivity::Idle);
        }
        step
    }

    fn end_of_body(&mut self, out: &mut Events) -> Result<(), ModelError> {
        report(ModelActivity::Idle);
        self.0.end_of_body(out)
    }

    fn reset(&mut self) {
        self.0.reset();
    }

    fn api_error(status: u16, body: &str, url: &str) -> ModelError {
        report(ModelActivity::Idle);
        ChunkAssembler::api_error(status, body, url)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chunks_show_reading_then_generating() {
        // As llama-server b11434 streams them with return_progress.
        let progress = json!({"choices": [{"finish_reason": null, "index": 0,
            "delta": {"role": "assistant", "content": null}}],
            "object": "chat.completion.chunk",
            "prompt_progress": {"total": 2048, "cache": 0, "processed": 512, "time_ms": 4100}});
        assert_eq!(
            activity_of(&progress),
            Some(ModelActivity::ReadingPrompt {
                processed: 512,
                total: 2048,
                cached: 0
            })
        );
        let role_only =
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]});
        assert_eq!(activity_of(&role_only), None);
        let text = json!({"choices": [{"index": 0, "delta": {"content": "4"}}]});
        assert_eq!(activity_of(&text), Some(ModelActivity::Generating));
        let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}]}}]});
        assert_eq!(activity_of(&call), Some(ModelActivity::Generating));
    }
}
