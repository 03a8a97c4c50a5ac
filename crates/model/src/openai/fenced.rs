//! Fenced-JSON tool-call recovery for OpenAI-compatible providers.
//!
//! Small local models (Qwen2.5-Coder 1.5B under llama.cpp, for one) often
//! write a tool call as plain text instead of a structured `tool_calls`
//! delta:
//!
//! ````text
//! I will read the file.
//! ```json
//! {"name": "Read", "arguments": {"file_path": "config.txt"}}
//! ```
//! ````
//!
//! When recovery is switched on (`OpenAiConfig::fenced_tool_recovery`: on for
//! the `local` provider, off by default elsewhere), an assistant text that
//! *ends with* one or more such blocks, each naming a tool offered in the
//! request, is turned into tool calls; the text before the first block stays
//! a text block. Also accepted: Qwen's own `<tool_call>{…}</tool_call>` tags,
//! a whole answer that is nothing but such a JSON object, and a final fence
//! whose closing ``` was lost (a known failure of these models). A JSON block
//! that names no offered tool, or that is followed by more prose, stays text
//! (a JSON example in an answer is not a call).
//!
//! The decision needs the whole text, so the stream assembler holds back the
//! text from the first possible marker (``` / `<tool_call>` / a leading `{`)
//! until the message ends ([`hold_from`]); prose before it streams as usual.

use serde_json::{Map, Value};

/// Markers after which text is held back while recovery is on.
const MARKERS: [&str; 2] = ["```", "<tool_call>"];

/// One tool call recovered from text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RecoveredCall {
    /// The tool's name.
    pub name: String,
    /// Always a JSON object.
    pub arguments: Value,
}

/// The text split into what stays text and the calls at its end.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Recovered {
    /// The text before the first recovered block, trailing whitespace removed.
    pub text: String,
    /// The recovered calls, in order.
    pub calls: Vec<RecoveredCall>,
}

/// Byte offset from which `text` must be held back because it may turn out
/// to be a tool call: the first marker, a trailing partial marker, or 0 when
/// the text (so far) starts with `{`. Returns `text.len()` when nothing needs
/// holding. Always a char boundary (markers are ASCII).
pub(super) fn hold_from(text: &str) -> usize {
    if text.trim_start().starts_with('{') {
        return 0;
    }
    let mut cut = text.len();
    for marker in MARKERS {
        if let Some(pos) = text.find(marker) {
            cut = cut.min(pos);
        }
        // A suffix that may grow into the marker with the next delta.
        for len in (1..marker.len()).rev() {
            if text.ends_with(&marker[..len]) {
                cut = cut.min(text.len() - len);
                break;
            }
        }
    }
    cut
}

/// Recovers the tool calls at the end of `text`, if any; `known` are the
/// names of the tools offered in the request. None when the text is not (or
/// does not end with) a call of a known tool.
pub(super) fn recover(text: &str, known: &[String]) -> Option<Recovered> {
    if known.is_empty() {
        return None;
    }
    let trimmed = text.trim();
    // A bare JSON object as the whole answer.
    if trimmed.starts_with('{')
        && let Some(call) = parse_call(trimmed, known)
    {
        return Some(Recovered {
            text: String::new(),
            calls: vec![call],
        });
    }
    let mut rest = text.trim_end();
    let mut calls = Vec::new();
    while let Some((before, call)) = pop_last_block(rest, known) {
        calls.push(call);
        rest = before.trim_end();
    }
    if calls.is_empty() {
        return None;
    }
    calls.reverse();
    Some(Recovered {
        text: rest.to_string(),
        calls,
    })
}

/// Splits off the last block of `text` (which ends with it) when it is a
/// call of a known tool: returns the text before the block and the call.
fn pop_last_block<'a>(text: &'a str, known: &[String]) -> Option<(&'a str, RecoveredCall)> {
    if let Some(body) = text.strip_suffix("</tool_call>") {
        let open = body.rfind("<tool_call>")?;
        let call = parse_call(body[open + "<tool_call>".len()..].trim(), known)?;
        return Some((&text[..open], call));
    }
    if let Some(body) = text.strip_suffix("```") {
        // A closed fence: the opening fence is the last ``` before the end.
        let open = body.rfind("```")?;
        let call = parse_fence_body(&body[open + 3..], known)?;
        return Some((&text[..open], call));
    }
    // The closing fence may be lost: an opening fence whose body is a call
    // that runs to the end of the text.
    let open = text.rfind("```")?;
    let call = parse_fence_body(&text[open + 3..], known)?;
    Some((&text[..open], call))
}

/// The inside of a fence: an optional `json` info string, then the object.
fn parse_fence_body(body: &str, known: &[String]) -> Option<RecoveredCall> {
    let body = body.trim_start_matches([' ', '\t']);
    let body = body
        .strip_prefix("json")
        .or_else(|| body.strip_prefix("JSON"))
        .unwrap_or(body);
    let body = body.trim();
    if !body.starts_with('{') {
        return None;
    }
    parse_call(body, known)
}

