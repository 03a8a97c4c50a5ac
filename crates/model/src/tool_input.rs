//! The final input of a streamed tool_use block, shared by both providers.
//!
//! Streamed input JSON that parses to an object is the input. Empty input
//! is `{}`. Anything else (cut JSON, an array, a string) is kept, not
//! replaced by `{}`: the input becomes
//! `{"__unparsedToolInput": {"raw": RAW, "len": BYTES}}` and
//! `invalid_input` carries RAW, so the engine rejects the call with an
//! error quoting what was sent, and the assistant turn sent back to the API
//! shows the model its own malformed call instead of a call with no input.

use serde_json::{Map, Value, json};

/// The key of the object that stands for input that did not parse.
pub(crate) const UNPARSED_TOOL_INPUT_KEY: &str = "__unparsedToolInput";

/// `{"__unparsedToolInput": {"raw": raw, "len": byte length of raw}}`.
pub(crate) fn unparsed_tool_input(raw: &str) -> Value {
    json!({ UNPARSED_TOOL_INPUT_KEY: {"raw": raw, "len": raw.len()} })
}

/// Streamed input text → (input object, the raw text when it did not parse
/// to a JSON object). Empty text is `{}`.
pub(crate) fn parse_tool_input(raw: &str) -> (Value, Option<String>) {
    if raw.trim().is_empty() {
        return (Value::Object(Map::new()), None);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => (v, None),
        _ => (unparsed_tool_input(raw), Some(raw.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_empty_and_unparsed_inputs() {
        let cases: [(&str, Value, Option<&str>); 5] = [
            ("", json!({}), None),
            ("  ", json!({}), None),
            (r#"{"a":1}"#, json!({"a": 1}), None),
            (
                r#"{"b":"#,
                json!({"__unparsedToolInput": {"raw": "{\"b\":", "len": 5}}),
                Some(r#"{"b":"#),
            ),
            (
                "[\"é\"]",
                json!({"__unparsedToolInput": {"raw": "[\"é\"]", "len": 6}}),
                Some("[\"é\"]"),
            ),
        ];
        for (raw, input, invalid) in cases {
            assert_eq!(
                parse_tool_input(raw),
                (input, invalid.map(String::from)),
                "{raw:?}"
            );
        }
    }
}
