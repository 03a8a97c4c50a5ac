//! The tool contract: the typed [`TypedTool`] a tool author implements
//! (what it says about itself in one [`ToolInfo`]), the object-safe
//! [`Tool`] the registry holds (one blanket adapter, [`typed`], turns the
//! first into the second), the facts a call declares
//! ([`CallFacts`]), what a call produces ([`ToolOutput`]) and how it is
//! refused ([`ToolError`]).
//!
//! Data flow of one call, driven by the engine's orchestrator:
//! JSON input → schema validation + coercion (`validation`, the exact T3
//! texts) → [`Tool::parse`]: the typed input, parsed once, and the call's
//! [`CallFacts`] (read-only? concurrency-safe? which paths, which host,
//! which command?) → policy decides from the facts, never from the tool's
//! name → [`ToolCall::validate`]: business rules, computing the plan the
//! call will carry out (Edit reads its file once, here) → permission gate →
//! [`ToolCall::call`]: consumes the plan → the result pipeline.

//!
//! The values live in submodules by idea, re-exported here: `output`
//! (what a call produces), `facts` (what a tool and a call declare) and
//! `typed` (the adapter).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{CallContext, ToolUseContext};
use crate::schema::input_schema_for;

mod facts;
mod output;
mod typed;

pub use crate::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
pub use facts::{CallFacts, ToolInfo};
pub use output::{ResultLimit, ToolError, ToolOutput};
pub use typed::typed;

/// A tool, typed: its input is parsed once into `Input`, its business
/// validation computes a `Plan`, and `call` carries the plan out. Register
/// it with [`typed`].
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The input, deserialized from the model's JSON after schema validation.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// What validation found out and the call needs (often the input itself).
    type Plan: Send + Sync + 'static;

    /// What the tool says about itself: name, aliases, search keywords,
    /// description and result limit, in one value (see [`ToolInfo`]).
    fn info(&self) -> ToolInfo<'_>;

    /// JSON Schema of the input: by default derived from `Input` (lean, see
    /// [`input_schema_for`]); a tool whose schema comes from elsewhere (an
    /// MCP server) returns it here. Computed once, at registration.
    fn input_schema(&self) -> Value {
        input_schema_for::<Self::Input>()
    }

    /// Whether the tool is offered at all (e.g. a tool that needs a program
    /// that is not installed). Asked per request.
    fn is_enabled(&self) -> bool {
        true
    }

    /// The tool may be deferred (see [`Tool::should_defer`]).
    fn should_defer(&self) -> bool {
        false
    }

    /// The facts of a call with this input (synchronous and cheap: it runs
    /// as soon as the call's block has streamed).
    fn facts(&self, input: &Self::Input, ctx: &ToolUseContext) -> CallFacts;

    /// Business rules after schema validation; the plan the call will use.
    async fn validate(
        &self,
        input: Self::Input,
        ctx: &ToolUseContext,
    ) -> Result<Self::Plan, ToolError>;

    /// Runs the call. Must return promptly once `call.cancel` fires, and
    /// check it right before any side effect.
    async fn call(
        &self,
        plan: Self::Plan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError>;
}

/// The object-safe form of a tool, as the registry holds it. Implemented
/// for every [`TypedTool`] by [`typed`]; implement [`TypedTool`], not this.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// Other names the model may call it by; none by default.
    fn aliases(&self) -> &[&str] {
        &[]
    }
    /// Keywords for deferred-tool search; none by default.
    fn search_hint(&self) -> Option<&str> {
        None
    }
    /// What the model is told about the tool.
    fn description(&self) -> &str;
    /// JSON Schema of the input.
    fn input_schema(&self) -> &Value;
    /// R1/R2 for its results.
    fn result_limit(&self) -> ResultLimit;
    /// Every call only reads ([`ToolInfo::read_only`]); false by default.
    fn read_only(&self) -> bool {
        false
    }
    /// Whether the tool is offered at all; by default it is.
    fn is_enabled(&self) -> bool {
        true
    }
    /// Parses a schema-valid input once; the call knows its facts.
    fn parse(&self, input: Value, ctx: &ToolUseContext) -> Result<Box<dyn ToolCall>, ToolError>;
    /// The tool may be deferred: when deferral is on, the request lists
    /// only its name and the model loads its definition with ToolSearch
    /// (MCP tools). The engine decides whether deferral is on.
    fn should_defer(&self) -> bool {
        false
    }
    /// The tool is always sent in full, even when it could be deferred.
    fn always_load(&self) -> bool {
        false
    }
    /// Whether the tool can be called now. A stand-in for a tool whose
    /// definition is still arriving (an MCP server connecting) is
    /// [`Readiness::NotYet`]: the orchestrator awaits [`Tool::ready`], then
    /// looks the tool up again and validates the input against its real
    /// schema like any call.
    fn readiness(&self) -> Readiness {
        Readiness::Ready
    }
    /// Resolves once the tool's real definition is available; `Err` is why
    /// it never will be (the model is told). Only awaited when
    /// [`Tool::readiness`] says [`Readiness::NotYet`].
    fn ready(&self) -> ToolReadyFuture<'_> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// What [`Tool::ready`] returns.
pub type ToolReadyFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send + 'a>>;

/// Whether a tool can be called now (see [`Tool::readiness`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Callable: its schema is the real one.
    Ready,
    /// Not yet: [`Tool::ready`] resolves within this bound (an MCP server's
    /// `MCP_TIMEOUT`); the orchestrator gives up after it.
    NotYet {
        /// The longest the tool may take to become ready.
        within: std::time::Duration,
    },
}

/// One parsed call of a tool: facts now, then validate, then call.
#[async_trait]
pub trait ToolCall: Send + Sync {
    /// What this call will do.
    fn facts(&self) -> &CallFacts;
    /// Business rules; keeps the plan for [`ToolCall::call`].
    async fn validate(&mut self, ctx: &ToolUseContext) -> Result<(), ToolError>;
    /// Runs the call (validating first if that has not happened).
    async fn call(
        self: Box<Self>,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError>;
}
