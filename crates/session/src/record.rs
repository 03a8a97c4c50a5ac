//! The transcript format: one JSON object per line, each a [`Record`] with
//! the format version `v` ([`TRANSCRIPT_VERSION`]) and its `type`.
//!
//! A transcript is an append-only log of what changed in a session, in the
//! order it changed: the `header` first, then `message`s (every message
//! appended to the history, an assistant message as soon as it is streamed,
//! before its tools finish), `replacements` (the result budget's frozen
//! decisions, as deltas), `usage` (session totals after each model call),
//! `denial`s, `result`s, and boundaries (`compaction`, `snapshot`) whose
//! messages replace the history before them. [`crate::load`] replays it.
//!
//! ```text
//! {"v":1,"type":"header","session_id":"…","cwd":"/p","created_at_ms":…,"orbit_version":"0.1.0"}
//! {"v":1,"type":"message","message":{"role":"user","content":[…]}}
//! {"v":1,"type":"replacements","seen":["toolu_1"]}
//! {"v":1,"type":"usage","usage":{…},"total_cost_usd":0.012,"turns":1}
//! ```

use std::collections::BTreeMap;

use orbit_protocol::{Message, PermissionDenial, ResultSubtype, Usage};
use serde::{Deserialize, Serialize};

/// The version written in every record; a reader refuses newer ones.
pub const TRANSCRIPT_VERSION: u32 = 1;

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// First line: what the session is.
    Header(Header),
    /// A message appended to the history (merged into the previous one when
    /// two user messages meet, as the engine does).
    Message(MessageRecord),
    /// The last `message` record never entered the history (an assistant
    /// message recorded while streamed whose turn was dropped before its
    /// results were appended).
    DropLastMessage,
    /// New frozen decisions of the per-message result budget.
    Replacements(ReplacementsRecord),
    /// Session totals after a model call.
    Usage(UsageRecord),
    /// A tool call the permission gate refused.
    Denial(DenialRecord),
    /// How one submitted prompt ended.
    Result(ResultRecord),
    /// A compaction: its messages replace the history before it.
    Compaction(CompactionRecord),
    /// The full history of the session this one was forked from.
    Snapshot(SnapshotRecord),
}

/// What the session is; the first record of every transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The session id (a UUID).
    pub session_id: String,
    /// The absolute working directory of the session.
    pub cwd: String,
    /// When the session started, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// The session this one was forked from (`--fork-session`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// The orbit version that started it.
    pub orbit_version: String,
}

/// A message appended to the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageRecord {
    /// The message as the engine keeps it (full tool results).
    pub message: Message,
    /// tool_use ids of this message's results that the result budget must
    /// never replace (their tool's result limit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never_persisted: Vec<String>,
}

/// New frozen decisions of the result budget (`ContentReplacementState`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplacementsRecord {
    /// tool_use ids whose results have now been part of a request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<String>,
    /// tool_use id → the exact text always sent in place of its result.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub replaced: BTreeMap<String, String>,
}

impl ReplacementsRecord {
    /// Whether there is nothing new.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty() && self.replaced.is_empty()
    }
}

/// Session totals after a model call (the last one wins on replay).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// Tokens of every model call of the session.
    pub usage: Usage,
    /// Cost of every model call of the session, in US dollars.
    pub total_cost_usd: f64,
    /// Model calls of the session.
    pub turns: u32,
}

/// A refused tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DenialRecord {
    /// What was refused.
    pub denial: PermissionDenial,
}

/// How one submitted prompt ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// The result subtype.
    pub subtype: ResultSubtype,
    /// Model calls of this prompt.
    pub num_turns: u32,
    /// Wall time of this prompt, in milliseconds.
    pub duration_ms: u64,
    /// Whether it ended by an interrupt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTrigger {
    /// The next request would have passed the context threshold.
    Auto,
    /// Asked for (a library call, `/compact`).
    Manual,
    /// The summary request failed; old tool results / turns were dropped.
    Fallback,
}

/// A compaction boundary: `messages` replace the whole history before it;
/// the records after it are replayed on top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionRecord {
    /// What started it.
    pub trigger: CompactionTrigger,
    /// Estimated tokens of the history before.
    pub tokens_before: u64,
    /// Estimated tokens of the history after.
    pub tokens_after: u64,
    /// The summary text (empty for a fallback that only dropped content).
    #[serde(default)]
    pub summary: String,
    /// The history from here on.
    pub messages: Vec<Message>,
    /// Deferred tools ToolSearch had loaded before this point: they stay
    /// loaded although the history that loaded them is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_tools: Vec<String>,
}

