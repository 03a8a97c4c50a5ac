//! The Bash cwd report: how a foreground command's final directory reaches
//! orbit, over a pipe orbit holds (never a named file the command could
//! swap for a FIFO, a link to `/dev/zero`, or anything else).
//!
//! Flow: [`CwdReport::new`] makes a pipe; its write end becomes the
//! command's stdin. The script's first line ([`wrap_with_cwd_trap`]) moves
//! that end to a free descriptor ≥ 10, puts `/dev/null` back on stdin and
//! sets an EXIT trap that writes `pwd -P` to the descriptor (only while it
//! is still a pipe: a command that reused the number for its own file keeps
//! its file untouched). The trap writes before the shell exits, so once the
//! run ended [`CwdReport::take`] reads what the pipe holds without blocking
//! (a child that still holds the write end cannot stall it) and at most
//! [`CWD_REPORT_MAX_BYTES`]. A report that is missing, too long or not UTF-8
//! changes nothing: the session keeps its directory.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::process::Stdio;

use super::process::shell_quote;

/// Longest report read: a `pwd -P` line is at most `PATH_MAX` (4,096) bytes
/// plus the newline; anything longer is not a directory the session can use.
pub(crate) const CWD_REPORT_MAX_BYTES: usize = 4_096 + 4_096;

/// The shell variable that holds the report's descriptor.
const CWD_FD_VAR: &str = "__orbit_cwd_fd";

/// The read end of one call's cwd pipe.
#[derive(Debug)]
pub(crate) struct CwdReport {
    reader: File,
}

impl CwdReport {
    /// The report's pipe: orbit keeps the (non-blocking) read end, the
    /// returned [`Stdio`] is the write end, to be the command's stdin.
    /// Needs a tokio runtime with IO enabled (as spawning the command does).
    pub(crate) fn new() -> std::io::Result<(Self, Stdio)> {
        let (sender, receiver) = tokio::net::unix::pipe::pipe()?;
        let write_end = sender.into_blocking_fd()?;
        let read_end = receiver.into_nonblocking_fd()?;
        Ok((
            Self {
                reader: File::from(read_end),
            },
            Stdio::from(write_end),
        ))
    }

    /// The directory the command reported, if it reported one (call after
    /// the run ended). Never blocks; reads at most
    /// [`CWD_REPORT_MAX_BYTES`] + 1 bytes.
    pub(crate) fn take(mut self) -> Option<String> {
        let mut report = Vec::new();
        let mut chunk = [0u8; 4_096];
        loop {
            let room = (CWD_REPORT_MAX_BYTES + 1 - report.len()).min(chunk.len());
            match self.reader.read(&mut chunk[..room]) {
                Ok(0) => break,
                Ok(n) => {
                    report.extend_from_slice(&chunk[..n]);
                    if report.len() > CWD_REPORT_MAX_BYTES {
                        return None;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // WouldBlock: a writer is still alive but wrote all it will
                // before the shell exited.
                Err(_) => break,
            }
        }
        parse_report(report)
    }
}

/// The report's text without its final newline; None when empty or not
/// UTF-8.
fn parse_report(report: Vec<u8>) -> Option<String> {
    let text = String::from_utf8(report).ok()?;
    let dir = text.strip_suffix('\n').unwrap_or(&text);
    (!dir.is_empty()).then(|| dir.to_string())
}

/// `command` preceded by one line: stdin (the report pipe, see the module
/// docs) moved to a free descriptor ≥ 10 and replaced by `/dev/null`, and
/// an EXIT trap that writes the shell's final physical directory there.
/// The trap runs on normal end, `exit N` and syntax errors after the first
/// line; it is not inherited by subshells or child scripts, so only the top
/// shell reports. Costs one line: error messages that cite a line number of
/// the command see it shifted by one.
pub(crate) fn wrap_with_cwd_trap(command: &str) -> String {
    let trap_body =
        format!("[ -p \"/dev/fd/${{{CWD_FD_VAR}-}}\" ] && pwd -P >&\"${CWD_FD_VAR}\" 2>/dev/null");
    format!(
        "exec {{{CWD_FD_VAR}}}>&0 0</dev/null; trap {} EXIT\n{command}",
        shell_quote(&trap_body)
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// `bash -c COMMAND` wrapped with the cwd trap, its stdin the report's
    /// pipe; its output.
    async fn wrapped_bash(command: &str, stdin: Stdio) -> std::process::Output {
        tokio::process::Command::new("bash")
            .arg("-c")
            .arg(wrap_with_cwd_trap(command))
            .stdin(stdin)
            .output()
            .await
            .unwrap()
    }

    #[test]
    fn reports_parse_without_their_newline() {
        assert_eq!(parse_report(b"/tmp/x\n".to_vec()), Some("/tmp/x".into()));
        assert_eq!(parse_report(b"/a\nb\n".to_vec()), Some("/a\nb".into()));
        assert_eq!(parse_report(b"\n".to_vec()), None);
        assert_eq!(parse_report(Vec::new()), None);
        assert_eq!(parse_report(b"/\xff\n".to_vec()), None);
    }

    /// The real script in a real bash: the report arrives, stdin is
    /// /dev/null, and a child that keeps the write end open (a server
    /// started with `&`) does not make `take` wait.
    #[tokio::test]
    async fn bash_reports_through_the_pipe_and_take_never_waits() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().canonicalize().unwrap();
        let command = format!(
            "cd {} && read -r line; echo \"read=$?\"; (sleep 5 >/dev/null 2>&1 &)",
            shell_quote(&target.to_string_lossy())
        );
        let (report, stdin) = CwdReport::new().unwrap();
        let out = wrapped_bash(&command, stdin).await;
        assert_eq!(String::from_utf8_lossy(&out.stdout), "read=1\n");
        let started = std::time::Instant::now();
        assert_eq!(report.take(), Some(target.to_string_lossy().into_owned()));
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    /// Over the cap: no report, and reading stops at the cap.
    #[tokio::test]
    async fn oversized_report_is_dropped() {
        let (report, stdin) = CwdReport::new().unwrap();
        let out = wrapped_bash(
            "head -c 20000 /dev/zero | tr '\\0' a >&\"$__orbit_cwd_fd\"",
            stdin,
        )
        .await
        .status;
        assert!(out.success());
        assert_eq!(report.take(), None);
    }

    /// A command that reuses the descriptor for its own file: the trap
    /// leaves the file alone. One that unsets the variable under `set -u`
    /// keeps its exit status.
    #[tokio::test]
    async fn a_reused_descriptor_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("log");
        let command = format!(
            "eval \"exec $__orbit_cwd_fd>{}\"; echo mine >&\"$__orbit_cwd_fd\"",
            shell_quote(&file.to_string_lossy())
        );
        let (report, stdin) = CwdReport::new().unwrap();
        let status = wrapped_bash(&command, stdin).await.status;
        assert!(status.success());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
        assert_eq!(report.take(), None);

        let (report, stdin) = CwdReport::new().unwrap();
        let status = wrapped_bash("set -u; unset __orbit_cwd_fd; exit 3", stdin)
            .await
            .status;
        assert_eq!(status.code(), Some(3));
        assert_eq!(report.take(), None);
    }
}
