//! The one adapter from a [`TypedTool`] to the object-safe [`Tool`] the
//! registry holds: [`typed`] computes the schema once; a parse yields a
//! `TypedCall` that carries the typed input to its plan (validate) and the
//! plan to the call, each consumed once.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::{CallFacts, ResultLimit, Tool, ToolCall, ToolError, ToolOutput, TypedTool};
use crate::context::{CallContext, ToolUseContext};
use crate::texts;

/// Wraps a [`TypedTool`] as a registry entry; its schema is computed here,
/// once.
pub fn typed<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    let schema = tool.input_schema();
    Arc::new(Typed {
        tool: Arc::new(tool),
        schema,
    })
}

struct Typed<T: TypedTool> {
    tool: Arc<T>,
    schema: Value,
}

impl<T: TypedTool> Tool for Typed<T> {
    fn name(&self) -> &str {
        self.tool.info().name
    }

    fn aliases(&self) -> &[&str] {
        self.tool.info().aliases
    }

    fn search_hint(&self) -> Option<&str> {
        self.tool.info().search_hint
    }

    fn description(&self) -> &str {
        self.tool.info().description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn result_limit(&self) -> ResultLimit {
        self.tool.info().result_limit
    }
    fn read_only(&self) -> bool {
        self.tool.info().read_only
    }

    fn is_enabled(&self) -> bool {
        self.tool.is_enabled()
    }

    fn should_defer(&self) -> bool {
        self.tool.should_defer()
    }

    fn parse(&self, input: Value, ctx: &ToolUseContext) -> Result<Box<dyn ToolCall>, ToolError> {
        let input: T::Input = serde_json::from_value(input).map_err(|e| {
            ToolError::RespondToModel(texts::validation::validation_issues(
                self.tool.info().name,
                &[e.to_string()],
            ))
        })?;
        // A panic while stating facts must not take the session down: the
        // call then gets the most conservative facts (not read-only, not
        // concurrency-safe: it runs alone, and asks where asking applies).
        let facts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.tool.facts(&input, ctx)
        }))
        .unwrap_or_default();
        Ok(Box::new(TypedCall {
            tool: Arc::clone(&self.tool),
            facts,
            stage: Stage::Parsed(input),
        }))
    }
}

enum Stage<T: TypedTool> {
    Parsed(T::Input),
    Planned(T::Plan),
    Spent,
}

struct TypedCall<T: TypedTool> {
    tool: Arc<T>,
    facts: CallFacts,
    stage: Stage<T>,
}

#[async_trait]
impl<T: TypedTool> ToolCall for TypedCall<T> {
    fn facts(&self) -> &CallFacts {
        &self.facts
    }

    async fn validate(&mut self, ctx: &ToolUseContext) -> Result<(), ToolError> {
        // Validating twice (the engine validates, then `call` makes sure)
        // keeps the plan; a refused call is left spent.
        self.stage = match std::mem::replace(&mut self.stage, Stage::Spent) {
            Stage::Parsed(input) => Stage::Planned(self.tool.validate(input, ctx).await?),
            done => done,
        };
        Ok(())
    }

    async fn call(
        mut self: Box<Self>,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        self.validate(ctx).await?;
        match std::mem::replace(&mut self.stage, Stage::Spent) {
            Stage::Planned(plan) => self.tool.call(plan, ctx, call).await,
            Stage::Parsed(_) | Stage::Spent => Err(ToolError::Fatal(
                texts::engine::call_not_validated_detail(self.tool.info().name),
            )),
        }
    }
}
