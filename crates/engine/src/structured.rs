//! Structured output (`--json-schema`): the synthetic `StructuredOutput`
//! tool whose input schema is the caller's JSON Schema, and the state the
//! query loop reads back from it.
//!
//! Data flow: the embedder checks a schema once ([`StructuredOutputSchema::new`]:
//! a JSON object that compiles as a JSON Schema and describes an object,
//! since it becomes a tool's input schema) and puts it in
//! `EngineConfig::structured_output` → `QueryEngine::new` registers the
//! tool through the ordinary contract ([`orbit_tool::typed`]) → the model
//! calls it like any tool: the orchestrator validates the input against the
//! schema (invalid input is answered with the T3 validation errors, so the
//! model can correct itself) → a valid call stores its input in the shared
//! `StructuredOutputSlot` and answers `Structured output provided
//! successfully` → the query loop ends the run with that value as the
//! result's `structured_output`. The loop counts failed attempts (see
//! `query::guards`).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use orbit_tool::texts::engine::{
    STRUCTURED_OUTPUT_ACCEPTED, STRUCTURED_OUTPUT_DESCRIPTION, STRUCTURED_OUTPUT_TOOL_NAME,
};
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use serde_json::Value;

use crate::lock::lock;

/// Default attempts at valid structured output (Claude Code's
/// `MAX_STRUCTURED_OUTPUT_RETRIES`).
pub const DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES: u32 = 5;

/// Why a `--json-schema` schema was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The schema is not a JSON object.
    #[error("the schema must be a JSON object, not {0}")]
    NotAnObject(&'static str),
    /// The schema does not compile as a JSON Schema.
    #[error("not a valid JSON Schema: {0}")]
    Invalid(String),
    /// The schema describes something other than an object; tool inputs
    /// are objects.
    #[error("the schema must describe an object (\"type\": \"object\"), not {0}")]
    NotObjectType(String),
}

/// A JSON Schema checked for use as the `StructuredOutput` tool's input.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutputSchema {
    schema: Value,
}

impl StructuredOutputSchema {
    /// Checks `schema`: a JSON object, a valid JSON Schema, and (when it
    /// names a `type`) of type `object`. A schema without `type` gets
    /// `"type": "object"`.
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        let Value::Object(mut map) = schema else {
            return Err(SchemaError::NotAnObject(json_kind(&schema)));
        };
        match map.get("type") {
            None => {
                map.insert("type".into(), Value::String("object".into()));
            }
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => return Err(SchemaError::NotObjectType(other.to_string())),
        }
        let schema = Value::Object(map);
        jsonschema::validator_for(&schema).map_err(|e| SchemaError::Invalid(e.to_string()))?;
        Ok(Self { schema })
    }

    /// The schema, as the tool's input schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where a valid `StructuredOutput` call leaves its input for the loop.
#[derive(Debug, Clone, Default)]
pub(crate) struct StructuredOutputSlot(Arc<Mutex<Option<Value>>>);

impl StructuredOutputSlot {
    fn put(&self, value: Value) {
        *lock(&self.0) = Some(value);
    }

    /// The value a valid call left, taken (the next run starts empty).
    pub(crate) fn take(&self) -> Option<Value> {
        lock(&self.0).take()
    }
}

/// What the query loop knows of structured output for one session.
#[derive(Debug, Clone)]
pub(crate) struct StructuredOutput {
    pub(crate) slot: StructuredOutputSlot,
    /// Failed attempts (invalid calls, turns ended without a call) allowed.
    pub(crate) max_attempts: u32,
}

impl StructuredOutput {
    /// Whether `tool_name` is a call of the tool this engine registered
    /// (the engine recognizes its own synthetic tool; no policy reads it).
    pub(crate) fn is_own_tool(tool_name: &str) -> bool {
        tool_name == STRUCTURED_OUTPUT_TOOL_NAME
    }
}

/// The synthetic tool; its input is the structured output.
pub(crate) struct StructuredOutputTool {
    pub(crate) schema: StructuredOutputSchema,
    pub(crate) slot: StructuredOutputSlot,
}

#[async_trait]
impl TypedTool for StructuredOutputTool {
    type Input = Value;
    type Plan = Value;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(STRUCTURED_OUTPUT_TOOL_NAME, STRUCTURED_OUTPUT_DESCRIPTION)
            .with_result_limit(ResultLimit::NeverPersist)
    }

    fn input_schema(&self) -> Value {
        self.schema.schema.clone()
    }

    fn facts(&self, _input: &Value, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(STRUCTURED_OUTPUT_TOOL_NAME).only_reads()
    }

    async fn validate(&self, input: Value, _ctx: &ToolUseContext) -> Result<Value, ToolError> {
        // The orchestrator validated the input against the schema already.
        Ok(input)
    }

    async fn call(
        &self,
        input: Value,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        self.slot.put(input);
        Ok(ToolOutput::text(STRUCTURED_OUTPUT_ACCEPTED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_are_checked() {
        let ok = StructuredOutputSchema::new(json!({"properties": {"a": {"type": "string"}}}));
        assert_eq!(ok.map(|s| s.schema()["type"].clone()), Ok(json!("object")));
        let cases = [
            (json!([1]), "the schema must be a JSON object, not an array"),
            (
                json!({"type": "string"}),
                "the schema must describe an object (\"type\": \"object\"), not \"string\"",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "strang"}}}),
                "not a valid JSON Schema",
            ),
        ];
        for (schema, expected) in cases {
            let err = StructuredOutputSchema::new(schema)
                .err()
                .map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.starts_with(expected)),
                "{err:?} should start with {expected}"
            );
        }
    }
}
