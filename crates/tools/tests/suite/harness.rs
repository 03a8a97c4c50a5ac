//! The one harness of the tool suites: drives a tool through the erased
//! contract as the engine does. Two ways in:
//! - by registered name (`builtin`, `run`, `run_with`): schema validation
//!   and coercion (T3) → `Tool::parse` (the typed input, parsed once, and
//!   the call's facts) → `ToolCall::validate` (business rules, the plan) →
//!   `ToolCall::call`; a refusal stays a `ToolError`;
//! - by typed tool (`call`, `try_call`, `call_with`, `success_text`): the
//!   same on the tool's registry entry (`typed`), then the workspace cwd
//!   policy the orchestrator applies (`apply_cwd_policy`); a refusal comes
//!   back as `Err(text)`, the text the engine would wrap in
//!   `<tool_use_error>`.
//!
//! Plus the shared fixtures: a session in a temp dir, files the session has
//! read, and one-line Write / Edit calls.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use orbit_protocol::ToolResultContent;
use orbit_tool::{
    CallContext, CallFacts, Tool, ToolCall, ToolError, ToolOutput, ToolUseContext, TypedTool,
    apply_cwd_policy, typed,
};
use orbit_tools::builtin::default_tools;
use orbit_tools::validation::validate_tool_input;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A session rooted in a fresh temp dir: the dir (kept alive), the
/// context, and the canonical root (how tools print paths).
pub fn session() -> (TempDir, ToolUseContext, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolUseContext::new("s", root.clone(), root.join(".orbit"));
    (dir, ctx, root)
}

/// The built-in tool registered as `name`, as the engine holds it.
pub fn builtin(name: &str) -> Arc<dyn Tool> {
    match default_tools().find(name) {
        Some(tool) => tool,
        None => panic!("no built-in tool {name}"),
    }
}

/// Validates `input` against the tool's schema (coercing it, as the engine
/// does) and parses it; the input must be schema-valid.
pub fn parse(tool: &Arc<dyn Tool>, ctx: &ToolUseContext, input: &Value) -> Box<dyn ToolCall> {
    let input = match validate_tool_input(tool.as_ref(), input) {
        Ok(coerced) => coerced,
        Err(text) => panic!("{} input is not schema-valid: {text}", tool.name()),
    };
    match tool.parse(input, ctx) {
        Ok(call) => call,
        Err(e) => panic!("{} input did not parse: {e:?}", tool.name()),
    }
}

/// The facts a call with `input` declares.
pub fn facts(tool: &Arc<dyn Tool>, ctx: &ToolUseContext, input: &Value) -> CallFacts {
    parse(tool, ctx, input).facts().clone()
}

