//! Reading stdin for the prompt, as Claude Code does.
//!
//! - `orbit -p` (no value) or `orbit -p -`: stdin *is* the prompt; it is
//!   read to the end, however long that takes ([`read_prompt`]).
//! - `orbit -p PROMPT` with stdin not a terminal: stdin is extra input
//!   appended after a newline, as-is (trailing newline kept):
//!   `PROMPT\nSTDIN` ([`with_piped_input`]), so `git diff | orbit -p
//!   "Review this"` works. Empty (or whitespace-only) stdin, `/dev/null` or
//!   a terminal leave the prompt alone. A pipe that stays open without data
//!   (a parent process that never closes it) is given
//!   [`PIPED_INPUT_FIRST_DATA_TIMEOUT`] to produce its first byte; then the
//!   run goes on without it and a warning says so (Claude Code waits 3 s
//!   too). Once data arrives, stdin is read to its end.
//!
//! Bytes that are not UTF-8 are replaced (U+FFFD), not rejected.

use std::io::{IsTerminal, Read};
use std::time::Duration;

use anyhow::{Context, bail};

/// How long `-p PROMPT` waits for the first byte of a piped stdin.
pub const PIPED_INPUT_FIRST_DATA_TIMEOUT: Duration = Duration::from_secs(3);

/// The prompt from stdin (`-p` without a value). Errors on a terminal.
pub fn read_prompt() -> anyhow::Result<String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        bail!("no prompt given; pass it as `orbit -p \"PROMPT\"` or pipe it on stdin");
    }
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .context("reading the prompt from stdin")?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `prompt`, plus `\n` and piped stdin when stdin is not a terminal and
/// has data within [`PIPED_INPUT_FIRST_DATA_TIMEOUT`].
pub fn with_piped_input(prompt: String) -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() || !first_data_within(PIPED_INPUT_FIRST_DATA_TIMEOUT) {
        return Ok(prompt);
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .read_to_end(&mut bytes)
        .context("reading stdin")?;
    Ok(join(prompt, &String::from_utf8_lossy(&bytes)))
}

/// `PROMPT\nSTDIN`, or the prompt alone when stdin is blank.
fn join(prompt: String, piped: &str) -> String {
    if piped.trim().is_empty() {
        return prompt;
    }
    tracing::debug!(bytes = piped.len(), "appending piped stdin to the prompt");
    format!("{prompt}\n{piped}")
}

/// Whether stdin becomes readable (data or end of file) within `timeout`.
/// On a timeout it warns once and returns false.
#[cfg(unix)]
fn first_data_within(timeout: Duration) -> bool {
    use std::os::fd::AsFd;

    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

    let stdin = std::io::stdin();
    let wait = PollTimeout::try_from(timeout).unwrap_or(PollTimeout::MAX);
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    loop {
        match poll(&mut fds, wait) {
            Ok(0) => {
                tracing::warn!(
                    "no stdin data received in {} s, proceeding without it (redirect stdin from /dev/null to skip the wait)",
                    timeout.as_secs()
                );
                return false;
            }
            Err(Errno::EINTR) => continue,
            // Readable, at end of file, or an error the read will report.
            Ok(_) => {
                let revents = fds[0].revents().unwrap_or(PollFlags::empty());
                return !revents.contains(PollFlags::POLLNVAL);
            }
            Err(_) => return true,
        }
    }
}

#[cfg(not(unix))]
fn first_data_within(_timeout: Duration) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_is_appended_as_is_after_a_newline() {
        assert_eq!(join("Review".into(), "diff\n"), "Review\ndiff\n");
        assert_eq!(join("Review".into(), "a\nb"), "Review\na\nb");
        assert_eq!(join("Review".into(), ""), "Review");
        assert_eq!(join("Review".into(), " \n"), "Review");
    }
}
