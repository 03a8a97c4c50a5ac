//! Stderr while the UI owns the terminal. [`start`] points fd 2 at a pipe
//! (so orbit's `eprintln!` and `tracing` lines, and what a child that
//! inherits stderr writes, cannot land over the live region); a thread
//! reads the pipe line by line into the UI's [`NoticeFeed`], which shows
//! them in the scrollback. [`StderrCapture`]'s drop (the UI ended, an
//! error, a panic's unwinding) puts the terminal's stderr back, waits
//! briefly for the pipe's last bytes and writes every line the UI never
//! showed there; a panic hook puts it back before the panic message is
//! printed. Headless runs never start it.

use std::fs::File;
use std::io::{BufRead, BufReader, PipeReader, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use orbit_tui::{NoticeFeed, NoticeSink};

/// How long the drop waits for the pipe reader to reach the end of what
/// was written before the terminal's stderr came back, in milliseconds.
const DRAIN_WAIT_MS: u64 = 200;
/// Pause between two checks of the reader while draining, in milliseconds.
const DRAIN_POLL_MS: u64 = 5;
/// Longest stderr line kept whole, in bytes (a longer one is split).
const LINE_MAX_BYTES: usize = 64 * 1024;

/// fd 2 redirected to the UI until dropped.
pub(crate) struct StderrCapture {
    terminal: Arc<OwnedFd>,
    feed: NoticeFeed,
    reader: Option<JoinHandle<()>>,
}

/// Redirects fd 2 to a pipe read into the returned sink. Fails (and
/// changes nothing) when a descriptor cannot be made.
pub(crate) fn start() -> std::io::Result<(StderrCapture, NoticeSink)> {
    // `try_clone_to_owned` duplicates with close-on-exec: children never
    // inherit the saved terminal.
    let terminal = Arc::new(std::io::stderr().as_fd().try_clone_to_owned()?);
    let (read, write) = std::io::pipe()?;
    let (feed, sink) = orbit_tui::notice_channel(Some(terminal.try_clone()?));
    let fallback = File::from(terminal.try_clone()?);
    let reader = {
        let feed = feed.clone();
        std::thread::Builder::new()
            .name("orbit-stderr".to_string())
            .spawn(move || read_lines(read, &feed, fallback))?
    };
    // From here fd 2 is the pipe (without close-on-exec: children that
    // inherit stderr write into it too).
    nix::unistd::dup2_stderr(&write).map_err(std::io::Error::from)?;
    drop(write);
    let saved = Arc::clone(&terminal);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = nix::unistd::dup2_stderr(saved.as_fd());
        previous(info);
    }));
    Ok((
        StderrCapture {
            terminal,
            feed,
            reader: Some(reader),
        },
        sink,
    ))
}

/// The pipe reader: each line to the UI, or to the terminal once the UI
/// has ended.
fn read_lines(read: PipeReader, feed: &NoticeFeed, mut terminal: File) {
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(LINE_MAX_BYTES as u64)
            .read_until(b'\n', &mut line);
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']).to_string();
        if let Err(text) = feed.push(text) {
            let _ = writeln!(terminal, "{}", crate::term_safe::safe_line(&text));
        }
    }
}

impl Drop for StderrCapture {
    fn drop(&mut self) {
        let _ = nix::unistd::dup2_stderr(self.terminal.as_fd());
        // The reader ends when no write end is left (a child that
        // inherited stderr may keep one open: then only wait a little).
        if let Some(reader) = self.reader.take() {
            let deadline = Instant::now() + Duration::from_millis(DRAIN_WAIT_MS);
            while !reader.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(DRAIN_POLL_MS));
            }
        }
        let mut stderr = std::io::stderr().lock();
        for line in self.feed.close() {
            let _ = writeln!(stderr, "{}", crate::term_safe::safe_line(&line));
        }
    }
}
