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

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use orbit_protocol::{ToolResultContent, ToolResultContentBlock};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{CallContext, ToolUseContext};
use crate::detail::ToolDetail;
use crate::schema::input_schema_for;
use crate::texts;

pub use crate::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;

/// How a call is refused or fails outside its normal output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The call is refused (a business rule, a stale file, a bad path): the
    /// model receives `<tool_use_error>TEXT</tool_use_error>` (is_error) and
    /// can correct itself.
    #[error("{0}")]
    RespondToModel(String),
    /// The tool broke in a way the model cannot fix (an I/O error of orbit's
    /// own state, a bug). The model receives an error result naming the
    /// tool; the engine logs it at error level.
    #[error("{0}")]
    Fatal(String),
}

/// What a tool call produced, before the engine's result pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model receives (after the pipeline: empty placeholder,
    /// persist-if-large, error format).
    pub content: ToolResultContent,
    /// The tool ran and failed (a command's non-zero exit): sent with
    /// `is_error` and what may cancel siblings
    /// ([`CallFacts::failure_cancels_siblings`]).
    pub is_error: bool,
    /// The raw output when `content` was shaped for the model (Bash trims
    /// trailing whitespace). When the result is too large and persisted,
    /// this is what the saved file holds, byte-exact.
    pub full_text: Option<String>,
    /// The working directory the call ended in (a shell's `cd`). The
    /// orchestrator decides whether the session keeps it (workspace roots).
    pub cwd: Option<PathBuf>,
    /// Facts about what the call did, for the embedder only (never sent to
    /// the model): the file a Read showed, the patch an Edit made, a
    /// command's streams. Reaches `EngineEvent::ToolResult::detail` (as
    /// [`ToolDetail::to_value`]).
    pub detail: Option<ToolDetail>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self::with_content(ToolResultContent::Text(text.into()), false)
    }

    /// A failed run (is_error) with this text.
    pub fn error(text: impl Into<String>) -> Self {
        Self::with_content(ToolResultContent::Text(text.into()), true)
    }

    /// The answer of a call that was cancelled before it acted
    /// ([`INTERRUPT_MESSAGE_FOR_TOOL_USE`]).
    pub fn interrupted() -> Self {
        Self::error(INTERRUPT_MESSAGE_FOR_TOOL_USE)
    }

    /// A successful result of several blocks (text and images).
    pub fn blocks(blocks: Vec<ToolResultContentBlock>) -> Self {
        Self::with_content(ToolResultContent::Blocks(blocks), false)
    }

    fn with_content(content: ToolResultContent, is_error: bool) -> Self {
        Self {
            content,
            is_error,
            full_text: None,
            cwd: None,
            detail: None,
        }
    }

    /// Attaches facts for the embedder (see `detail`).
    pub fn with_detail(mut self, detail: ToolDetail) -> Self {
        self.detail = Some(detail);
        self
    }

    /// Attaches the raw output to persist instead of `content` (see `full_text`).
    pub fn with_full_text(mut self, raw: String) -> Self {
        self.full_text = Some(raw);
        self
    }

    /// Reports the working directory the call ended in (see `cwd`).
    pub fn with_cwd(mut self, cwd: PathBuf) -> Self {
        self.cwd = Some(cwd);
        self
    }
}

/// Whether and when a tool's results are saved to disk instead of being
/// sent whole (R1), and whether the per-message budget (R2) may replace
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLimit {
    /// A result longer than this many chars is persisted and replaced by a
    /// preview; the budget may replace it too.
    PersistOver(usize),
    /// Never persisted, never replaced by the budget: the tool bounds its
    /// own output (Read: persisting a file only for the model to Read the
    /// copy again would loop).
    NeverPersist,
}

/// What one call will do, declared by its tool for its input. Policy
/// (partitioning, permissions, sibling abort, workspace boundaries) reads
/// these facts and never a tool's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFacts {
    /// No side effect: it only reads. Auto-approved in default mode,
    /// allowed in plan mode, discarded rather than kept by a retry.
    pub read_only: bool,
    /// May run at the same time as other concurrency-safe calls (X1).
    pub concurrency_safe: bool,
    /// Irreversible (deletes or overwrites without a way back).
    pub destructive: bool,
    /// Files or directories it reads, resolved against the session's cwd.
    pub reads: Vec<PathBuf>,
    /// Files it creates or changes, resolved against the session's cwd.
    pub writes: Vec<PathBuf>,
    /// The URL it fetches, if it reaches the network.
    pub network: Option<String>,
    /// The shell command it runs, if it runs one (command rules match it).
    pub command: Option<String>,
    /// The command only manages files (Claude Code's filesystem commands:
    /// `mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`, `sed -i`, read
    /// strictly) and `reads`/`writes` are all it touches: `acceptEdits`
    /// allows it as it allows a file edit, where those paths allow one.
    pub file_management: bool,
    /// When this call fails, its running siblings that also have this fact
    /// are cancelled (X5: shell commands of one batch often depend on each
    /// other; independent tools do not).
    pub failure_cancels_siblings: bool,
    /// The call's subject for a person: the command, path, pattern or URL
    /// (`Bash(false)`, `Read(src/main.rs)`).
    pub subject: String,
    /// It runs a process outside the session's OS sandbox although one is
    /// active (the model asked to): only an allow rule or a person may
    /// approve it.
    pub unsandboxed: bool,
    /// Files the call may print although its words do not name them (the
    /// committed copies a git command can show): a Read deny or ask rule
    /// covering one makes the call ask, in every mode.
    pub may_read: Vec<PathBuf>,
    /// The command may run a program its words do not show (a repository's
    /// configured program, a project file found through a relative `PATH`
    /// entry): no part of it counts as read-only on the shell analysis
    /// alone, so allow rules must match every part.
    pub hidden_programs: bool,
}

