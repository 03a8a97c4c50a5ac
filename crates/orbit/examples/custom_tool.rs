//! A custom tool next to the built-ins: a typed input parsed once, facts
//! the permission gate decides by (read-only: allowed without asking), and
//! the call. `cargo run -p orbit --example custom_tool`

use orbit::{
    CallContext, CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};

/// Input of `LineCount`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LineCountInput {
    /// Path of a text file, absolute or relative to the working directory
    path: String,
}

/// Counts the lines of a file.
struct LineCount;

#[async_trait::async_trait]
impl TypedTool for LineCount {
    type Input = LineCountInput;
    /// The resolved path, checked to be a file.
    type Plan = std::path::PathBuf;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(
            "LineCount",
            "Counts the lines of a text file. Prefer it to reading a whole file just to count.",
        )
        .with_result_limit(ResultLimit::PersistOver(1_000))
    }

    fn facts(&self, input: &LineCountInput, ctx: &ToolUseContext) -> CallFacts {
        let path = ctx.resolve_path(&input.path);
        CallFacts {
            read_only: true,
            concurrency_safe: true,
            subject: input.path.clone(),
            reads: vec![path],
            ..CallFacts::default()
        }
    }

    async fn validate(
        &self,
        input: LineCountInput,
        ctx: &ToolUseContext,
    ) -> Result<std::path::PathBuf, ToolError> {
        let path = ctx.resolve_path(&input.path);
        if !path.is_file() {
            return Err(ToolError::RespondToModel(format!(
                "{} is not a file.",
                input.path
            )));
        }
        Ok(path)
    }

    async fn call(
        &self,
        path: std::path::PathBuf,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        match std::fs::read(&path) {
            Ok(bytes) => Ok(ToolOutput::text(format!(
                "{} lines",
                bytes.iter().filter(|b| **b == b'\n').count()
            ))),
            Err(e) => Ok(ToolOutput::error(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), orbit::Error> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "How many lines does Cargo.toml have? Use LineCount.".into());
    let mut agent = orbit::Agent::builder().tool(LineCount).build()?;
    let result = agent.ask(prompt).await?;
    println!("{}", result.result);
    Ok(())
}
