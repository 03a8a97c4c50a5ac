//! Headless output: the binary picks the writer for `--output-format`
//! (as ripgrep's `main` picks a printer) and writes `text` itself.
//!
//! - `text` ([`TextWriter`]): the final result text on stdout (with
//!   `--json-schema`, the structured output as one line of JSON).
//! - `json` and `stream-json`: `orbit_sdk`'s [`StreamWriter`] (the Claude
//!   Agent SDK's shapes, every line's fields there).
//!
//! In every format an error result also prints its error lines on stderr as
//! `orbit: error: …` (the one place a human looks), each error on one line.
//! In `text`, each retry of a model call is announced on stderr:
//! `orbit: MESSAGE; retry N/M in S s` ([`retry_line`]).
//! stderr is best effort: failing to write it never stops the run.
//!
//! What `text` prints (the answer on stdout) and every stderr line of any
//! format are terminal-safe ([`orbit_tui::sanitize`], [`Mode::Terminal`]):
//! colour is kept, every other control sequence is shown (`␛]52;c;…␇`),
//! never obeyed. `json` and `stream-json` print model text byte-exact
//! (JSON escapes it).

use std::io::{self, Write};

use orbit_protocol::{EngineEvent, StreamEvent, TerminalResult};
use orbit_sdk::{EventSink, JsonFormat, Notices, StreamWriter, exit_code, fallback_note};
use orbit_tui::sanitize::{Mode, sanitize};

pub use orbit_sdk::{InitInfo, one_line};

use crate::args::OutputFormat;
use crate::stdout_watch::StdoutState;

#[cfg(test)]
use {orbit_protocol::Message, serde_json::Value};

/// The writer `--output-format` picked.
// One per run, never moved in a loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum OutputWriter<W: Write, E: Write> {
    /// `text`.
    Text(TextWriter<W, E>),
    /// `json` or `stream-json`.
    Sdk(StreamWriter<W, E>),
}

/// stderr lines as a terminal may show them.
fn terminal_line(line: &str) -> String {
    sanitize(line, Mode::Terminal).into_owned()
}

impl<W: Write, E: Write> OutputWriter<W, E> {
    /// The writer for `format`.
    pub fn new(format: OutputFormat, verbose: bool, session_id: String, out: W, err: E) -> Self {
        let notices = Notices::new(err, terminal_line);
        let json = match format {
            OutputFormat::Text => return Self::Text(TextWriter { out, notices }),
            OutputFormat::Json => JsonFormat::Json,
            OutputFormat::StreamJson => JsonFormat::StreamJson,
        };
        Self::Sdk(StreamWriter::new(json, verbose, session_id, out, notices))
    }

    /// Emits `stream_event` lines (stream-json only).
    pub fn with_partial_messages(self, on: bool) -> Self {
        match self {
            Self::Sdk(w) => Self::Sdk(w.with_partial_messages(on)),
            text => text,
        }
    }

    /// The requests' `max_tokens`, reported in `modelUsage`.
    pub fn with_max_output_tokens(self, tokens: u64) -> Self {
        match self {
            Self::Sdk(w) => Self::Sdk(w.with_max_output_tokens(tokens)),
            text => text,
        }
    }

    /// The session's window if set, reported in `modelUsage`.
    pub fn with_context_window(self, tokens: Option<u64>) -> Self {
        match self {
            Self::Sdk(w) => Self::Sdk(w.with_context_window(tokens)),
            text => text,
        }
    }

    /// The SDK's options orbit does not honour, listed in `system/init`.
    pub fn with_not_honoured(self, names: Vec<String>) -> Self {
        match self {
            Self::Sdk(w) => Self::Sdk(w.with_not_honoured(names)),
            text => text,
        }
    }

    /// The first line of a stream-json run.
    pub fn init(&mut self, info: InitInfo) -> io::Result<()> {
        EventSink::init(self, info)
    }

    /// Handles one engine event. Returns the exit code once the terminal
    /// result has been written.
    pub fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>> {
        EventSink::event(self, event)
    }
}

impl<W: Write, E: Write> EventSink for OutputWriter<W, E> {
    fn init(&mut self, info: InitInfo) -> io::Result<()> {
        match self {
            Self::Text(_) => Ok(()),
            Self::Sdk(w) => w.init(info),
        }
    }

    fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>> {
        match self {
            Self::Text(w) => w.event(event),
            Self::Sdk(w) => w.event(event),
        }
    }
}

/// The SDK session loop asks the binary's stdout watch.
impl orbit_sdk::OutputState for StdoutState {
    fn is_closed(&self) -> bool {
        StdoutState::is_closed(self)
    }

    fn mark_closed(&self) {
        StdoutState::mark_closed(self);
    }
}

/// `--output-format text`: the answer, and notices on stderr.
pub struct TextWriter<W: Write, E: Write> {
    out: W,
    notices: Notices<E>,
}

impl<W: Write, E: Write> TextWriter<W, E> {
    fn event(&mut self, event: &EngineEvent) -> io::Result<Option<i32>> {
        match event {
            EngineEvent::Result(result) => return self.result(result).map(Some),
            EngineEvent::Stream(StreamEvent::Retry {
                attempt,
                max_retries,
                delay_ms,
                message,
                ..
            }) => {
                let line = retry_line(message, *attempt, *max_retries, *delay_ms);
                self.notices.line(&line);
            }
            EngineEvent::ModelFallback {
                original_model,
                fallback_model,
            } => self
                .notices
                .line(&fallback_note(original_model, fallback_model)),
            _ => {}
        }
        Ok(None)
    }

    /// The answer (or the structured output) on stdout, or the errors on
    /// stderr; returns the exit code.
    fn result(&mut self, result: &TerminalResult) -> io::Result<i32> {
        let is_error = result.subtype.is_error() || result.interrupted;
        if is_error {
            self.notices.report_errors(result);
        } else {
            // With `--json-schema` the answer is the structured output.
            let text = match &result.structured_output {
                Some(value) => value.to_string(),
                None => result.result.clone(),
            };
            self.out
                .write_all(sanitize(&text, Mode::Terminal).as_bytes())?;
            self.out.write_all(b"\n")?;
            self.out.flush()?;
        }
        Ok(exit_code(result))
    }
}

/// `orbit: MESSAGE; retry N/M in S s`: the text-mode retry notice.
pub fn retry_line(message: &str, attempt: u32, max_retries: u32, delay_ms: u64) -> String {
    format!(
        "orbit: {}; retry {attempt}/{max_retries} in {} s",
        one_line(message),
        seconds(delay_ms)
    )
}

/// A delay for people: one decimal below 10 s (`0.5`, `9.9`), whole
/// seconds from there (`10`, `32`), two decimals for the very short delays
/// of test setups (`0.01`) so they do not read as `0.0`.
fn seconds(delay_ms: u64) -> String {
    /// Below this, two decimals are shown.
    const TWO_DECIMALS_BELOW_MS: u64 = 95;
    /// Below this, one decimal is shown.
    const ONE_DECIMAL_BELOW_MS: u64 = 9_950;
    let secs = delay_ms as f64 / 1000.0;
    if delay_ms < TWO_DECIMALS_BELOW_MS {
        format!("{secs:.2}")
    } else if delay_ms < ONE_DECIMAL_BELOW_MS {
        format!("{secs:.1}")
    } else {
        format!("{secs:.0}")
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
