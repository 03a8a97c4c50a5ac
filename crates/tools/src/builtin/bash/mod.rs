//! The Bash tool (plus BashOutput and KillShell for background runs).
//!
//! A call flows: input → (background? → [`background`] registry, answer
//! with an id at once) → the command wrapped with a cwd-reporting EXIT trap
//! that writes to a pipe orbit holds (`cwd_report`) →
//! `process::run_foreground` in the
//! session cwd with the timeout and the call's cancel token → the result
//! text: stdout then stderr, trailing whitespace trimmed, prefixed by
//! `Exit code N` / a signal or timeout line when the command failed. Whether
//! a non-zero exit failed is `exit_code`'s call (`grep` exit 1 did not).
//! The embedder gets the streams apart, the exit code and whether the
//! cancel token stopped the run as the result's detail
//! ([`ToolDetail::Bash`]; the model's text joins them), with the files
//! it changed among those the shell analysis says it writes (`changes`:
//! their hunks; when none changed, one note line for the model).
//! The shell's final directory is reported with the output
//! ([`ToolOutput::with_cwd`]); whether the session keeps it is the
//! orchestrator's workspace policy (`orbit_tool::apply_cwd_policy`), not
//! Bash's. A session cwd that no longer exists is replaced by the project
//! root before the run (with the reset note). A call whose cancel token
//! already fired starts nothing.
//!
//! Facts come from `orbit_shell` and the session (`facts.rs`): read-only
//! (and so concurrency-safe) only when the analysis says so, `PATH` has no
//! relative entry and no repository a git command reads configures a
//! program; `reads`/`writes` are the files the command names; `command`
//! carries the command for permission rules, and a failure cancels the
//! sibling shell commands of its batch. Commands run with the session's
//! secrets removed from their environment ([`environment`]).
//!
//! When the session has a [`CommandLauncher`] (the CLI sets orbit's OS
//! sandbox helper) every command, foreground or background, starts through
//! it. A failed sandboxed run whose output looks like a denial gets
//! [`texts::SANDBOX_BLOCKED_NOTE`]; a call with `dangerouslyDisableSandbox`
//! runs without the launcher and declares the `unsandboxed` fact, which
//! only an allow rule or a person may approve.

pub mod background;
mod changes;
mod cwd_report;
pub mod environment;
mod exit_code;
mod facts;
mod globs;
pub mod output;
mod output_tools;
mod process;

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use background::BackgroundShells;
use cwd_report::{CwdReport, wrap_with_cwd_trap};
use orbit_tool::texts::tools::bash as texts;
use orbit_tool::workspace::{canonical_project_root, cwd_reset_note};
use orbit_tool::{
    BashDetail, CallContext, CallFacts, CommandLauncher, INTERRUPT_MESSAGE_FOR_TOOL_USE,
    ResultLimit, ToolDetail, ToolError, ToolInfo, ToolOutput, ToolProgress, ToolUseContext,
    TypedTool,
};
use process::{RunEnd, run_foreground, signal_name};
use schemars::JsonSchema;
use serde::Deserialize;

pub use output_tools::{BashOutputTool, KillShellTool};

/// Timeout when the call gives none.
pub(crate) const BASH_DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for; larger values are clamped to it.
pub(crate) const BASH_MAX_TIMEOUT_MS: u64 = 600_000;
/// Bash results above this many chars are persisted by the engine (R1).
pub const BASH_MAX_RESULT_SIZE_CHARS: usize = 30_000;

/// Bash's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    /// The command to execute
    pub command: String,
    /// Optional timeout in milliseconds (max 600000)
    pub timeout: Option<f64>,
    /// Clear, concise description of what this command does in 5-10 words
    pub description: Option<String>,
    /// Set to true to run this command in the background. Use BashOutput to read the output later.
    pub run_in_background: Option<bool>,
    /// Set to true to run this command outside the OS sandbox. Only after a sandboxed run failed because the sandbox blocked it; needs the user's approval.
    #[serde(rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: Option<bool>,
}

impl BashInput {
    /// The launcher this call runs through: the session's, unless the call
    /// asked to run outside the sandbox.
    fn launcher(&self, ctx: &ToolUseContext) -> Option<CommandLauncher> {
        if self.dangerously_disable_sandbox == Some(true) {
            None
        } else {
            ctx.launcher()
        }
    }
}

/// The Bash tool (stateless: background shells live in the session; register
/// it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct BashTool;

