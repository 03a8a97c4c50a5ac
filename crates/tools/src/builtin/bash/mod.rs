//! The Bash tool (plus BashOutput and KillShell for background runs).
//!
//! A call flows: input → (background? → [`background`] registry, answer
//! with an id at once) → the command wrapped with a cwd-reporting EXIT trap
//! ([`process::wrap_with_cwd_trap`]) → [`process::run_foreground`] in the
//! session cwd with the timeout and the call's cancel token → the shell's
//! final directory becomes the session cwd when it is inside the project
//! or a directory allowed with `ToolUseContext::allow_directory` (else the
//! cwd is reset to the project root and a note says so) → the
//! result text: stdout then stderr, trailing whitespace trimmed, prefixed by
//! `Exit code N` / a signal or timeout line when the command failed. Whether
//! a non-zero exit failed is [`exit_code`]'s call (`grep` exit 1 did not).
//! A call whose cancel token already fired starts nothing.
//!
//! Safety flags come from [`readonly`]: a command is read-only (and so
//! concurrency-safe) only if tree-sitter-bash shows plain read-only commands.

pub mod background;
pub mod exit_code;
pub mod output;
pub mod output_tools;
pub mod process;
pub mod readonly;

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::context::{CallContext, ToolProgress, ToolUseContext};
use crate::tool::{INTERRUPT_MESSAGE_FOR_TOOL_USE, Tool, ToolOutput, input_schema_for};
use background::BackgroundShells;
use process::{RunEnd, run_foreground, signal_name, wrap_with_cwd_trap};

pub use output_tools::{BashOutputTool, KillShellTool};

/// Timeout when the call gives none.
pub const BASH_DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for; larger values are clamped to it.
pub const BASH_MAX_TIMEOUT_MS: u64 = 600_000;
/// Bash results above this many chars are persisted by the engine (R1).
pub const BASH_MAX_RESULT_SIZE_CHARS: usize = 30_000;

const DESCRIPTION: &str = "Executes a bash command and returns its output (stdout, then stderr). \
The working directory persists between calls (cd) within the project. stdin is closed, so \
interactive commands fail. `timeout` is in milliseconds (default 120000, max 600000). Set \
`run_in_background` for long-running commands, then read their output with BashOutput and stop \
them with KillShell. Prefer the Read, Glob and Grep tools over cat, find and grep.";

/// Bash's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    /// The command to execute
    pub command: String,
    /// Optional timeout in milliseconds (max 600000)
    #[serde(default)]
    #[schemars(with = "f64")]
    pub timeout: Option<f64>,
    /// Clear, concise description of what this command does in 5-10 words
    #[serde(default)]
    #[schemars(with = "String")]
    pub description: Option<String>,
    /// Set to true to run this command in the background. Use BashOutput to read the output later.
    #[serde(default)]
    #[schemars(with = "bool")]
    pub run_in_background: Option<bool>,
}

/// The Bash tool.
#[derive(Debug)]
pub struct BashTool {
    schema: Value,
}

impl BashTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<BashInput>(),
        }
    }
}

impl Default for BashTool {
    fn default() -> Self {
        Self::new()
    }
}

fn command_of(input: &Value) -> Option<&str> {
    input.get("command").and_then(Value::as_str)
}

/// The timeout to apply: default when absent or not a positive number,
/// clamped to [`BASH_MAX_TIMEOUT_MS`].
pub fn effective_timeout_ms(requested: Option<f64>) -> u64 {
    match requested {
        Some(ms) if ms.is_finite() && ms >= 1.0 => (ms as u64).min(BASH_MAX_TIMEOUT_MS),
        _ => BASH_DEFAULT_TIMEOUT_MS,
    }
}

/// `1s`, `1.5s`, `250ms`.
fn format_duration_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}

fn trim_trailing_whitespace(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim_end().to_string()
}