impl CallFacts {
    /// A call about `subject` that declares nothing else: not read-only,
    /// not concurrency-safe, no paths, no URL, no command. Add facts with
    /// [`CallFacts::only_reads`], [`CallFacts::reading`],
    /// [`CallFacts::writing`] and [`CallFacts::fetching`]; set the others
    /// with struct update syntax.
    ///
    /// ```
    /// # use std::path::PathBuf;
    /// # use orbit_tool::CallFacts;
    /// let facts = CallFacts::about("src/main.rs")
    ///     .only_reads()
    ///     .reading(PathBuf::from("/work/src/main.rs"));
    /// assert!(facts.read_only && facts.concurrency_safe && !facts.destructive);
    /// assert_eq!(facts.reads, [PathBuf::from("/work/src/main.rs")]);
    /// let shell = CallFacts {
    ///     command: Some("make".into()),
    ///     failure_cancels_siblings: true,
    ///     ..CallFacts::about("make")
    /// };
    /// assert!(!shell.read_only && shell.writes.is_empty());
    /// ```
    pub fn about(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// The same call, read-only and concurrency-safe: it has no side effect
    /// and may run beside other such calls.
    pub fn only_reads(self) -> Self {
        Self {
            read_only: true,
            concurrency_safe: true,
            ..self
        }
    }

    /// The same call, reading `path` too.
    pub fn reading(mut self, path: PathBuf) -> Self {
        self.reads.push(path);
        self
    }

    /// The same call, creating or changing the file at `path` too.
    pub fn writing(mut self, path: PathBuf) -> Self {
        self.writes.push(path);
        self
    }

    /// The same call, reaching the network at `url`.
    pub fn fetching(self, url: impl Into<String>) -> Self {
        Self {
            network: Some(url.into()),
            ..self
        }
    }
}

/// What a tool says about itself, the same for every call: the name the
/// model calls it by, other names it answers to (T2), keywords for
/// deferred-tool search, the description the model is told, and how its
/// results are limited (R1/R2).
///
/// Build it with the `const` [`ToolInfo::new`] (name and description) and
/// set the rest with [`ToolInfo::with_search_hint`],
/// [`ToolInfo::with_aliases`] and [`ToolInfo::with_result_limit`]:
///
/// ```
/// # use orbit_tool::{ResultLimit, ToolInfo};
/// let info = ToolInfo::new("LineCount", "Counts the lines of a file.")
///     .with_search_hint("count lines")
///     .with_result_limit(ResultLimit::PersistOver(1_000));
/// assert_eq!(info.aliases, &[] as &[&str]);
/// ```
///
/// A built-in returns fixed text; a tool whose name or description comes
/// from elsewhere (an MCP server) borrows them from itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolInfo<'a> {
    /// The name the model calls it by.
    pub name: &'a str,
    /// Other names the model may call it by (T2); none by default.
    pub aliases: &'a [&'a str],
    /// Keywords for deferred-tool search; none by default.
    pub search_hint: Option<&'a str>,
    /// What the model is told about the tool. Keep it short: every byte is
    /// sent on every request.
    pub description: &'a str,
    /// R1/R2 for its results; [`ToolInfo::DEFAULT_RESULT_LIMIT`] unless set.
    pub result_limit: ResultLimit,
    /// Every call only reads (MCP's `readOnlyHint`); false by default, as
    /// for a tool whose calls may write.
    pub read_only: bool,
}

impl<'a> ToolInfo<'a> {
    /// The result limit of a tool that sets none: a result longer than
    /// 100,000 chars is persisted.
    pub const DEFAULT_RESULT_LIMIT: ResultLimit = ResultLimit::PersistOver(100_000);

    /// A tool called `name`, told to the model as `description`; no
    /// aliases, no search hint, [`ToolInfo::DEFAULT_RESULT_LIMIT`].
    pub const fn new(name: &'a str, description: &'a str) -> Self {
        Self {
            name,
            aliases: &[],
            search_hint: None,
            description,
            result_limit: Self::DEFAULT_RESULT_LIMIT,
            read_only: false,
        }
    }

    /// The same, every call of it only reading (what a call may do is still
    /// decided by its own [`CallFacts`]).
    pub const fn only_reads(self) -> Self {
        Self {
            read_only: true,
            ..self
        }
    }

    /// The same, its results limited by `result_limit` (R1/R2).
    pub const fn with_result_limit(self, result_limit: ResultLimit) -> Self {
        Self {
            result_limit,
            ..self
        }
    }

    /// The same, answering to these other names too.
    pub const fn with_aliases(self, aliases: &'a [&'a str]) -> Self {
        Self { aliases, ..self }
    }

    /// The same, found by deferred-tool search with these keywords.
    pub const fn with_search_hint(self, search_hint: &'a str) -> Self {
        Self {
            search_hint: Some(search_hint),
            ..self
        }
    }
}

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
