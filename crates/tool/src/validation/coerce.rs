//! Schema-driven coercion of model input before validation (T3): models
//! often send `"offset": "10"` or `"replace_all": "true"`; Claude Code
//! accepts those, so orbit converts them instead of rejecting the call.
//! Models also send `"offset": null` for an optional field they mean to
//! omit; tool schemas no longer list `null` (see `tool::tidy_schema`), so a
//! `null` for a property that is not required and whose schema does not
//! accept `null` is removed, i.e. treated as absent.
//!
//! The walk follows the schema (local `$ref`s, `properties`, `items`,
//! `allOf`, and the first non-null branch of `anyOf`/`oneOf`) alongside the
//! value and converts leaves in place. It never fails: whatever it cannot
//! convert is left for the validator to report.

use serde_json::{Number, Value};

/// Deepest schema nesting followed; schemas are shallow, this only guards
/// against a self-referential `$ref`.
const MAX_COERCE_DEPTH: usize = 32;

/// Coerces `value` in place to fit `schema` (its own root for `$ref`s).
pub(crate) fn coerce(value: &mut Value, schema: &Value) {
    coerce_at(value, schema, schema, 0);
}

fn coerce_at(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_COERCE_DEPTH {
        return;
    }
    let Some(schema) = resolve(schema, root) else {
        return;
    };
    for sub in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        coerce_at(value, sub, root, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        let branch = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|bs| bs.iter().find(|b| !is_null_schema(b, root)));
        if let Some(branch) = branch {
            coerce_at(value, branch, root, depth + 1);
        }
    }

    let types = declared_types(schema);
    coerce_leaf(value, &types);

    match value {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                let required = schema.get("required").and_then(Value::as_array);
                let is_required = |key: &str| required.is_some_and(|r| r.iter().any(|n| n == key));
                map.retain(|key, v| {
                    !(v.is_null()
                        && !is_required(key)
                        && props
                            .get(key)
                            .is_some_and(|sub| !accepts_null(sub, root, depth + 1)))
                });
                for (key, v) in map.iter_mut() {
                    if let Some(sub) = props.get(key) {
                        coerce_at(v, sub, root, depth + 1);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items").filter(|s| s.is_object()) {
                for v in items.iter_mut() {
                    coerce_at(v, sub, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Follows local `$ref`s (`#/$defs/X`) to the schema they name.
fn resolve<'a>(mut schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_COERCE_DEPTH {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => schema = root.pointer(r.strip_prefix('#')?)?,
            None => return Some(schema),
        }
    }
    None
}

fn is_null_schema(schema: &Value, root: &Value) -> bool {
    resolve(schema, root)
        .and_then(|s| s.get("type"))
        .is_some_and(|t| t == "null")
}

/// Whether `schema` lets a `null` through: its `type`/`enum`/`const` say
/// so, a branch of `anyOf`/`oneOf` does, or it does not constrain the type
/// at all.
fn accepts_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_COERCE_DEPTH {
        return true;
    }
    let Some(schema) = resolve(schema, root) else {
        return true;
    };
    let Some(map) = schema.as_object() else {
        // `true` accepts everything, `false` nothing.
        return schema.as_bool().unwrap_or(true);
    };
    if map.contains_key("type") {
        return declared_types(schema).contains(&"null");
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        return values.iter().any(Value::is_null);
    }
    if let Some(value) = map.get("const") {
        return value.is_null();
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_array))
        .flatten()
        .collect::<Vec<_>>();
    if !branches.is_empty() {
        return branches.iter().any(|b| accepts_null(b, root, depth + 1));
    }
    map.get("allOf")
        .and_then(Value::as_array)
        .is_none_or(|all| all.iter().all(|b| accepts_null(b, root, depth + 1)))
}

/// The `type` keyword as a list (`"integer"` or `["integer", "null"]`).
fn declared_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn coerce_leaf(value: &mut Value, types: &[&str]) {
    let has = |t: &str| types.contains(&t);
    let wants_integer = has("integer");
    let wants_number = has("number") || wants_integer;
    match value {
        Value::String(s) if !has("string") => {
            let replacement = if wants_number {
                parse_decimal(s.trim())
            } else if has("boolean") {
                match s.as_str() {
                    "true" => Some(Value::Bool(true)),
                    "false" => Some(Value::Bool(false)),
                    _ => None,
                }
            } else if has("array") || has("object") {
                // A structured value sent as a JSON string.
                serde_json::from_str::<Value>(s)
                    .ok()
                    .filter(|v| (has("array") && v.is_array()) || (has("object") && v.is_object()))
            } else {
                None
            };
            if let Some(r) = replacement {
                *value = r;
            }
        }
        Value::Number(n) if wants_integer && !n.is_i64() && !n.is_u64() => {
            if let Some(i) = n.as_f64().and_then(integral) {
                *value = Value::Number(i);
            }
        }
        _ => {}
    }
}

/// Parses `-?digits(.digits)?` (no exponent, no `inf`/`NaN`, as Claude
/// Code's semantic numbers). Integral values become integers; a fraction
/// for an integer field is then reported precisely by the validator.
fn parse_decimal(s: &str) -> Option<Value> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (int_part, frac_part) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int_part) || frac_part.is_some_and(|f| !all_digits(f)) {
        return None;
    }
    if frac_part.is_none() {
        if let Ok(i) = s.parse::<i64>() {
            return Some(Value::Number(i.into()));
        }
        if let Ok(u) = s.parse::<u64>() {
            return Some(Value::Number(u.into()));
        }
    }
    let f: f64 = s.parse().ok()?;
    if let Some(i) = integral(f) {
        return Some(Value::Number(i));
    }
    Number::from_f64(f).map(Value::Number)
}

/// `3.0` → `3`; `None` for a fractional or out-of-range value.
fn integral(f: f64) -> Option<Number> {
    // 2^63 bounds both casts exactly.
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    if (-I64_BOUND..I64_BOUND).contains(&f) {
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(f as i64));
    }
    None
}