/// stdout then stderr, untrimmed: what a large result's saved file holds.
fn raw_output(stdout: &[u8], stderr: &[u8]) -> String {
    let mut raw = String::from_utf8_lossy(stdout).into_owned();
    if !raw.is_empty() && !stderr.is_empty() && !raw.ends_with('\n') {
        raw.push('\n');
    }
    raw.push_str(&String::from_utf8_lossy(stderr));
    raw
}

/// stdout then stderr, joined by a newline when both have text, with all
/// trailing whitespace (blank lines, spaces, `\r`) removed; leading
/// whitespace is kept.
pub fn combine_output(stdout: &[u8], stderr: &[u8]) -> String {
    let out = trim_trailing_whitespace(stdout);
    let err = trim_trailing_whitespace(stderr);
    match (out.is_empty(), err.is_empty()) {
        (_, true) => out,
        (true, false) => err,
        (false, false) => format!("{out}\n{err}"),
    }
}

fn with_first_line(first: String, body: &str) -> String {
    if body.is_empty() {
        first
    } else {
        format!("{first}\n{body}")
    }
}

fn canonical_root(ctx: &ToolUseContext) -> PathBuf {
    ctx.project_root
        .canonicalize()
        .unwrap_or_else(|_| ctx.project_root.clone())
}

/// Applies the shell's final directory to the session; returns the reset
/// note when it left the project and every allowed directory.
fn update_cwd(ctx: &ToolUseContext, root: &Path, reported: Option<String>) -> Option<String> {
    let dir = PathBuf::from(reported?);
    let dir = dir.canonicalize().unwrap_or(dir);
    let allowed = dir.starts_with(root)
        || ctx
            .allowed_directories()
            .iter()
            .any(|extra| dir.starts_with(extra));
    if allowed {
        ctx.set_cwd(dir);
        None
    } else {
        ctx.set_cwd(root.to_path_buf());
        Some(format!("Shell cwd was reset to {}", root.display()))
    }
}

/// Reads and removes the file the EXIT trap wrote.
fn take_reported_cwd(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok();
    let _ = std::fs::remove_file(file);
    let text = text?;
    let dir = text.strip_suffix('\n').unwrap_or(&text);
    (!dir.is_empty()).then(|| dir.to_string())
}

