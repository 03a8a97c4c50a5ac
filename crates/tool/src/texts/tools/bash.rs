//! The texts of Bash and its background handles, BashOutput and KillShell:
//! descriptions, the first line of a failed command (`Exit code N`, signal,
//! timeout), the background answers in Claude Code's tagged layout, and
//! their refusals. A cancelled command answers with
//! [`crate::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE`]; a removed cwd
//! adds [`crate::texts::engine::cwd_reset_note`].

use std::fmt::Display;

use crate::texts::units::format_duration_ms;

/// Bash's description.
pub const DESCRIPTION: &str = "Executes a bash command and returns its output (stdout, then stderr). \
The working directory persists between calls (cd) within the project. stdin is closed, so \
interactive commands fail. `timeout` is in milliseconds (default 120000, max 600000). Set \
`run_in_background` for long-running commands, then read their output with BashOutput and stop \
them with KillShell. Prefer the Read, Glob and Grep tools over cat, find and grep.";

/// BashOutput's description.
pub const BASH_OUTPUT_DESCRIPTION: &str = "Retrieves output from a running or completed background bash shell: only the output \
produced since the last BashOutput call for that shell, plus its status. Optional `filter` \
keeps only matching lines.";

/// KillShell's description.
pub const KILL_SHELL_DESCRIPTION: &str =
    "Kills a running background bash shell (and every process it started) by its ID.";

/// First line of a command that exited with a failing code (Claude Code's
/// text); the output follows on the next lines.
pub fn exit_code_line(code: i32) -> String {
    format!("Exit code {code}")
}

/// First line of a command ended by a signal; `signal` is its name
/// (`SIGKILL`, or [`unknown_signal_name`]).
pub fn killed_by_signal_line(signal: &str, number: i32) -> String {
    format!("Command was killed by {signal} (signal {number})")
}

/// The name of a signal number the platform does not name.
pub fn unknown_signal_name(number: i32) -> String {
    format!("signal {number}")
}

/// First line of a command stopped at its timeout.
pub fn timed_out_line(timeout_ms: u64) -> String {
    format!("Command timed out after {}", format_duration_ms(timeout_ms))
}

/// First line when the command's exit could not be collected.
pub fn wait_failed_line(error: impl Display) -> String {
    format!("Failed to wait for the command: {error}")
}

/// Appended to a failed sandboxed run whose output looks like the OS
/// sandbox stopped it (the model may ask for an unsandboxed rerun).
pub const SANDBOX_BLOCKED_NOTE: &str = "Note: this command ran in orbit's OS sandbox, which may have blocked it (writes outside the workspace and the temp dir, reads of credential files, network access, ptrace and mounts are denied). If the command really needs that access, run it again with `dangerouslyDisableSandbox: true`; the user will be asked to approve the unsandboxed run.";

/// Appended when every file a command names as written is byte-identical
/// after it ran and it could write no other file (orbit's line, not Claude
/// Code's: a documented improvement). `files` lists them as the command
/// wrote them.
pub fn changed_no_file_note(files: &str) -> String {
    format!("Note: this command changed no file ({files} unchanged).")
}

/// Appended when the files a command names as written are byte-identical
/// after it ran, but it may have written others (a program it ran).
pub fn named_files_unchanged_note(files: &str) -> String {
    format!("Note: this command left {files} unchanged.")
}

/// bash could not be started (an I/O error).
pub fn spawn_failed(error: impl Display) -> String {
    format!("Failed to start bash: {error}")
}

/// bash started but has no process id (it exited at once).
pub const SPAWN_NO_PID: &str = "Failed to start bash: no process id";

/// Stands in for the middle of an output stream dropped by its byte cap.
pub fn dropped_output_marker(bytes: u64) -> String {
    format!("\n\n... [{bytes} bytes of output truncated] ...\n\n")
}

/// `run_in_background` answer (Claude Code's text).
pub fn background_started(shell_id: &str) -> String {
    format!("Command running in background with ID: {shell_id}")
}

/// A background shell's status as BashOutput and KillShell print it.
pub const SHELL_STATUS_RUNNING: &str = "running";
/// Status of a background shell that exited 0.
pub const SHELL_STATUS_COMPLETED: &str = "completed";
/// Status of a background shell that exited non-zero.
pub const SHELL_STATUS_FAILED: &str = "failed";
/// Status of a background shell KillShell (or the session's end) killed.
pub const SHELL_STATUS_KILLED: &str = "killed";

/// BashOutput or KillShell named an id no background shell has (Claude
/// Code's text).
pub fn no_shell(shell_id: &str) -> String {
    format!("No shell found with ID: {shell_id}")
}

/// BashOutput's `filter` is not a valid regex.
pub fn invalid_filter(filter: &str, error: impl Display) -> String {
    format!("Invalid regular expression \"{filter}\": {error}")
}

/// BashOutput's answer (Claude Code's layout): `<status>`, `<exit_code>`
/// once the shell exited, then `<stdout>` and `<stderr>` when they have
/// text, separated by blank lines.
pub fn shell_output(status: &str, exit_code: Option<i32>, stdout: &str, stderr: &str) -> String {
    let mut parts = vec![format!("<status>{status}</status>")];
    if let Some(code) = exit_code {
        parts.push(format!("<exit_code>{code}</exit_code>"));
    }
    if !stdout.is_empty() {
        parts.push(format!("<stdout>\n{stdout}\n</stdout>"));
    }
    if !stderr.is_empty() {
        parts.push(format!("<stderr>\n{stderr}\n</stderr>"));
    }
    parts.join("\n\n")
}

/// KillShell's answer (Claude Code's text).
pub fn shell_killed(shell_id: &str, command: &str) -> String {
    format!("Successfully killed shell: {shell_id} ({command})")
}

/// KillShell of a shell that already ended (Claude Code's text).
pub fn shell_not_running(shell_id: &str, status: &str) -> String {
    format!("Shell {shell_id} is not running, so cannot be killed (status: {status})")
}
