//! BashOutput and KillShell: the model's handles on background shells.
//!
//! Both look the shell up by id in the session's
//! [`BackgroundShells`] registry. BashOutput returns what the shell wrote
//! since the previous BashOutput call for that id (optionally only lines
//! matching `filter`) with its status, in Claude Code's tagged layout:
//! `<status>…</status>`, `<exit_code>…</exit_code>` once it ended,
//! `<stdout>…</stdout>`, `<stderr>…</stderr>` (sections without content are
//! left out). KillShell SIGKILLs the shell's process group. A cancelled
//! call does neither: no output is consumed unseen, no shell is killed.

use async_trait::async_trait;
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::background::{BackgroundShells, ShellStatus};
use crate::context::{CallContext, ToolUseContext};
use crate::tool::{Tool, ToolOutput, input_schema_for};

/// BashOutput results above this many chars are persisted by the engine.
pub const BASH_OUTPUT_MAX_RESULT_SIZE_CHARS: usize = 30_000;
/// KillShell answers one short line.
pub const KILL_SHELL_MAX_RESULT_SIZE_CHARS: usize = 10_000;

fn no_shell(id: &str) -> String {
    format!("No shell found with ID: {id}")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashOutputInput {
    /// The ID of the background shell to retrieve output from
    pub bash_id: String,
    /// Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.
    #[serde(default)]
    #[schemars(with = "String")]
    pub filter: Option<String>,
}

/// Reads new output of a background shell.
#[derive(Debug)]
pub struct BashOutputTool {
    schema: Value,
}

impl BashOutputTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<BashOutputInput>(),
        }
    }
}

impl Default for BashOutputTool {
    fn default() -> Self {
        Self::new()
    }
}

fn compile_filter(filter: Option<&str>) -> Result<Option<Regex>, String> {
    match filter {
        None | Some("") => Ok(None),
        Some(f) => Regex::new(f)
            .map(Some)
            .map_err(|e| format!("Invalid regular expression \"{f}\": {e}")),
    }
}

/// Lines of `text` matching `filter`, trailing newlines trimmed.
fn filtered(text: &str, filter: Option<&Regex>) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    match filter {
        None => text.to_string(),
        Some(re) => text
            .lines()
            .filter(|l| re.is_match(l))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[async_trait]
impl Tool for BashOutputTool {
    fn name(&self) -> &str {
        "BashOutput"
    }

    fn description(&self) -> &str {
        "Retrieves output from a running or completed background bash shell: only the output \
produced since the last BashOutput call for that shell, plus its status. Optional `filter` \
keeps only matching lines."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> usize {
        BASH_OUTPUT_MAX_RESULT_SIZE_CHARS
    }

    async fn validate_input(&self, input: &Value, ctx: &ToolUseContext) -> Result<(), String> {
        let id = input.get("bash_id").and_then(Value::as_str).unwrap_or("");
        if BackgroundShells::of(ctx).get(id).is_none() {
            return Err(no_shell(id));
        }
        compile_filter(input.get("filter").and_then(Value::as_str)).map(|_| ())
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input: BashOutputInput = match serde_json::from_value(input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(format!("Invalid BashOutput input: {e}")),
        };
        let filter = match compile_filter(input.filter.as_deref()) {
            Ok(f) => f,
            Err(e) => return ToolOutput::error(e),
        };
        let Some(shell) = BackgroundShells::of(ctx).get(&input.bash_id) else {
            return ToolOutput::error(no_shell(&input.bash_id));
        };
        if call.cancel.is_cancelled() {
            // Taking the output would hide it from the next call.
            return ToolOutput::interrupted();
        }
        let new = shell.take_new_output();
        let mut parts = vec![format!("<status>{}</status>", new.status.label())];
        if let ShellStatus::Exited(code) = new.status {
            parts.push(format!("<exit_code>{code}</exit_code>"));
        }
        let stdout = filtered(&new.stdout, filter.as_ref());
        if !stdout.is_empty() {
            parts.push(format!("<stdout>\n{stdout}\n</stdout>"));
        }
        let stderr = filtered(&new.stderr, filter.as_ref());
        if !stderr.is_empty() {
            parts.push(format!("<stderr>\n{stderr}\n</stderr>"));
        }
        ToolOutput::text(parts.join("\n\n"))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillShellInput {
    /// The ID of the background shell to kill
    pub shell_id: String,
}

/// Kills a background shell.
#[derive(Debug)]
pub struct KillShellTool {
    schema: Value,
}

impl KillShellTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<KillShellInput>(),
        }
    }
}

impl Default for KillShellTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for KillShellTool {
    fn name(&self) -> &str {
        "KillShell"
    }

    fn description(&self) -> &str {
        "Kills a running background bash shell (and every process it started) by its ID."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn max_result_size_chars(&self) -> usize {
        KILL_SHELL_MAX_RESULT_SIZE_CHARS
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input: KillShellInput = match serde_json::from_value(input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(format!("Invalid KillShell input: {e}")),
        };
        let Some(shell) = BackgroundShells::of(ctx).get(&input.shell_id) else {
            return ToolOutput::error(no_shell(&input.shell_id));
        };
        if call.cancel.is_cancelled() {
            return ToolOutput::interrupted();
        }
        if shell.kill() {
            ToolOutput::text(format!(
                "Successfully killed shell: {} ({})",
                shell.id, shell.command
            ))
        } else {
            ToolOutput::error(format!(
                "Shell {} is not running, so cannot be killed (status: {})",
                shell.id,
                shell.status().label()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_keeps_matching_lines() {
        let re = compile_filter(Some("^ok")).ok().flatten();
        assert_eq!(filtered("ok 1\nbad\nok 2\n", re.as_ref()), "ok 1\nok 2");
        assert_eq!(filtered("a\nb\n\n", None), "a\nb");
    }

    #[test]
    fn bad_filter_is_reported() {
        let err = compile_filter(Some("(")).err().unwrap_or_default();
        assert!(
            err.starts_with("Invalid regular expression \"(\": "),
            "{err}"
        );
    }
}
