//! What a tool call did, as facts for the embedder ([`ToolDetail`]): the
//! file a Read showed and how long it is, the patch an Edit or Write made,
//! a command's separate output streams and how it ended.
//!
//! Data flow: a tool attaches one with [`crate::ToolOutput::with_detail`]
//! where it knows the facts (the resolved path, the bytes it wrote); the
//! engine carries it, never to the model, as `EngineEvent::ToolResult`'s
//! `detail` (its JSON form, [`ToolDetail::to_value`]); an embedder such as
//! orbit's SDK writer reads it back ([`ToolDetail::from_value`]) instead of
//! re-reading files or parsing the result text.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The facts one call reported, by tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolDetail {
    /// Read of a text file: the lines it showed.
    Read(ReadDetail),
    /// Edit: the change it made.
    Edit(FileChange),
    /// Write: the file it created or replaced.
    Write(FileChange),
    /// A foreground shell command that ran (or was stopped).
    Bash(BashDetail),
}

/// The window of a text file one Read showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadDetail {
    /// The file read (resolved against the session's cwd).
    pub file: PathBuf,
    /// The lines shown, without their `N\t` prefixes, joined by `\n`.
    pub content: String,
    /// How many lines were shown.
    pub num_lines: u64,
    /// The first line shown (1-based).
    pub start_line: u64,
    /// Lines in the whole file (a final newline starts one more, empty
    /// line); `None` when the file was too large to count.
    pub total_lines: Option<u64>,
}

/// Whether a write created its file or replaced one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The file did not exist.
    Create,
    /// The file existed and was replaced.
    Update,
}

/// One file change: its unified-diff hunks, computed from the content the
/// tool read and the content it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The file written (resolved against the session's cwd).
    pub file: PathBuf,
    /// Created or replaced.
    pub kind: ChangeKind,
    /// The hunks `original` → new content (empty for Edit's or Write's
    /// create, or when the old content was not text).
    pub structured_patch: Vec<PatchHunk>,
    /// The content replaced, when the tool reports it (Write's overwrite of
    /// a text file).
    pub original: Option<String>,
}

/// One unified-diff hunk: 1-based starts, lines prefixed with ` `, `-` or
/// `+`, without their newlines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatchHunk {
    /// First old line of the hunk (1-based).
    pub old_start: u64,
    /// Old lines the hunk spans.
    pub old_lines: u64,
    /// First new line of the hunk (1-based).
    pub new_start: u64,
    /// New lines the hunk spans.
    pub new_lines: u64,
    /// The hunk's lines, each prefixed with ` `, `-` or `+`.
    pub lines: Vec<String>,
}

/// A shell command's run: its streams apart, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashDetail {
    /// Its standard output, trailing whitespace trimmed.
    pub stdout: String,
    /// Its standard error, trailing whitespace trimmed.
    pub stderr: String,
    /// Its exit status, when it exited (not killed, not stopped).
    pub exit_code: Option<i32>,
    /// The call's cancel token stopped it (an interrupt, a sibling's
    /// failure).
    pub interrupted: bool,
    /// The files it changed among those the shell analysis says it
    /// writes, each with its hunks (a created file: all lines added),
    /// bounded by the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FileChange>,
    /// Files it changed that have no hunks here, and why (removed, not
    /// text, over the size cap, more files than shown).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unshown: Vec<UnshownChange>,
}

/// A changed file reported without its hunks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnshownChange {
    /// The file (resolved against the session's cwd).
    pub file: PathBuf,
    /// Why it has no hunks (`removed`, `not text`, `over 1 MiB`).
    pub reason: String,
}

impl ToolDetail {
    /// The JSON form the engine's events carry.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads back [`ToolDetail::to_value`]'s form (`None`: not one).
    pub fn from_value(value: &Value) -> Option<Self> {
        Self::deserialize(value).ok()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every variant survives the trip through the event's JSON.
    #[test]
    fn details_round_trip_through_json() {
        let details = [
            ToolDetail::Read(ReadDetail {
                file: "/p/a.txt".into(),
                content: "a\nb".into(),
                num_lines: 2,
                start_line: 1,
                total_lines: Some(3),
            }),
            ToolDetail::Write(FileChange {
                file: "/p/a.txt".into(),
                kind: ChangeKind::Update,
                structured_patch: vec![PatchHunk {
                    old_start: 1,
                    old_lines: 1,
                    new_start: 1,
                    new_lines: 1,
                    lines: vec!["-a".into(), "+b".into()],
                }],
                original: Some("a\n".into()),
            }),
            ToolDetail::Bash(BashDetail {
                stdout: "out".into(),
                stderr: "err".into(),
                exit_code: Some(1),
                interrupted: false,
                changes: vec![],
                unshown: vec![UnshownChange {
                    file: "/p/big.log".into(),
                    reason: "over 1 MiB".into(),
                }],
            }),
        ];
        for detail in details {
            let value = detail.to_value();
            assert_eq!(ToolDetail::from_value(&value), Some(detail), "{value}");
        }
        assert_eq!(ToolDetail::from_value(&serde_json::json!({"x": 1})), None);
    }
}