/// The history a forked session starts from (`--fork-session`): replaces
/// everything before it, like a compaction boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRecord {
    /// The history of the original session.
    pub messages: Vec<Message>,
    /// Its never-persisted result ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never_persisted: Vec<String>,
    /// Deferred tools ToolSearch had loaded before this point: they stay
    /// loaded although the history that loaded them is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_tools: Vec<String>,
}

/// A record as written: the version, then the record.
#[derive(Serialize)]
struct LineRef<'a> {
    v: u32,
    #[serde(flatten)]
    record: &'a Record,
}

/// A record as read.
#[derive(Deserialize)]
struct LineOwned {
    v: u32,
    #[serde(flatten)]
    record: Record,
}

/// Only the version of a line (to tell a newer format from damage).
#[derive(Deserialize)]
struct VersionOnly {
    v: u32,
}

/// Why one line is not a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineError {
    /// Written by a newer orbit.
    Newer(u32),
    /// Not a record (torn or damaged).
    Invalid(String),
}

/// `record` as one line, with its trailing newline.
pub(crate) fn encode(record: &Record) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = serde_json::to_vec(&LineRef {
        v: TRANSCRIPT_VERSION,
        record,
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Parses one line (without its newline).
pub(crate) fn decode(line: &[u8]) -> Result<Record, LineError> {
    match serde_json::from_slice::<LineOwned>(line) {
        Ok(parsed) if parsed.v > TRANSCRIPT_VERSION => Err(LineError::Newer(parsed.v)),
        Ok(parsed) => Ok(parsed.record),
        Err(err) => match serde_json::from_slice::<VersionOnly>(line) {
            Ok(VersionOnly { v }) if v > TRANSCRIPT_VERSION => Err(LineError::Newer(v)),
            _ => Err(LineError::Invalid(err.to_string())),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use orbit_protocol::ContentBlock;

    use super::*;

    #[test]
    fn records_round_trip_with_version_and_type_first() {
        let records = [
            Record::Header(Header {
                session_id: "s".into(),
                cwd: "/p".into(),
                created_at_ms: 7,
                forked_from: None,
                orbit_version: "0.1.0".into(),
            }),
            Record::Message(MessageRecord {
                message: Message::assistant(vec![ContentBlock::text("hi")]),
                never_persisted: vec!["t1".into()],
            }),
            Record::DropLastMessage,
            Record::Replacements(ReplacementsRecord {
                seen: vec!["t1".into()],
                replaced: BTreeMap::from([("t1".into(), "<persisted-output>…".into())]),
            }),
            Record::Usage(UsageRecord {
                usage: Usage::default(),
                total_cost_usd: 0.25,
                turns: 3,
            }),
            Record::Compaction(CompactionRecord {
                trigger: CompactionTrigger::Auto,
                tokens_before: 9,
                tokens_after: 1,
                summary: "sum".into(),
                messages: vec![Message::user_text("sum")],
                loaded_tools: vec!["mcp__s__t".into()],
            }),
        ];
        for record in records {
            let line = encode(&record).unwrap();
            assert!(line.starts_with(b"{\"v\":1,\"type\":\""), "{line:?}");
            assert_eq!(line.last(), Some(&b'\n'));
            assert_eq!(decode(&line[..line.len() - 1]), Ok(record));
        }
        let drop = encode(&Record::DropLastMessage).unwrap();
        assert_eq!(drop, b"{\"v\":1,\"type\":\"drop_last_message\"}\n");
    }

    #[test]
    fn newer_versions_and_damage_are_told_apart() {
        assert_eq!(
            decode(br#"{"v":2,"type":"drop_last_message"}"#),
            Err(LineError::Newer(2))
        );
        assert_eq!(
            decode(br#"{"v":9,"type":"hologram","x":1}"#),
            Err(LineError::Newer(9))
        );
        assert!(matches!(
            decode(br#"{"v":1,"type":"message","mess"#),
            Err(LineError::Invalid(_))
        ));
    }
}