/// parse → validate → call with the given call context.
pub async fn run_with(
    tool: &Arc<dyn Tool>,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> Result<ToolOutput, ToolError> {
    let mut parsed = parse(tool, ctx, &input);
    parsed.validate(ctx).await?;
    parsed.call(ctx, call).await
}

/// parse → validate → call, never cancelled.
pub async fn run(
    tool: &Arc<dyn Tool>,
    ctx: &ToolUseContext,
    input: Value,
) -> Result<ToolOutput, ToolError> {
    run_with(tool, ctx, input, &CallContext::detached("toolu_1")).await
}

/// The output of a call that was not refused; panics on a `ToolError`.
pub fn output(result: Result<ToolOutput, ToolError>) -> ToolOutput {
    match result {
        Ok(out) => out,
        Err(e) => panic!("expected an output, got {e:?}"),
    }
}

/// What a call's result says when it must be a refusal.
pub trait Refusal {
    /// The text of a `ToolError::RespondToModel` (the engine wraps it in
    /// `<tool_use_error>`); panics on an output or a fatal error.
    fn unwrap_refusal(self) -> String;
}

impl Refusal for Result<ToolOutput, ToolError> {
    fn unwrap_refusal(self) -> String {
        match self {
            Err(ToolError::RespondToModel(text)) => text,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

/// The text of an output that must be text.
pub fn text(out: &ToolOutput) -> &str {
    match &out.content {
        ToolResultContent::Text(t) => t,
        other => panic!("expected text, got {other:?}"),
    }
}

/// A path as the `file_path` string of an input.
pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The permission bits of the file at `path`.
pub fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A file with `content` (named relative to the cwd) that the session has
/// read.
pub async fn read_file(ctx: &ToolUseContext, name: &str, content: &[u8]) -> PathBuf {
    let path = ctx.cwd().join(name);
    fs::write(&path, content).unwrap();
    read_path(ctx, &path).await;
    path
}

/// Reads the file at `path` in the session; the read must succeed.
pub async fn read_path(ctx: &ToolUseContext, path: &Path) {
    let out = output(run(&builtin("Read"), ctx, json!({"file_path": p(path)})).await);
    assert!(!out.is_error, "{out:?}");
}

/// Write `content` to `path` through the registered Write tool.
pub async fn write(
    ctx: &ToolUseContext,
    path: &Path,
    content: &str,
) -> Result<ToolOutput, ToolError> {
    run(
        &builtin("Write"),
        ctx,
        json!({"file_path": p(path), "content": content}),
    )
    .await
}

/// Replace `old` by `new` in `path` through the registered Edit tool.
pub async fn edit(
    ctx: &ToolUseContext,
    path: &Path,
    old: &str,
    new: &str,
) -> Result<ToolOutput, ToolError> {
    let input = json!({"file_path": p(path), "old_string": old, "new_string": new});
    run(&builtin("Edit"), ctx, input).await
}

fn refusal(e: ToolError) -> String {
    match e {
        ToolError::RespondToModel(text) => text,
        ToolError::Fatal(text) => format!("fatal: {text}"),
    }
}

/// One call of a typed tool as the orchestrator runs it: [`run_with`]
/// on its registry entry, then the workspace cwd policy.
async fn drive<T: TypedTool>(
    tool: T,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> Result<ToolOutput, String> {
    let mut output = run_with(&typed(tool), ctx, input, call)
        .await
        .map_err(refusal)?;
    apply_cwd_policy(ctx, &mut output);
    Ok(output)
}

/// One call with a detached call context; `Err` is a refusal.
pub async fn try_call<T: TypedTool>(
    tool: T,
    ctx: &ToolUseContext,
    input: Value,
) -> Result<ToolOutput, String> {
    drive(tool, ctx, input, &CallContext::detached("toolu_1")).await
}

/// The refusal text of a call that must be refused.
pub async fn refused<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> String {
    match try_call(tool, ctx, input).await {
        Ok(out) => panic!("expected a refusal, got {out:?}"),
        Err(text) => text,
    }
}

/// What the search tools say when `name` (under `root`, the cwd) is not
/// there; `what` is "Directory" or "Path".
pub fn missing_under_cwd(what: &str, root: &Path, name: &str) -> String {
    let root = root.display();
    format!("{what} does not exist: {root}/{name}. Note: your current working directory is {root}.")
}

/// A search tool (Glob, Grep) declares, for each `(input, read)` row, a
/// read-only, concurrency-safe, non-destructive call of no command that
/// reads `read` and whose subject is the input's pattern.
pub fn assert_search_facts<T: TypedTool + Copy>(
    tool: T,
    ctx: &ToolUseContext,
    rows: &[(Value, PathBuf)],
) {
    for (input, read) in rows {
        let f = typed_facts(tool, ctx, input.clone());
        assert!(
            f.read_only && f.concurrency_safe && !f.destructive,
            "{input}"
        );
        assert_eq!(f.reads, vec![read.clone()], "{input}");
        assert_eq!(Some(f.subject.as_str()), input["pattern"].as_str());
        assert!(
            f.command.is_none() && !f.failure_cancels_siblings,
            "{input}"
        );
    }
}

/// One call that must not be refused.
pub async fn call<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> ToolOutput {
    try_call(tool, ctx, input)
        .await
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

/// One call with this call context, which must not be refused.
pub async fn call_with<T: TypedTool>(
    tool: T,
    ctx: &ToolUseContext,
    input: Value,
    call: &CallContext,
) -> ToolOutput {
    drive(tool, ctx, input, call)
        .await
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

/// The text of a successful call.
pub async fn success_text<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> String {
    let out = call(tool, ctx, input).await;
    assert!(!out.is_error, "unexpected error: {out:?}");
    out.content.as_text()
}

/// The facts a call with this input declares.
pub fn typed_facts<T: TypedTool>(tool: T, ctx: &ToolUseContext, input: Value) -> CallFacts {
    match typed(tool).parse(input, ctx) {
        Ok(call) => call.facts().clone(),
        Err(e) => panic!("unparsable input: {e}"),
    }
}