/// `{"name": KNOWN, "arguments": {…}}` (also `parameters` / `input`, and
/// arguments given as a JSON string) → a call.
fn parse_call(json: &str, known: &[String]) -> Option<RecoveredCall> {
    let obj = crate::tolerant_json::parse_object(json).ok()?;
    let name = obj.get("name")?.as_str()?;
    if !known.iter().any(|k| k == name) {
        return None;
    }
    let raw = ["arguments", "parameters", "input"]
        .iter()
        .find_map(|k| obj.get(*k))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let arguments = match raw {
        Value::Object(_) => raw,
        Value::String(s) => Value::Object(crate::tolerant_json::parse_object(&s).ok()?),
        Value::Null => Value::Object(Map::new()),
        _ => return None,
    };
    Some(RecoveredCall {
        name: name.to_string(),
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known() -> Vec<String> {
        vec!["Read".into(), "Bash".into(), "Write".into()]
    }

    #[test]
    fn text_ending_with_a_fenced_call_is_split() {
        let text = "I will read it.\n\n```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"config.txt\"}}\n```\n";
        let r = recover(text, &known());
        assert_eq!(
            r,
            Some(Recovered {
                text: "I will read it.".into(),
                calls: vec![RecoveredCall {
                    name: "Read".into(),
                    arguments: json!({"file_path": "config.txt"})
                }],
            })
        );
    }

    #[test]
    fn a_fence_alone_is_a_call_without_text() {
        let text = "```json\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}\n```";
        let r = recover(text, &known()).map(|r| (r.text, r.calls.len()));
        assert_eq!(r, Some((String::new(), 1)));
    }

    #[test]
    fn several_fences_become_several_calls_in_order() {
        let text = "```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a\"}}\n```\n```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"b\"}}\n```";
        let calls = recover(text, &known()).map(|r| r.calls).unwrap_or_default();
        let paths: Vec<_> = calls
            .iter()
            .map(|c| c.arguments["file_path"].clone())
            .collect();
        assert_eq!(paths, vec![json!("a"), json!("b")]);
    }

    /// Each case is text that must reach the model unchanged, with the tools offered.
    #[test]
    fn what_is_not_a_call_of_an_offered_tool_stays_text() {
        let known = known();
        let cases: [(&str, &str, &[String]); 5] = [
            (
                "a JSON example naming no tool",
                "Here is an example config:\n```json\n{\"name\": \"my-package\", \"arguments\": {\"x\": 1}}\n```",
                &known,
            ),
            (
                "JSON without name and arguments",
                "```json\n{\"version\": 2, \"private\": true}\n```",
                &known,
            ),
            (
                "a call followed by prose",
                "Call it like this:\n```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a\"}}\n```\nThat reads the file.",
                &known,
            ),
            (
                "no tools offered",
                "```json\n{\"name\": \"Read\", \"arguments\": {}}\n```",
                &[],
            ),
            (
                "malformed JSON in a fence",
                "```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \n```",
                &known,
            ),
        ];
        for (why, text, tools) in cases {
            assert_eq!(recover(text, tools), None, "{why}");
        }
    }

    #[test]
    fn lost_closing_fence_tool_call_tags_bare_json_and_string_arguments() {
        let unclosed = "```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a\"}}";
        assert_eq!(recover(unclosed, &known()).map(|r| r.calls.len()), Some(1));
        let tags =
            "<tool_call>\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>";
        assert_eq!(
            recover(tags, &known()).map(|r| r.calls[0].name.clone()),
            Some("Bash".into())
        );
        let bare = " {\"name\": \"Write\", \"arguments\": \"{\\\"file_path\\\": \\\"h\\\", \\\"content\\\": \\\"hi\\\"}\"}";
        let r = recover(bare, &known()).map(|r| r.calls[0].arguments.clone());
        assert_eq!(r, Some(json!({"file_path": "h", "content": "hi"})));
        let params = "```\n{\"name\": \"Read\", \"parameters\": {\"file_path\": \"p\"}}\n```";
        let r = recover(params, &known()).map(|r| r.calls[0].arguments.clone());
        assert_eq!(r, Some(json!({"file_path": "p"})));
    }

    #[test]
    fn hold_from_stops_at_markers_and_partial_markers() {
        assert_eq!(hold_from("plain prose"), 11);
        assert_eq!(hold_from("see ```json"), 4);
        assert_eq!(hold_from("see `"), 4);
        assert_eq!(hold_from("see ``"), 4);
        assert_eq!(hold_from("x <tool"), 2);
        assert_eq!(hold_from("  {\"name\""), 0);
        assert_eq!(hold_from("a <b> c"), 7);
        assert_eq!(hold_from("héllo `"), "héllo ".len());
    }
}
