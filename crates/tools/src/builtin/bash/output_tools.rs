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

use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::texts::tools::bash as texts;
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;

use super::background::{BackgroundShell, BackgroundShells, ShellStatus};

/// BashOutput results above this many chars are persisted by the engine.
pub(crate) const BASH_OUTPUT_MAX_RESULT_SIZE_CHARS: usize = 30_000;

/// BashOutput's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashOutputInput {
    /// The ID of the background shell to retrieve output from
    pub bash_id: String,
    /// Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.
    pub filter: Option<String>,
}

/// Reads new output of a background shell (register it with
/// `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct BashOutputTool;

/// What a validated BashOutput call reads: the shell, and the filter
/// compiled once.
pub struct BashOutputPlan {
    shell: Arc<BackgroundShell>,
    filter: Option<Regex>,
}

fn compile_filter(filter: Option<&str>) -> Result<Option<Regex>, String> {
    match filter {
        None | Some("") => Ok(None),
        Some(f) => Regex::new(f)
            .map(Some)
            .map_err(|e| texts::invalid_filter(f, e)),
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
impl TypedTool for BashOutputTool {
    type Input = BashOutputInput;
    type Plan = BashOutputPlan;

    fn facts(&self, input: &BashOutputInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(&input.bash_id).only_reads()
    }

    async fn validate(
        &self,
        input: BashOutputInput,
        ctx: &ToolUseContext,
    ) -> Result<BashOutputPlan, ToolError> {
        let Some(shell) = BackgroundShells::of(ctx).get(&input.bash_id) else {
            return Err(ToolError::RespondToModel(texts::no_shell(&input.bash_id)));
        };
        let filter = compile_filter(input.filter.as_deref()).map_err(ToolError::RespondToModel)?;
        Ok(BashOutputPlan { shell, filter })
    }

    async fn call(
        &self,
        plan: BashOutputPlan,
        _ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        if call.cancel.is_cancelled() {
            // Taking the output would hide it from the next call.
            return Ok(ToolOutput::interrupted());
        }
        let new = plan.shell.take_new_output();
        let exit_code = match new.status {
            ShellStatus::Exited(code) => Some(code),
            _ => None,
        };
        Ok(ToolOutput::text(texts::shell_output(
            new.status.label(),
            exit_code,
            &filtered(&new.stdout, plan.filter.as_ref()),
            &filtered(&new.stderr, plan.filter.as_ref()),
        )))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("BashOutput", texts::BASH_OUTPUT_DESCRIPTION)
            .only_reads()
            .with_result_limit(ResultLimit::PersistOver(BASH_OUTPUT_MAX_RESULT_SIZE_CHARS))
    }
}

/// KillShell answers one short line.
pub(crate) const KILL_SHELL_MAX_RESULT_SIZE_CHARS: usize = 10_000;

/// KillShell's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillShellInput {
    /// The ID of the background shell to kill
    pub shell_id: String,
}

/// Kills a background shell (register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct KillShellTool;

#[async_trait]
impl TypedTool for KillShellTool {
    type Input = KillShellInput;
    type Plan = KillShellInput;

    fn facts(&self, input: &KillShellInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(&input.shell_id)
    }

    async fn validate(
        &self,
        input: KillShellInput,
        _ctx: &ToolUseContext,
    ) -> Result<KillShellInput, ToolError> {
        Ok(input)
    }

    async fn call(
        &self,
        input: KillShellInput,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        // An unknown id is answered as a failed run, not refused.
        let Some(shell) = BackgroundShells::of(ctx).get(&input.shell_id) else {
            return Ok(ToolOutput::error(texts::no_shell(&input.shell_id)));
        };
        if call.cancel.is_cancelled() {
            return Ok(ToolOutput::interrupted());
        }
        Ok(if shell.kill() {
            ToolOutput::text(texts::shell_killed(&shell.id, &shell.command))
        } else {
            ToolOutput::error(texts::shell_not_running(&shell.id, shell.status().label()))
        })
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("KillShell", texts::KILL_SHELL_DESCRIPTION)
            .with_result_limit(ResultLimit::PersistOver(KILL_SHELL_MAX_RESULT_SIZE_CHARS))
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
