//! The lean input schema every tool advertises: [`input_schema_for`]
//! derives it from a Rust type, `tidy_schema` drops what models do not
//! need.

use serde_json::Value;

/// The JSON Schema of `T` as tools advertise it: an object schema with
/// `additionalProperties: false`, lean because every byte is sent on every
/// request. Dropped: `$schema`, `title`, the root `description` (a doc
/// comment on the input type speaks to Rust readers; the tool's own
/// description speaks to the model) and what schemars adds for `Option`
/// fields and number widths (see `tidy_schema`).
pub fn input_schema_for<T: schemars::JsonSchema>() -> Value {
    let schema = schemars::schema_for!(T);
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        map.shift_remove("description");
        map.entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    tidy_schema(&mut value);
    value
}

/// Removes what schemars adds for `Option` fields and number widths: `null`
/// in `type` and `enum`, a `{"type": "null"}` branch of `anyOf`/`oneOf`
/// (a single remaining branch replaces the combinator), `"default": null`
/// and `format`s such as `uint64` or `double`. Optional then means "may be
/// omitted", as in Claude Code's schemas; a `null` the model still sends
/// for an optional field is dropped before validation
/// ([`crate::validation::coerce`]).
pub(crate) fn tidy_schema(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            // shift_remove keeps the remaining keys in their order.
            if map.get("default") == Some(&Value::Null) {
                map.shift_remove("default");
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(is_number_width_format)
            {
                map.shift_remove("format");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            for key in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = map.get(key) else {
                    continue;
                };
                let kept: Vec<Value> = branches
                    .iter()
                    .filter(|b| b.get("type").is_none_or(|t| t != "null"))
                    .cloned()
                    .collect();
                // `{"anyOf": [X]}` is X; merged only when no key would clash.
                match kept.as_slice() {
                    [Value::Object(only)] if only.keys().all(|k| !map.contains_key(k)) => {
                        let only = only.clone();
                        map.shift_remove(key);
                        map.extend(only);
                    }
                    _ => {
                        map.insert(key.into(), Value::Array(kept));
                    }
                }
            }
            map.values_mut().for_each(tidy_schema);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_schema),
        _ => {}
    }
}

/// schemars' integer and float width formats (`uint32`, `int64`, `double`…),
/// which validators ignore and models do not need.
fn is_number_width_format(format: &str) -> bool {
    format.starts_with("uint")
        || format.starts_with("int")
        || format == "double"
        || format == "float"
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tidy_schema_drops_nulls_and_number_formats() {
        let mut schema = json!({"properties": {
            "a": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": null},
            "b": {"type": ["string", "null"], "enum": ["x", "y", null]},
            "c": {"type": "number", "format": "double", "default": 1.5},
            "d": {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}], "description": "d"},
            "e": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "f": {"type": "string", "format": "uri"}
        }});
        tidy_schema(&mut schema);
        assert_eq!(
            schema,
            json!({"properties": {
                "a": {"type": "integer", "minimum": 0},
                "b": {"type": "string", "enum": ["x", "y"]},
                "c": {"type": "number", "default": 1.5},
                "d": {"description": "d", "$ref": "#/$defs/D"},
                "e": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "f": {"type": "string", "format": "uri"}
            }})
        );
    }

    /// Input of a test tool (this doc comment must not reach the model).
    #[allow(dead_code)]
    #[derive(schemars::JsonSchema)]
    struct Sample {
        /// Where
        path: String,
        /// How many
        #[serde(default)]
        count: Option<u32>,
    }

    #[test]
    fn every_advertised_schema_is_lean() {
        assert_eq!(
            serde_json::to_string(&input_schema_for::<Sample>()).unwrap(),
            r#"{"type":"object","properties":{"path":{"type":"string","description":"Where"},"count":{"type":"integer","minimum":0,"description":"How many"}},"required":["path"],"additionalProperties":false}"#
        );
    }
}
