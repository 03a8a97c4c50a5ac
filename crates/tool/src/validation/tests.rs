//! Exact T2/T3 texts.

use super::*;
use crate::context::{CallContext, ToolUseContext};
use crate::schema::input_schema_for;
use crate::tool::{CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, TypedTool, typed};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProbeInput {
    file_path: String,
    #[serde(default)]
    #[schemars(with = "u64")]
    offset: Option<u64>,
    #[serde(default)]
    ratio: Option<f64>,
    #[serde(default)]
    replace_all: bool,
    #[serde(default)]
    todos: Vec<Todo>,
    #[serde(default)]
    nested: Option<Nested>,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Todo {
    content: String,
    status: Status,
    #[schemars(length(min = 1))]
    active_form: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    InProgress,
    Completed,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nested {
    depth: u32,
}

#[derive(Clone)]
struct Probe {
    name: &'static str,
    schema: Value,
}

impl Probe {
    fn new() -> Self {
        Self::with_schema("Probe", input_schema_for::<ProbeInput>())
    }

    /// A probe of another name (the validator cache is keyed by name and
    /// schema) with its own schema.
    fn with_schema(name: &'static str, schema: Value) -> Self {
        Self { name, schema }
    }
}

#[async_trait]
impl TypedTool for Probe {
    type Input = Value;
    type Plan = Value;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(self.name, "probe").with_result_limit(ResultLimit::PersistOver(1000))
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn facts(&self, _: &Value, _: &ToolUseContext) -> CallFacts {
        CallFacts::default()
    }
    async fn validate(&self, input: Value, _: &ToolUseContext) -> Result<Value, ToolError> {
        Ok(input)
    }
    async fn call(
        &self,
        _: Value,
        _: &ToolUseContext,
        _: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(""))
    }
}

fn err(input: Value) -> String {
    validate_tool_input(&*typed(Probe::new()), &input).unwrap_err()
}

/// The T3 text of one issue.
fn one_issue(issue: &str) -> String {
    format!(
        "<tool_use_error>InputValidationError: Probe failed due to the following issue:\n\
{issue}</tool_use_error>"
    )
}

/// Inputs with one issue and its text: an integer field is reported as a
/// `number`, a fraction for it as a `float`; nested paths use brackets and
/// dots; an optional nested object reports the object branch.
#[test]
fn one_issue_texts() {
    let table = [
        (json!({}), "The required parameter `file_path` is missing"),
        (
            json!({"file_path": "/a", "bogus": 1}),
            "An unexpected parameter `bogus` was provided",
        ),
        (
            json!({"file_path": "/a", "offset": "ten"}),
            "The parameter `offset` type is expected as `number` but provided as `string`",
        ),
        (
            json!({"file_path": 7}),
            "The parameter `file_path` type is expected as `string` but provided as `number`",
        ),
        (
            json!({"file_path": "/a", "offset": 2.5}),
            "The parameter `offset` type is expected as `integer` but provided as `float`",
        ),
        // Coerced to a number, then the minimum of u64 applies.
        (
            json!({"file_path": "/a", "offset": " -4 "}),
            "The parameter `offset` must be greater than or equal to 0",
        ),
        (
            json!({"file_path": "/a", "todos": [{"status": "pending"}]}),
            "The required parameter `todos[0].content` is missing",
        ),
        (
            json!({"file_path": "/a", "nested": "deep"}),
            "The parameter `nested` type is expected as `object` but provided as `string`",
        ),
        (
            json!({"file_path": "/a", "nested": {"depth": "x"}}),
            "The parameter `nested.depth` type is expected as `number` but provided as `string`",
        ),
        (
            json!(["a"]),
            "The input type is expected as `object` but provided as `array`",
        ),
    ];
    for (input, issue) in table {
        assert_eq!(err(input.clone()), one_issue(issue), "{input}");
    }
    // Strings that are not plain numbers stay strings.
    for s in ["1e3", "inf", "NaN", "0x10", "1.", ".5", ""] {
        assert_eq!(
            err(json!({"file_path": "/a", "offset": s})),
            one_issue(
                "The parameter `offset` type is expected as `number` but provided as `string`"
            ),
            "{s}"
        );
    }
}

/// Valid inputs pass, after coercion: numeric and boolean strings, a whole
/// float for an integer, strings inside an optional object (coercion
/// follows the `$ref`), an array sent as a JSON string.
#[test]
fn valid_inputs_after_coercion() {
    let table = [
        (
            json!({"file_path": "/a", "offset": 3, "replace_all": true}),
            json!({"file_path": "/a", "offset": 3, "replace_all": true}),
        ),
        (
            json!({"file_path": "/a", "offset": "10", "ratio": "0.5", "replace_all": "true"}),
            json!({"file_path": "/a", "offset": 10, "ratio": 0.5, "replace_all": true}),
        ),
        (
            json!({"file_path": "/a", "offset": 3.0}),
            json!({"file_path": "/a", "offset": 3}),
        ),
        (
            json!({"file_path": "/a", "nested": {"depth": "2"}}),
            json!({"file_path": "/a", "nested": {"depth": 2}}),
        ),
        (
            json!({"file_path": "/a", "todos": "[{\"content\":\"c\",\"status\":\"completed\"}]"}),
            json!({"file_path": "/a", "todos": [{"content": "c", "status": "completed"}]}),
        ),
    ];
    for (input, coerced) in table {
        assert_eq!(
            validate_tool_input(&*typed(Probe::new()), &input),
            Ok(coerced),
            "{input}"
        );
    }
}

#[test]
fn several_issues_in_category_order() {
    assert_eq!(
        err(json!({"bogus": true, "offset": "x", "extra": null})),
        "<tool_use_error>InputValidationError: Probe failed due to the following issues:\n\
The required parameter `file_path` is missing\n\
An unexpected parameter `bogus` was provided\n\
An unexpected parameter `extra` was provided\n\
The parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>"
    );
}

#[test]
fn nested_paths_use_brackets_and_dots() {
    assert_eq!(
        err(json!({"file_path": "/a", "todos": [
            {"content": "x", "status": "pending", "active_form": null},
            {"content": 5, "status": "done", "active_form": "", "zzz": 1}
        ]})),
        "<tool_use_error>InputValidationError: Probe failed due to the following issues:\n\
An unexpected parameter `todos[1].zzz` was provided\n\
The parameter `todos[1].content` type is expected as `string` but provided as `number`\n\
The parameter `todos[1].status` must be one of: pending, in_progress, completed\n\
The parameter `todos[1].active_form` must be at least 1 character long</tool_use_error>"
    );
}

#[test]
fn no_such_tool() {
    assert_eq!(
        no_such_tool_error("Frobnicate"),
        "<tool_use_error>Error: No such tool available: Frobnicate</tool_use_error>"
    );
}

#[test]
fn unparsable_input_quotes_at_most_the_preview_bytes() {
    let expected = |shown: usize, total: usize, preview: &str| {
        format!(
            "<tool_use_error>InputValidationError: Read was called with input that could not be \
parsed as JSON.\nYou sent (first {shown} of {total} bytes): {preview}\nCommon causes: unescaped \
backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. \
Retry with valid JSON.</tool_use_error>"
        )
    };
    let short = r#"{"file_path": "C:\dir"#;
    let over = format!("{{\"x\": \"{}", "a".repeat(400));
    // 299 ASCII bytes, then a 2-byte char straddling the 300-byte cap.
    let straddling = format!("{}é tail", "b".repeat(UNPARSABLE_INPUT_PREVIEW_BYTES - 1));
    // Exactly the cap, ending in a whole multibyte char.
    let exact = format!("{}é", "c".repeat(UNPARSABLE_INPUT_PREVIEW_BYTES - 2));
    let table: Vec<(&str, String)> = vec![
        (short, expected(short.len(), short.len(), short)),
        (over.as_str(), expected(300, over.len(), &over[..300])),
        (
            straddling.as_str(),
            expected(299, straddling.len(), &straddling[..299]),
        ),
        (exact.as_str(), expected(300, 300, &exact)),
        ("", expected(0, 0, "")),
    ];
    for (raw, want) in table {
        assert_eq!(unparsable_input_error("Read", raw), want, "{raw:?}");
    }
    // The text names the cause the model most likely hit, with two backslashes.
    assert!(unparsable_input_error("Read", "x").contains(r"(use / or \\)"));
}

#[test]
fn wrap() {
    assert_eq!(
        wrap_tool_use_error("boom"),
        "<tool_use_error>boom</tool_use_error>"
    );
}

#[test]
fn validator_is_rebuilt_when_the_schema_changes() {
    let mut probe = Probe::new();
    probe.name = "ProbeRebuilt";
    assert!(validate_tool_input(&*typed(probe.clone()), &json!({"file_path": "/a"})).is_ok());
    probe.schema =
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
    assert_eq!(
        validate_tool_input(&*typed(probe.clone()), &json!({"file_path": "/a"})).unwrap_err(),
        "<tool_use_error>InputValidationError: ProbeRebuilt failed due to the following issue:\n\
The required parameter `x` is missing</tool_use_error>"
    );
}

#[test]
fn cached_validation_is_fast() {
    let probe = Probe::new();
    let input = json!({"file_path": "/a", "offset": "5"});
    let _ = validate_tool_input(&*typed(probe.clone()), &input);
    let start = std::time::Instant::now();
    for _ in 0..1000 {
        assert!(validate_tool_input(&*typed(probe.clone()), &input).is_ok());
    }
    // Compiling per call would take well over a millisecond each.
    assert!(
        start.elapsed() < std::time::Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn optional_enum_lists_only_real_choices() {
    let probe = Probe::with_schema(
        "ProbeEnum",
        json!({
            "type": "object",
            "properties": {"mode": {"type": ["string", "null"], "enum": ["a", "b", null]}},
            "additionalProperties": false
        }),
    );
    assert_eq!(
        validate_tool_input(&*typed(probe.clone()), &json!({"mode": "c"})).unwrap_err(),
        "<tool_use_error>InputValidationError: ProbeEnum failed due to the following issue:\n\
The parameter `mode` must be one of: a, b</tool_use_error>"
    );
    assert_eq!(
        validate_tool_input(&*typed(probe.clone()), &json!({"mode": 1})).unwrap_err(),
        "<tool_use_error>InputValidationError: ProbeEnum failed due to the following issues:\n\
The parameter `mode` type is expected as `string` but provided as `number`\n\
The parameter `mode` must be one of: a, b</tool_use_error>"
    );
}

#[test]
fn null_for_an_optional_field_counts_as_absent() {
    // The advertised schema no longer lists `null` for optional fields…
    let probe = Probe::new();
    assert_eq!(probe.schema["properties"]["ratio"]["type"], "number");
    // …and a `null` the model sends anyway is dropped, at any depth.
    let out = validate_tool_input(
        &*typed(probe.clone()),
        &json!({"file_path": "/a", "offset": null, "ratio": null, "nested": null,
                "todos": [{"content": "c", "status": "pending", "active_form": null}]}),
    );
    assert_eq!(
        out,
        Ok(json!({"file_path": "/a", "todos": [{"content": "c", "status": "pending"}]}))
    );
}

#[test]
fn null_for_a_required_or_unknown_field_is_still_reported() {
    assert_eq!(
        err(json!({"file_path": null, "bogus": null})),
        "<tool_use_error>InputValidationError: Probe failed due to the following issues:\n\
An unexpected parameter `bogus` was provided\n\
The parameter `file_path` type is expected as `string` but provided as `null`</tool_use_error>"
    );
}

#[test]
fn null_is_kept_where_the_schema_accepts_it() {
    let probe = Probe::with_schema(
        "ProbeNullable",
        json!({
            "type": "object",
            "properties": {
                "mode": {"type": ["string", "null"]},
                "any": {"description": "anything"},
                "choice": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "additionalProperties": false
        }),
    );
    let input = json!({"mode": null, "any": null, "choice": null});
    assert_eq!(
        validate_tool_input(&*typed(probe.clone()), &input),
        Ok(input)
    );
}
