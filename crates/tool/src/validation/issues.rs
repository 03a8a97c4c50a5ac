//! Turns `jsonschema` validation errors into T3 lines, in Claude Code's
//! order (formatZodValidationError): missing parameters, then unexpected
//! ones, then type mismatches, then every other violation (enum, minimum, …).
//!
//! Wording: JSON Schema `integer` is reported as `number` (as Zod does for
//! Claude Code's `z.number()` fields), except that a fraction sent for an
//! integer field reads "expected as `integer` but provided as `float`"
//! (Zod's `.int()` wording), since "expected number, provided number" would
//! tell the model nothing. The lines' wording lives in
//! [`crate::texts::validation`]; this module decides which line applies.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::types::JsonType;
use serde_json::Value;

use crate::texts::validation as texts;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    Missing,
    Unexpected,
    TypeMismatch,
    Other,
}

/// One line per distinct issue, ordered by category, then as reported.
pub(super) fn issue_lines<'a>(errors: impl Iterator<Item = ValidationError<'a>>) -> Vec<String> {
    let mut issues = Vec::new();
    for e in errors {
        collect(&e, &mut issues);
    }
    // Stable: keeps the validator's order inside a category.
    issues.sort_by_key(|(c, _)| *c);
    let mut lines: Vec<String> = Vec::with_capacity(issues.len());
    for (_, line) in issues {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

fn collect(e: &ValidationError<'_>, out: &mut Vec<(Category, String)>) {
    let path = format_path(e.instance_path());
    let subject = texts::issue_subject(&path);
    let (category, line) = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            (
                Category::Missing,
                texts::missing_parameter(&join_path(&path, &name)),
            )
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                out.push((
                    Category::Unexpected,
                    texts::unexpected_parameter(&join_path(&path, name)),
                ));
            }
            return;
        }
        ValidationErrorKind::Type { kind } => (
            Category::TypeMismatch,
            type_line(&subject, kind, e.instance()),
        ),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            match best_branch(context) {
                Some(branch) => {
                    for be in branch {
                        collect(be, out);
                    }
                    return;
                }
                None => (Category::Other, texts::invalid_value(&subject, e)),
            }
        }
        ValidationErrorKind::Enum { options } => {
            // An optional enum lists `null` among its options; the model
            // needs the real choices.
            let list = match options.as_ref() {
                Value::Array(opts) => opts
                    .iter()
                    .filter(|o| !o.is_null() || opts.len() == 1)
                    .map(plain)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => plain(other),
            };
            (Category::Other, texts::must_be_one_of(&subject, &list))
        }
        ValidationErrorKind::Constant { expected_value } => (
            Category::Other,
            texts::must_be_exactly(&subject, &plain(expected_value)),
        ),
        ValidationErrorKind::Minimum { limit } => {
            (Category::Other, texts::at_least(&subject, limit))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            (Category::Other, texts::greater_than(&subject, limit))
        }
        ValidationErrorKind::Maximum { limit } => {
            (Category::Other, texts::at_most(&subject, limit))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            (Category::Other, texts::less_than(&subject, limit))
        }
        ValidationErrorKind::MinLength { limit } => {
            (Category::Other, texts::min_length(&subject, *limit))
        }
        ValidationErrorKind::MaxLength { limit } => {
            (Category::Other, texts::max_length(&subject, *limit))
        }
        ValidationErrorKind::MinItems { limit } => {
            (Category::Other, texts::min_items(&subject, *limit))
        }
        ValidationErrorKind::MaxItems { limit } => {
            (Category::Other, texts::max_items(&subject, *limit))
        }
        ValidationErrorKind::Pattern { pattern } => (
            Category::Other,
            texts::must_match_pattern(&subject, pattern),
        ),
        ValidationErrorKind::UniqueItems => (Category::Other, texts::no_duplicate_items(&subject)),
        ValidationErrorKind::Format { format } => (
            Category::Other,
            texts::must_be_valid_format(&subject, format),
        ),
        ValidationErrorKind::FalseSchema => (Category::Other, texts::not_allowed(&subject)),
        _ => (Category::Other, texts::invalid_value(&subject, e)),
    };
    out.push((category, line));
}

/// For `anyOf`/`oneOf` (e.g. an optional nested object: `[{$ref}, {type:
/// null}]`), the branch the model most likely meant: not the bare `null`
/// alternative, and among the rest the one with the fewest errors.
fn best_branch<'c>(
    context: &'c [Vec<ValidationError<'static>>],
) -> Option<&'c Vec<ValidationError<'static>>> {
    context
        .iter()
        .filter(|branch| !branch.is_empty() && !branch.iter().all(expects_only_null))
        .min_by_key(|branch| branch.len())
}

fn expects_only_null(e: &ValidationError<'_>) -> bool {
    matches!(
        e.kind(),
        ValidationErrorKind::Type {
            kind: TypeKind::Single(JsonType::Null)
        }
    )
}

fn type_line(subject: &str, kind: &TypeKind, instance: &Value) -> String {
    let mut expected: Vec<JsonType> = match kind {
        TypeKind::Single(t) => vec![*t],
        TypeKind::Multiple(set) => set.iter().collect(),
    };
    if expected.len() > 1 {
        expected.retain(|t| *t != JsonType::Null);
    }
    if expected.contains(&JsonType::Integer) && instance.is_number() {
        return texts::float_for_integer(subject);
    }
    let mut names: Vec<&str> = Vec::with_capacity(expected.len());
    for t in expected {
        let name = match t {
            JsonType::Integer | JsonType::Number => "number",
            JsonType::Array => "array",
            JsonType::Boolean => "boolean",
            JsonType::Null => "null",
            JsonType::Object => "object",
            JsonType::String => "string",
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    texts::type_mismatch(subject, &names.join(" | "), json_type_name(instance))
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Claude Code's formatValidationPath: `todos[0].status`.
fn format_path(location: &Location) -> String {
    let mut out = String::new();
    for seg in location.segments() {
        match seg {
            LocationSegment::Property(p) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&p);
            }
            LocationSegment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

fn join_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// Strings bare, anything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
