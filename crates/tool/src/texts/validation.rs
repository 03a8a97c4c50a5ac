//! Input validation texts (DESIGN T2/T3): an unknown tool, input that is
//! not JSON, and the `InputValidationError` header with one line per
//! schema issue, in Claude Code's wording (`formatZodValidationError`).
//!
//! Senders: [`crate::validation`] (unknown tool, unparsable JSON, schema
//! issues, all wrapped in `<tool_use_error>`) and the typed adapter
//! ([`crate::typed`]: input the schema let through but the tool's type
//! rejects, a refusal the engine wraps). Issue lines name a parameter by
//! its path in `formatValidationPath` style (`todos[0].status`).

use std::fmt::Display;

use super::tool_use_error;

/// T2: the model called a tool that exists under no name or alias.
/// `ExitPlanMode` (not offered without someone to approve a plan) gets
/// Claude Code 2.1.332's added sentence; `AskUserQuestion` (not offered
/// without someone to answer) says no user can answer.
pub fn no_such_tool(name: &str) -> String {
    if name == crate::plan::EXIT_PLAN_MODE_TOOL_NAME {
        return tool_use_error(&format!(
            "Error: No such tool available: {name}. {name} is disabled for this session"
        ));
    }
    if name == crate::plan::ASK_USER_TOOL_NAME {
        return tool_use_error(&format!(
            "Error: No such tool available: {name}. No user can answer questions in this session: decide with sensible defaults and say what you chose"
        ));
    }
    tool_use_error(&format!("Error: No such tool available: {name}"))
}

/// The tool's own input schema does not compile (a broken MCP tool).
pub fn invalid_input_schema(tool_name: &str, error: &str) -> String {
    tool_use_error(&format!(
        "InputValidationError: {tool_name} has an invalid input schema: {error}"
    ))
}

/// T3: the streamed tool input was not valid JSON. Quotes `preview`, the
/// first `shown_bytes` of the `total_bytes` sent.
pub fn unparsable_input(
    tool_name: &str,
    shown_bytes: usize,
    total_bytes: usize,
    preview: &str,
) -> String {
    tool_use_error(&format!(
        "InputValidationError: {tool_name} was called with input that could not be parsed as JSON.\n\
You sent (first {shown_bytes} of {total_bytes} bytes): {preview}\n\
Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, \
or truncated output. Retry with valid JSON."
    ))
}

/// T3: the header (`… failed due to the following issue:` or `issues:`)
/// and one line per issue, unwrapped. The typed adapter sends it with one
/// line, a serde error, as a refusal.
pub fn validation_issues(tool_name: &str, lines: &[String]) -> String {
    let noun = if lines.len() == 1 { "issue" } else { "issues" };
    format!(
        "InputValidationError: {tool_name} failed due to the following {noun}:\n{}",
        lines.join("\n")
    )
}

/// T3: [`validation_issues`] wrapped, as schema validation sends it.
pub fn input_validation_error(tool_name: &str, lines: &[String]) -> String {
    tool_use_error(&validation_issues(tool_name, lines))
}

/// The subject of an issue line: `The input` for the top-level value,
/// else ``The parameter `PATH` ``.
pub fn issue_subject(path: &str) -> String {
    if path.is_empty() {
        "The input".to_string()
    } else {
        format!("The parameter `{path}`")
    }
}

/// A required parameter is absent.
pub fn missing_parameter(path: &str) -> String {
    format!("The required parameter `{path}` is missing")
}

/// A parameter the schema does not know.
pub fn unexpected_parameter(path: &str) -> String {
    format!("An unexpected parameter `{path}` was provided")
}

/// A value of the wrong JSON type; `expected` lists the accepted types
/// joined by ` | `.
pub fn type_mismatch(subject: &str, expected: &str, provided: &str) -> String {
    format!("{subject} type is expected as `{expected}` but provided as `{provided}`")
}

/// A fraction sent for an integer field (Zod's `.int()` wording).
pub fn float_for_integer(subject: &str) -> String {
    format!("{subject} type is expected as `integer` but provided as `float`")
}

/// Any violation without a line of its own; `detail` is the validator's.
pub fn invalid_value(subject: &str, detail: impl Display) -> String {
    format!("{subject} is invalid: {detail}")
}

/// An enum violation; `options` are the choices joined by `, `.
pub fn must_be_one_of(subject: &str, options: &str) -> String {
    format!("{subject} must be one of: {options}")
}

/// A `const` violation.
pub fn must_be_exactly(subject: &str, value: &str) -> String {
    format!("{subject} must be exactly {value}")
}

/// `minimum`.
pub fn at_least(subject: &str, limit: impl Display) -> String {
    format!("{subject} must be greater than or equal to {limit}")
}

/// `exclusiveMinimum`.
pub fn greater_than(subject: &str, limit: impl Display) -> String {
    format!("{subject} must be greater than {limit}")
}

/// `maximum`.
pub fn at_most(subject: &str, limit: impl Display) -> String {
    format!("{subject} must be less than or equal to {limit}")
}

/// `exclusiveMaximum`.
pub fn less_than(subject: &str, limit: impl Display) -> String {
    format!("{subject} must be less than {limit}")
}

/// `minLength`, in characters.
pub fn min_length(subject: &str, limit: u64) -> String {
    format!(
        "{subject} must be at least {limit} {} long",
        plural(limit, "character")
    )
}

/// `maxLength`, in characters.
pub fn max_length(subject: &str, limit: u64) -> String {
    format!(
        "{subject} must be at most {limit} {} long",
        plural(limit, "character")
    )
}

/// `minItems`.
pub fn min_items(subject: &str, limit: u64) -> String {
    format!(
        "{subject} must contain at least {limit} {}",
        plural(limit, "item")
    )
}

/// `maxItems`.
pub fn max_items(subject: &str, limit: u64) -> String {
    format!(
        "{subject} must contain at most {limit} {}",
        plural(limit, "item")
    )
}

/// `pattern`.
pub fn must_match_pattern(subject: &str, pattern: &str) -> String {
    format!("{subject} must match the pattern `{pattern}`")
}

/// `uniqueItems`.
pub fn no_duplicate_items(subject: &str) -> String {
    format!("{subject} must not contain duplicate items")
}

/// `format`.
pub fn must_be_valid_format(subject: &str, format: &str) -> String {
    format!("{subject} must be a valid {format}")
}

/// A `false` schema: nothing is allowed here.
pub fn not_allowed(subject: &str) -> String {
    format!("{subject} is not allowed")
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}
