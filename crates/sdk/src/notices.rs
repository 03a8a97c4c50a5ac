//! The lines orbit prints on stderr for a person, whatever the output
//! format: an error result's `orbit: error: …` lines, the model-fallback
//! note. Best effort: failing to write them never stops the run.
//!
//! Data flow: a writer hands each line to [`Notices::line`], which passes
//! it through the binary's filter (the terminal sanitiser: model and
//! server text must not drive the terminal) and writes it, flushed.

use std::io::Write;

use orbit_protocol::TerminalResult;
use serde_json::Value;

/// A line filter applied to every notice before it is written.
pub type LineFilter = fn(&str) -> String;

/// stderr for notices, with the binary's filter.
pub struct Notices<E: Write> {
    err: E,
    filter: LineFilter,
}

impl<E: Write> Notices<E> {
    /// Notices written to `err` after `filter`.
    pub fn new(err: E, filter: LineFilter) -> Self {
        Self { err, filter }
    }

    /// One line, filtered, flushed; best effort.
    pub fn line(&mut self, line: &str) {
        let line = (self.filter)(line);
        let _ = writeln!(self.err, "{line}").and_then(|()| self.err.flush());
    }

    /// An error result's lines: `orbit: interrupted`, or one
    /// `orbit: error: …` per error (the subtype when there is none).
    pub fn report_errors(&mut self, result: &TerminalResult) {
        if result.interrupted {
            // The engine's error line only restates the interrupt.
            self.line("orbit: interrupted");
            return;
        }
        for error in &result.errors {
            self.line(&format!("orbit: error: {}", one_line(error)));
        }
        if result.errors.is_empty() {
            let subtype = serde_json::to_value(result.subtype).unwrap_or(Value::Null);
            self.line(&format!("orbit: error: the run ended with {subtype}"));
        }
    }
}

/// The note outside stream-json when the main model was overloaded.
pub fn fallback_note(original: &str, fallback: &str) -> String {
    format!(
        "orbit: note: {original} is overloaded; using the fallback model {fallback} for the rest of the session"
    )
}

/// Joins a multi-line text (an error chain, a server message) into one line.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