/// Below this, a requested timeout is read as seconds: models (small ones
/// especially) write `timeout: 60` meaning a minute, and no real command
/// is meant to be killed after 60 ms.
pub(crate) const BASH_TIMEOUT_SECONDS_BELOW: f64 = 1_000.0;

/// The timeout to apply: default when absent or not a positive number; a
/// value below [`BASH_TIMEOUT_SECONDS_BELOW`] is seconds, anything else
/// milliseconds; clamped to [`BASH_MAX_TIMEOUT_MS`].
pub(crate) fn effective_timeout_ms(requested: Option<f64>) -> u64 {
    match requested {
        Some(n) if n.is_finite() && n > 0.0 && n < BASH_TIMEOUT_SECONDS_BELOW => {
            ((n * 1_000.0) as u64).min(BASH_MAX_TIMEOUT_MS)
        }
        Some(ms) if ms.is_finite() && ms >= BASH_TIMEOUT_SECONDS_BELOW => {
            (ms as u64).min(BASH_MAX_TIMEOUT_MS)
        }
        _ => BASH_DEFAULT_TIMEOUT_MS,
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
pub(crate) fn combine_output(stdout: &[u8], stderr: &[u8]) -> String {
    let out = trim_trailing_whitespace(stdout);
    let err = trim_trailing_whitespace(stderr);
    match (out.is_empty(), err.is_empty()) {
        (_, true) => out,
        (true, false) => err,
        (false, false) => format!("{out}\n{err}"),
    }
}

/// A foreground run's facts for the embedder: its streams apart (the
/// model gets them joined), its exit code, whether its cancel token
/// stopped it, the files it changed.
fn run_detail(run: &process::RunResult, changed: &mut changes::Outcome) -> ToolDetail {
    ToolDetail::Bash(BashDetail {
        stdout: trim_trailing_whitespace(&run.stdout),
        stderr: trim_trailing_whitespace(&run.stderr),
        exit_code: match run.end {
            RunEnd::Exited(code) => Some(code),
            _ => None,
        },
        interrupted: run.end == RunEnd::Cancelled,
        changes: std::mem::take(&mut changed.changes),
        unshown: std::mem::take(&mut changed.unshown),
    })
}

fn with_first_line(first: String, body: &str) -> String {
    if body.is_empty() {
        first
    } else {
        format!("{first}\n{body}")
    }
}

/// Error texts of a failed command that the OS sandbox may have caused
/// (a denied open or write, a read-only mount, a refused socket/connect).
const SANDBOX_ERROR_MARKERS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "Errno 1]",
    "Errno 13]",
    "Errno 30]",
    "EACCES",
    "EPERM",
    "EROFS",
    "Couldn't connect",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Network is unreachable",
];

/// Whether a failed sandboxed run's output says the sandbox may have
/// stopped it.
fn sandbox_blocked(output: &str) -> bool {
    SANDBOX_ERROR_MARKERS.iter().any(|m| output.contains(m))
}

#[async_trait]
impl TypedTool for BashTool {
    type Input = BashInput;
    type Plan = BashInput;

    fn facts(&self, input: &BashInput, ctx: &ToolUseContext) -> CallFacts {
        CallFacts {
            unsandboxed: ctx.launcher().is_some() && input.launcher(ctx).is_none(),
            ..facts::bash_facts(&input.command, ctx)
        }
    }

    async fn validate(
        &self,
        input: BashInput,
        _ctx: &ToolUseContext,
    ) -> Result<BashInput, ToolError> {
        Ok(input)
    }

    async fn call(
        &self,
        input: BashInput,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let root = canonical_project_root(ctx);
        let mut cwd = ctx.cwd();
        let mut notes = Vec::new();
        // The directory was removed since the last call: run in the project
        // root, and report it as the directory the call ended in unless the
        // shell reports another.
        let fell_back = !cwd.is_dir();
        if fell_back {
            cwd = root.clone();
            notes.push(cwd_reset_note(&root));
        }
        let finish = |output: ToolOutput, reported: Option<PathBuf>| match reported
            .or_else(|| fell_back.then(|| root.clone()))
        {
            Some(dir) => output.with_cwd(dir),
            None => output,
        };

        if call.cancel.is_cancelled() {
            // Reported as cancelled already: the command must not run.
            return Ok(finish(ToolOutput::interrupted(), None));
        }
        if input.run_in_background == Some(true) {
            let spawned = BackgroundShells::of(ctx).spawn(
                &input.command,
                &cwd,
                &ctx.hidden_env_vars(),
                &ctx.env_vars(),
                input.launcher(ctx).as_ref(),
            );
            let output = match spawned {
                Ok(shell) => ToolOutput::text(texts::background_started(&shell.id)),
                Err(e) => ToolOutput::error(e.to_string()),
            };
            return Ok(finish(output, None));
        }

        let launcher = input.launcher(ctx);
        let timeout_ms = effective_timeout_ms(input.timeout);
        let (cwd_report, report_stdin) = match CwdReport::new() {
            Ok(pipe) => pipe,
            Err(e) => {
                let e = process::SpawnError::Io(e);
                return Ok(finish(ToolOutput::error(e.to_string()), None));
            }
        };
        let script = wrap_with_cwd_trap(&input.command);
        // The before-state of the files the command names as written.
        let watch = changes::watch(&input.command, &cwd, &root);
        let progress = |chunk: String| call.progress(ToolProgress::Output(chunk));
        let run = run_foreground(
            &script,
            &cwd,
            report_stdin,
            Duration::from_millis(timeout_ms),
            &call.cancel,
            &progress,
            &ctx.hidden_env_vars(),
            &ctx.env_vars(),
            launcher.as_ref(),
        )
        .await;
        let reported = cwd_report.take().map(PathBuf::from);
        let run = match run {
            Ok(r) => r,
            Err(e) => return Ok(finish(ToolOutput::error(e.to_string()), None)),
        };
        let mut changed = watch.map(changes::Watch::finish).unwrap_or_default();
        let detail = run_detail(&run, &mut changed);
        if run.end == RunEnd::Cancelled {
            return Ok(finish(ToolOutput::interrupted().with_detail(detail), None));
        }

        let body = combine_output(&run.stdout, &run.stderr);
        let blocked = launcher.is_some() && sandbox_blocked(&body);
        let (mut text, is_error) = match run.end {
            RunEnd::Exited(code) if !exit_code::exit_is_error(&input.command, code) => {
                (body, false)
            }
            RunEnd::Exited(code) => (with_first_line(texts::exit_code_line(code), &body), true),
            RunEnd::Signaled(sig) => (
                with_first_line(texts::killed_by_signal_line(&signal_name(sig), sig), &body),
                true,
            ),
            RunEnd::TimedOut => (
                with_first_line(texts::timed_out_line(timeout_ms), &body),
                true,
            ),
            RunEnd::WaitFailed(e) => (with_first_line(texts::wait_failed_line(e), &body), true),
            RunEnd::Cancelled => (INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string(), true),
        };
        if is_error && blocked {
            notes.push(texts::SANDBOX_BLOCKED_NOTE.to_string());
        }
        let changed_nothing = changed.changed_no_file;
        notes.extend(changed.note);
        let untouched = !is_error && notes.is_empty();
        for note in notes {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&note);
        }
        let output = ToolOutput {
            is_error,
            changed_nothing,
            ..ToolOutput::text(text)
        }
        .with_detail(detail);
        let output = if untouched {
            output.with_full_text(raw_output(&run.stdout, &run.stderr))
        } else {
            output
        };
        Ok(finish(output, reported))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("Bash", texts::DESCRIPTION)
            .with_search_hint("shell command terminal run execute")
            .with_result_limit(ResultLimit::PersistOver(BASH_MAX_RESULT_SIZE_CHARS))
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
        assert_eq!(effective_timeout_ms(Some(1000.0)), 1000);
        // Below 1,000 the value is seconds (`timeout: 60` is a minute).
        assert_eq!(effective_timeout_ms(Some(60.0)), 60_000);
        assert_eq!(effective_timeout_ms(Some(0.5)), 500);
        assert_eq!(effective_timeout_ms(Some(999.0)), BASH_MAX_TIMEOUT_MS);
        assert_eq!(effective_timeout_ms(Some(9_999_999.0)), BASH_MAX_TIMEOUT_MS);
    }

    #[test]
    fn durations() {
        use orbit_tool::texts::units::format_duration_ms;
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
        let schema = BashTool.input_schema();
        assert_eq!(schema["required"], serde_json::json!(["command"]));
        assert_eq!(schema["properties"]["timeout"]["type"], "number");
        assert_eq!(schema["properties"]["run_in_background"]["type"], "boolean");
        assert_eq!(schema["properties"]["description"]["type"], "string");
        assert_eq!(schema["additionalProperties"], false);
    }
}
