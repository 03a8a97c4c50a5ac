//! Lines meant for stderr while the UI owns the terminal. Anything written
//! to the process's stderr then — orbit's own warnings (`eprintln!`,
//! `tracing`), a hook's or a child server's output — would land over the
//! live region and corrupt the input box until the next redraw. The CLI
//! points fd 2 at a pipe for the UI's lifetime and feeds each line it
//! reads into a [`NoticeFeed`]; the app waits on the [`NoticeSink`] beside
//! the terminal and the engine and shows each line in the scrollback
//! ([`show`]). When the UI ends, [`NoticeFeed::close`] hands back what was
//! never shown (the CLI writes it to the real stderr) and every later
//! [`NoticeFeed::push`] is refused, so nothing is lost.
//!
//! Data flow: pipe reader thread → [`NoticeFeed::push`] (queue + wake-up)
//! → [`NoticeSink::next`] in the app's `select!` → [`show`] → scrollback.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use crate::sanitize::{Mode, sanitize};
use crate::screen::{Screen, Tone};

/// The queue both halves share; None once closed.
struct Shared {
    lines: Mutex<Option<VecDeque<String>>>,
    wake: Notify,
}

impl Shared {
    fn with<R>(&self, f: impl FnOnce(&mut Option<VecDeque<String>>) -> R) -> R {
        f(&mut self.lines.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Where stderr lines go while the UI runs (the CLI's pipe reader holds it).
#[derive(Clone)]
pub struct NoticeFeed {
    shared: Arc<Shared>,
}

/// The UI's end: lines to show, and the terminal's own stderr for a
/// program that is handed the terminal (the `/memory` editor).
pub struct NoticeSink {
    shared: Arc<Shared>,
    terminal_stderr: Option<OwnedFd>,
}

/// A connected feed and sink; `terminal_stderr` is the stderr the process
/// had before the CLI redirected it.
pub fn notice_channel(terminal_stderr: Option<OwnedFd>) -> (NoticeFeed, NoticeSink) {
    let shared = Arc::new(Shared {
        lines: Mutex::new(Some(VecDeque::new())),
        wake: Notify::new(),
    });
    let feed = NoticeFeed {
        shared: Arc::clone(&shared),
    };
    (
        feed,
        NoticeSink {
            shared,
            terminal_stderr,
        },
    )
}

impl NoticeFeed {
    /// Queues `line` for the UI; gives it back once the UI has ended.
    pub fn push(&self, line: String) -> Result<(), String> {
        let queued = self.shared.with(|lines| match lines {
            Some(queue) => {
                queue.push_back(line);
                Ok(())
            }
            None => Err(line),
        });
        if queued.is_ok() {
            self.shared.wake.notify_one();
        }
        queued
    }

    /// Ends the feed: the lines the UI never showed, in order.
    pub fn close(&self) -> Vec<String> {
        self.shared
            .with(Option::take)
            .map(Vec::from)
            .unwrap_or_default()
    }
}

impl NoticeSink {
    /// The lines queued since the last call; waits until there is one.
    pub(crate) async fn next(&self) -> Vec<String> {
        loop {
            let lines = self
                .shared
                .with(|lines| lines.as_mut().map(|q| q.drain(..).collect::<Vec<_>>()));
            match lines {
                Some(lines) if !lines.is_empty() => return lines,
                Some(_) => self.shared.wake.notified().await,
                None => std::future::pending::<()>().await,
            }
        }
    }

    /// The terminal's stderr for a child given the terminal; None: inherit.
    pub(crate) fn terminal_stderr(&self) -> Option<Stdio> {
        let fd = self.terminal_stderr.as_ref()?.try_clone().ok()?;
        Some(Stdio::from(fd))
    }
}

/// The next lines of `sink`; never ready when there is no sink.
pub(crate) async fn next(sink: Option<&NoticeSink>) -> Vec<String> {
    match sink {
        Some(sink) => sink.next().await,
        None => std::future::pending().await,
    }
}

/// Stderr lines as scrollback lines: colour removed, every other control
/// shown visibly (`sanitize`), errors and warnings in the error tone.
pub(crate) fn show(screen: &mut Screen, lines: Vec<String>) {
    for line in lines {
        let line = sanitize(&line, Mode::Cells);
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        let tone = if lower.contains("error") || lower.contains("warning") {
            Tone::Error
        } else {
            Tone::Dim
        };
        screen.note(line, tone);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Lines pushed before the wait are returned at once, in order; after
    /// `close` a push is refused and the unshown lines come back.
    #[tokio::test]
    async fn lines_wait_for_the_ui_and_come_back_after_close() {
        let (feed, sink) = notice_channel(None);
        feed.push("one".to_string()).unwrap();
        feed.push("two".to_string()).unwrap();
        assert_eq!(sink.next().await, vec!["one", "two"]);
        let feeder = feed.clone();
        let waiter = tokio::spawn(async move { sink.next().await });
        tokio::task::yield_now().await;
        feeder.push("three".to_string()).unwrap();
        assert_eq!(waiter.await.unwrap(), vec!["three"]);
        feed.push("four".to_string()).unwrap();
        assert_eq!(feed.close(), vec!["four"]);
        assert_eq!(feed.push("five".to_string()), Err("five".to_string()));
    }
}
