//! Tolerant reading of a tool call's JSON arguments, for the calls small
//! models write (issue 38). Owned by the offline-default work; the
//! providers call [`parse_object`] where they parsed with `serde_json`.
//!
//! A small model writes `find . -name '*.tmp' -exec rm {} \;` inside a JSON
//! string with `\;`, an escape JSON does not know, or a raw newline inside
//! a string. Strict JSON refuses the whole call. Flow: strict parse → on an
//! error, [`repair`] the text (an unknown escape keeps its backslash and
//! character literally, a raw control character in a string is escaped)
//! and parse again → an object whose string value looks like it swallowed
//! the fields after it ([`swallowed_fields`], the mangling seen when a
//! server healed such a call: `rm {} ", timeout: 60, description: "`) is
//! refused too. A refusal is the strict parser's error text, so the caller
//! answers the model with it and never runs a half-parsed call.

use serde_json::{Map, Value};

use crate::tool_input::unparsed_tool_input;

/// The JSON object `raw` holds, read tolerantly; `Err` is the text of the
/// strict parser's error (or the reason a parsed object was refused).
pub(crate) fn parse_object(raw: &str) -> Result<Map<String, Value>, String> {
    let strict = serde_json::from_str::<Value>(raw);
    let value = match strict {
        Ok(v) => v,
        Err(e) => {
            let repaired = repair(raw);
            if repaired == raw {
                return Err(e.to_string());
            }
            serde_json::from_str::<Value>(&repaired).map_err(|_| e.to_string())?
        }
    };
    let Value::Object(map) = value else {
        return Err("the arguments are not a JSON object".into());
    };
    if let Some(key) = swallowing_key(&map) {
        return Err(format!(
            "the value of \"{key}\" holds the fields after it (a string was not closed)"
        ));
    }
    Ok(map)
}

/// The key (in `map` or an object nested in it) whose string value
/// [`swallowed_fields`].
fn swallowing_key(map: &Map<String, Value>) -> Option<String> {
    map.iter().find_map(|(k, v)| match v {
        Value::String(s) if swallowed_fields(s) => Some(k.clone()),
        Value::Object(inner) => swallowing_key(inner),
        _ => None,
    })
}

/// Streamed tool-call arguments → (input object, the raw text when it
/// could not be read): `crate::tool_input::parse_tool_input` read
/// tolerantly, for the OpenAI-compatible provider.
pub(crate) fn parse_tool_input(raw: &str) -> (Value, Option<String>) {
    if raw.trim().is_empty() {
        return (Value::Object(Map::new()), None);
    }
    match parse_object(raw) {
        Ok(map) => (Value::Object(map), None),
        Err(_) => (unparsed_tool_input(raw), Some(raw.to_string())),
    }
}

/// `raw` with every backslash escape JSON does not know (`\;`, `\.`, `\(`
/// …) written as an escaped backslash plus the character, so the string
/// keeps both literally, and raw control characters inside strings
/// escaped. Text outside strings is unchanged.
pub(crate) fn repair(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 8);
    let mut in_string = false;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => match chars.next() {
                Some(next @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                    out.push('\\');
                    out.push(next);
                }
                Some(next) => {
                    out.push_str("\\\\");
                    push_in_string(&mut out, next);
                }
                None => out.push_str("\\\\"),
            },
            c => push_in_string(&mut out, c),
        }
    }
    out
}

/// `c` as it may stand inside a JSON string (control characters escaped).
fn push_in_string(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        c => out.push(c),
    }
}

/// Whether a string value ends in a field that was never closed, after a
/// quote-comma: `… ", timeout: 60, description: "` — the following fields
/// swallowed into this one.
fn swallowed_fields(s: &str) -> bool {
    let Some(before_quote) = s.trim_end().strip_suffix('"') else {
        return false;
    };
    let Some(before_colon) = before_quote.trim_end().strip_suffix(':') else {
        return false;
    };
    let key = before_colon.trim_end().trim_end_matches('"');
    let name_len = key
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .count();
    if name_len == 0 {
        return false;
    }
    let before_key = key[..key.len() - name_len].trim_end_matches('"').trim_end();
    before_key.ends_with(',') && s.contains("\",")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_escapes_are_kept_literally_and_fields_survive() {
        let raw = r#"{"command": "find . -name '*.tmp' -exec rm {} \;", "timeout": 60, "description": "Delete"}"#;
        assert!(serde_json::from_str::<Value>(raw).is_err());
        let map = parse_object(raw).unwrap();
        assert_eq!(
            Value::Object(map),
            json!({"command": "find . -name '*.tmp' -exec rm {} \\;", "timeout": 60, "description": "Delete"})
        );
        let raw = "{\"content\": \"a\nb\\.c \\\"q\\\" \\u00e9\"}";
        assert_eq!(
            Value::Object(parse_object(raw).unwrap()),
            json!({"content": "a\nb\\.c \"q\" é"})
        );
    }

    #[test]
    fn what_cannot_be_read_is_refused_with_the_parse_text() {
        let cut = r#"{"command": "ls", "timeout": "#;
        let err = parse_object(cut).unwrap_err();
        assert!(err.contains("EOF"), "{err}");
        assert!(parse_object("[1]").is_err());
        let mangled = json!({"command": "find . -exec rm {} \", timeout: 60, description: \""});
        let err = parse_object(&mangled.to_string()).unwrap_err();
        assert!(err.contains("\"command\""), "{err}");
        // Real content that only looks like fields stays a call.
        let js = json!({"content": "const o = {a: \"x\", b: 2};\n"});
        assert!(parse_object(&js.to_string()).is_ok());
        let quoted = json!({"command": "echo '{\"a\": \"x\", \"b\": \"y\"}'"});
        assert!(parse_object(&quoted.to_string()).is_ok());
    }
}
