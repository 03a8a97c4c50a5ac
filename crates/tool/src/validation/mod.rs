//! Input validation (DESIGN T2/T3), used by the engine's orchestrator before
//! a tool's own `validate_input`.
//!
//! Data flow: the raw `tool_use` input → `coerce` (numeric strings to
//! numbers, "true"/"false" to booleans, integral floats to integers, `null`
//! for an optional property dropped, driven by the tool's schema) → for a
//! schema in the subset `subset` knows, its check (no `jsonschema` at all
//! for a valid call) → otherwise, or when it is not sure, a cached,
//! compiled `jsonschema` validator → on failure, every issue becomes one model-facing line (`issues`) under the
//! Claude Code header `InputValidationError: NAME failed due to the
//! following issue(s):`, wrapped in `<tool_use_error>` tags. The texts
//! themselves live in [`crate::texts::validation`].
//!
//! Parameter paths in the lines use Claude Code's `formatValidationPath`
//! style: object keys joined with `.`, array indices in brackets, e.g.
//! `todos[0].status`.

mod coerce;
mod issues;
mod subset;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::Validator;
use serde_json::Value;

use crate::texts::validation as texts;
use crate::tool::Tool;

use coerce::coerce;

/// How much of an unparsable input is quoted back to the model, in bytes
/// (cut back to a char boundary).
pub(crate) const UNPARSABLE_INPUT_PREVIEW_BYTES: usize = 300;

/// Validates `input` against the tool's schema, coercing numeric strings for
/// number/integer fields (and "true"/"false" for booleans).
/// Ok(coerced input) or Err(full text sent to the model, including the
/// `<tool_use_error>` tags).
pub fn validate_tool_input(tool: &dyn Tool, input: &Value) -> Result<Value, String> {
    let schema = tool.input_schema();
    let mut coerced = input.clone();
    coerce(&mut coerced, schema);
    let entry = cached_entry(tool.name(), schema);
    if entry.subset && subset::surely_valid(schema, &coerced) {
        return Ok(coerced);
    }
    let validator = match entry.validator() {
        Ok(v) => v,
        Err(e) => {
            return Err(texts::invalid_input_schema(tool.name(), &e));
        }
    };
    if validator.is_valid(&coerced) {
        return Ok(coerced);
    }
    let lines = issues::issue_lines(validator.iter_errors(&coerced));
    Err(texts::input_validation_error(tool.name(), &lines))
}

/// Whether inputs for `schema` are checked without compiling a
/// `jsonschema` validator when they are valid: true for a schema written
/// only in the small subset of JSON Schema that orbit's built-in tools use
/// (`type`, `properties`, `required`, `additionalProperties`, `items`,
/// `enum`, `const`, length and number bounds, annotations).
pub fn checks_without_compiling(schema: &Value) -> bool {
    subset::in_subset(schema)
}

/// T2: the model called a tool that exists under no name or alias.
pub fn no_such_tool_error(name: &str) -> String {
    texts::no_such_tool(name)
}

/// T3: the streamed tool input was not valid JSON. Quotes the first 300
/// bytes of what was sent (fewer when that would split a char) and says
/// how many bytes that is of how many.
pub fn unparsable_input_error(tool_name: &str, raw: &str) -> String {
    let mut shown = raw.len().min(UNPARSABLE_INPUT_PREVIEW_BYTES);
    while !raw.is_char_boundary(shown) {
        shown -= 1;
    }
    texts::unparsable_input(tool_name, shown, raw.len(), &raw[..shown])
}

/// `<tool_use_error>MSG</tool_use_error>`, for `validate_input` business errors.
pub use crate::texts::tool_use_error as wrap_tool_use_error;

/// What is remembered of one tool's schema: whether the fast path covers
/// it, and the `jsonschema` validator, compiled the first time it is needed.
struct CachedValidator {
    schema: Value,
    subset: bool,
    compiled: OnceLock<Result<Arc<Validator>, String>>,
}

impl CachedValidator {
    fn validator(&self) -> Result<Arc<Validator>, String> {
        self.compiled
            .get_or_init(|| {
                jsonschema::options()
                    .should_validate_formats(false)
                    .build(&self.schema)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }
}

type ValidatorCache = Mutex<HashMap<String, Arc<CachedValidator>>>;

/// Compiling a schema costs far more than validating with it, so entries
/// are kept per tool name (bounded by the number of distinct tools) and
/// rebuilt only when that tool's schema changes. Comparing a schema (a
/// microsecond) is what makes a stale entry impossible, e.g. after an MCP
/// server reconnects with a changed tool under the same name.
fn cached_entry(name: &str, schema: &Value) -> Arc<CachedValidator> {
    static CACHE: OnceLock<ValidatorCache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    if let Some(entry) = guard.get(name)
        && entry.schema == *schema
    {
        return Arc::clone(entry);
    }
    let entry = Arc::new(CachedValidator {
        schema: schema.clone(),
        subset: subset::in_subset(schema),
        compiled: OnceLock::new(),
    });
    guard.insert(name.to_string(), Arc::clone(&entry));
    entry
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
