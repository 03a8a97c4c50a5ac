//! The fast path of input validation: a check, without `jsonschema`, of
//! inputs against schemas written in a small subset of JSON Schema — the
//! subset every built-in tool's schema uses.
//!
//! Compiling a `jsonschema` validator first compiles the draft's meta-schema
//! (to check the tool's schema itself): ≈ 480 KB of heap kept for the
//! process's life and ≈ 1.4 ms on the first tool call of a session. Most
//! calls are valid, and for a valid call nothing of that is needed.
//!
//! Data flow: [`in_subset`] decides once per cached schema whether every
//! keyword in it is one this module knows, with a value of the shape the
//! 2020-12 meta-schema requires (so `jsonschema` would accept the schema);
//! for such a schema [`surely_valid`] walks schema and input together.
//! It answers `true` only when the input is valid; `false` means "not
//! sure", and the caller asks the compiled `jsonschema` validator, which
//! also writes the model-facing issue lines. So the fast path can make a
//! call faster, never change its outcome: a number compared across
//! integer/float representations, `1.0` for an `integer`, an unknown
//! keyword — each goes the slow way.

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::{Map, Value};

/// Deepest schema nesting the fast path follows; a deeper schema goes to
/// `jsonschema` (and a hostile one cannot exhaust the stack here).
const MAX_SUBSET_DEPTH: usize = 32;

/// The JSON Schema type names.
const TYPE_NAMES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Whether `schema` is written only in the subset [`surely_valid`] checks,
/// and well-formed there.
pub(crate) fn in_subset(schema: &Value) -> bool {
    schema_ok(schema, 0)
}

fn schema_ok(schema: &Value, depth: usize) -> bool {
    if depth > MAX_SUBSET_DEPTH {
        return false;
    }
    let map = match schema {
        Value::Bool(_) => return true,
        Value::Object(map) => map,
        _ => return false,
    };
    map.iter()
        .all(|(keyword, value)| keyword_ok(keyword, value, depth))
}

fn keyword_ok(keyword: &str, value: &Value, depth: usize) -> bool {
    match keyword {
        "type" => match value {
            Value::String(name) => TYPE_NAMES.contains(&name.as_str()),
            Value::Array(names) => {
                !names.is_empty()
                    && names
                        .iter()
                        .all(|n| n.as_str().is_some_and(|n| TYPE_NAMES.contains(&n)))
                    && unique_strings(names)
            }
            _ => false,
        },
        "properties" => value
            .as_object()
            .is_some_and(|props| props.values().all(|s| schema_ok(s, depth + 1))),
        "additionalProperties" | "items" => {
            (value.is_object() || value.is_boolean()) && schema_ok(value, depth + 1)
        }
        "required" => value
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string) && unique_strings(names)),
        "minItems" | "maxItems" | "minLength" | "maxLength" => value.is_u64(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "enum" | "examples" => value.is_array(),
        "description" | "title" | "format" => value.is_string(),
        "const" | "default" => true,
        _ => false,
    }
}

fn unique_strings(values: &[Value]) -> bool {
    let mut seen = HashSet::new();
    values
        .iter()
        .all(|v| v.as_str().is_some_and(|s| seen.insert(s)))
}

/// `true` when `value` is valid against `schema`, which [`in_subset`]
/// accepted; `false` when it is not, or this module cannot be sure.
pub(crate) fn surely_valid(schema: &Value, value: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(map) => map
            .iter()
            .all(|(keyword, bound)| keyword_holds(map, keyword, bound, value)),
        _ => false,
    }
}

fn keyword_holds(schema: &Map<String, Value>, keyword: &str, bound: &Value, value: &Value) -> bool {
    match keyword {
        "type" => match bound {
            Value::String(name) => has_type(value, name),
            Value::Array(names) => names
                .iter()
                .any(|n| n.as_str().is_some_and(|n| has_type(value, n))),
            _ => false,
        },
        "properties" => match (bound.as_object(), value.as_object()) {
            (Some(props), Some(fields)) => props
                .iter()
                .all(|(name, sub)| fields.get(name).is_none_or(|v| surely_valid(sub, v))),
            (_, None) => true,
            (None, Some(_)) => false,
        },
        "additionalProperties" => match value.as_object() {
            None => true,
            Some(fields) => {
                let declared = schema.get("properties").and_then(Value::as_object);
                fields
                    .iter()
                    .filter(|(name, _)| !declared.is_some_and(|d| d.contains_key(*name)))
                    .all(|(_, v)| surely_valid(bound, v))
            }
        },
        "required" => match value.as_object() {
            None => true,
            Some(fields) => bound.as_array().is_some_and(|names| {
                names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|n| fields.contains_key(n)))
            }),
        },
        "items" => value
            .as_array()
            .is_none_or(|items| items.iter().all(|v| surely_valid(bound, v))),
        "minItems" | "maxItems" => value
            .as_array()
            .is_none_or(|items| within(keyword, items.len(), bound)),
        "minLength" | "maxLength" => value
            .as_str()
            .is_none_or(|s| within(keyword, s.chars().count(), bound)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            !value.is_number() || number_within(keyword, value, bound)
        }
        "enum" => bound
            .as_array()
            .is_some_and(|choices| choices.iter().any(|c| c == value)),
        "const" => bound == value,
        // Annotations: they constrain nothing.
        "description" | "title" | "format" | "default" | "examples" => true,
        _ => false,
    }
}

/// Whether `value` is of the JSON Schema type `name`. An `integer` is only
/// a number stored as one: `1.0` is left to `jsonschema`.
fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "array" => value.is_array(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "object" => value.is_object(),
        "string" => value.is_string(),
        _ => false,
    }
}

fn within(keyword: &str, len: usize, bound: &Value) -> bool {
    let (Some(bound), Ok(len)) = (bound.as_u64(), u64::try_from(len)) else {
        return false;
    };
    if keyword.starts_with("min") {
        len >= bound
    } else {
        len <= bound
    }
}

fn number_within(keyword: &str, value: &Value, bound: &Value) -> bool {
    let Some(order) = exact_cmp(value, bound) else {
        return false;
    };
    match keyword {
        "minimum" => order != Ordering::Less,
        "maximum" => order != Ordering::Greater,
        "exclusiveMinimum" => order == Ordering::Greater,
        "exclusiveMaximum" => order == Ordering::Less,
        _ => false,
    }
}

/// Compares two JSON numbers where that is exact: both integers, or both
/// floats. Mixed representations answer `None` (the slow path decides).
fn exact_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return Some(a.cmp(&b));
    }
    if a.is_f64() && b.is_f64() {
        return a.as_f64()?.partial_cmp(&b.as_f64()?);
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