#[async_trait]
impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }

    fn search_hint(&self) -> Option<&str> {
        Some("shell command terminal run execute")
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, input: &Value) -> bool {
        command_of(input).is_some_and(readonly::is_read_only_command)
    }

    fn is_concurrency_safe(&self, input: &Value) -> bool {
        self.is_read_only(input)
    }

    fn is_destructive(&self, input: &Value) -> bool {
        command_of(input).is_some_and(readonly::is_destructive_command)
    }

    fn max_result_size_chars(&self) -> usize {
        BASH_MAX_RESULT_SIZE_CHARS
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input: BashInput = match serde_json::from_value(input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(format!("Invalid Bash input: {e}")),
        };
        let root = canonical_root(ctx);
        let mut cwd = ctx.cwd();
        let mut notes = Vec::new();
        if !cwd.is_dir() {
            // The directory was removed since the last call.
            cwd = root.clone();
            ctx.set_cwd(root.clone());
            notes.push(format!("Shell cwd was reset to {}", root.display()));
        }

        if call.cancel.is_cancelled() {
            // Reported as cancelled already: the command must not run.
            return ToolOutput::interrupted();
        }
        if input.run_in_background == Some(true) {
            return match BackgroundShells::of(ctx).spawn(&input.command, &cwd) {
                Ok(shell) => ToolOutput::text(format!(
                    "Command running in background with ID: {}",
                    shell.id
                )),
                Err(e) => ToolOutput::error(e.to_string()),
            };
        }

        let timeout_ms = effective_timeout_ms(input.timeout);
        let cwd_file =
            std::env::temp_dir().join(format!("orbit-bash-cwd-{}", uuid::Uuid::new_v4()));
        let script = wrap_with_cwd_trap(&input.command, &cwd_file);
        let progress = |chunk: String| call.progress(ToolProgress::Output(chunk));
        let run = run_foreground(
            &script,
            &cwd,
            Duration::from_millis(timeout_ms),
            &call.cancel,
            &progress,
        )
        .await;
        let reported = take_reported_cwd(&cwd_file);
        let run = match run {
            Ok(r) => r,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if run.end == RunEnd::Cancelled {
            return ToolOutput::interrupted();
        }
        notes.extend(update_cwd(ctx, &root, reported));

        let body = combine_output(&run.stdout, &run.stderr);
        let (mut text, is_error) = match run.end {
            RunEnd::Exited(code) if !exit_code::exit_is_error(&input.command, code) => {
                (body, false)
            }
            RunEnd::Exited(code) => (with_first_line(format!("Exit code {code}"), &body), true),
            RunEnd::Signaled(sig) => (
                with_first_line(
                    format!("Command was killed by {} (signal {sig})", signal_name(sig)),
                    &body,
                ),
                true,
            ),
            RunEnd::TimedOut => (
                with_first_line(
                    format!("Command timed out after {}", format_duration_ms(timeout_ms)),
                    &body,
                ),
                true,
            ),
            RunEnd::WaitFailed(e) => (
                with_first_line(format!("Failed to wait for the command: {e}"), &body),
                true,
            ),
            RunEnd::Cancelled => (INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string(), true),
        };
        let untouched = !is_error && notes.is_empty();
        for note in notes {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&note);
        }
        let output = ToolOutput {
            is_error,
            ..ToolOutput::text(text)
        };
        if untouched {
            output.with_full_text(raw_output(&run.stdout, &run.stderr))
        } else {
            output
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_defaults_and_clamps() {
        assert_eq!(effective_timeout_ms(None), BASH_DEFAULT_TIMEOUT_MS);
        assert_eq!(effective_timeout_ms(Some(0.0)), BASH_DEFAULT_TIMEOUT_MS);
        assert_eq!(effective_timeout_ms(Some(-5.0)), BASH_DEFAULT_TIMEOUT_MS);
        assert_eq!(
            effective_timeout_ms(Some(f64::NAN)),
            BASH_DEFAULT_TIMEOUT_MS
        );
        assert_eq!(effective_timeout_ms(Some(1500.0)), 1500);
        assert_eq!(effective_timeout_ms(Some(9_999_999.0)), BASH_MAX_TIMEOUT_MS);
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration_ms(1000), "1s");
        assert_eq!(format_duration_ms(120_000), "120s");
        assert_eq!(format_duration_ms(1500), "1.5s");
        assert_eq!(format_duration_ms(250), "250ms");
    }

    #[test]
    fn combining_streams() {
        assert_eq!(combine_output(b"a\n\n", b""), "a");
        assert_eq!(combine_output(b"", b"e\n"), "e");
        assert_eq!(combine_output(b"a\n", b"e\n"), "a\ne");
        assert_eq!(combine_output(b"", b""), "");
        assert_eq!(combine_output(b"\xffa\n", b""), "\u{fffd}a");
        // All trailing whitespace goes, leading whitespace stays.
        assert_eq!(combine_output(b"line\n\n\n   \n", b""), "line");
        assert_eq!(combine_output(b"  a \t\r\n", b" e  \n\n"), "  a\n e");
        assert_eq!(combine_output(b"out", b" \n\t\n"), "out");
        assert_eq!(combine_output(b"  \n\n", b"err\n"), "err");
    }

    #[test]
    fn schema_matches_claude_code_names() {
        let schema = BashTool::new().input_schema().clone();
        assert_eq!(schema["required"], serde_json::json!(["command"]));
        assert_eq!(schema["properties"]["timeout"]["type"], "number");
        assert_eq!(schema["properties"]["run_in_background"]["type"], "boolean");
        assert_eq!(schema["properties"]["description"]["type"], "string");
        assert_eq!(schema["additionalProperties"], false);
    }
}
