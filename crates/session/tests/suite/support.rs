//! Records and transcripts for the tests, written through the real writer.

use std::path::{Path, PathBuf};

use orbit_protocol::{ContentBlock, Message, ToolResultBlock, Usage};
use orbit_session::{Header, MessageRecord, Record, TranscriptWriter, UsageRecord};
use serde_json::json;

pub const INTERRUPTED: &str = "[interrupted]";

pub fn header(id: &str) -> Record {
    Record::Header(Header {
        session_id: id.into(),
        cwd: "/proj".into(),
        created_at_ms: 1,
        forked_from: None,
        orbit_version: "test".into(),
    })
}

pub fn message(m: Message) -> Record {
    Record::Message(MessageRecord {
        message: m,
        never_persisted: Vec::new(),
    })
}

pub fn prompt(text: &str) -> Record {
    message(Message::user_text(text))
}

pub fn calls(ids: &[&str]) -> Message {
    Message::assistant(
        ids.iter()
            .map(|id| ContentBlock::tool_use(*id, "Bash", json!({"command": "true"})))
            .collect(),
    )
}

pub fn results(ids: &[&str]) -> Message {
    Message::user(
        ids.iter()
            .map(|id| ContentBlock::ToolResult(ToolResultBlock::text(*id, "ok", false)))
            .collect(),
    )
}

pub fn interrupted(id: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResultBlock::text(id, INTERRUPTED, true))
}

pub fn usage(turns: u32, cost: f64) -> Record {
    Record::Usage(UsageRecord {
        usage: Usage {
            input_tokens: u64::from(turns) * 10,
            ..Usage::default()
        },
        total_cost_usd: cost,
        turns,
    })
}

/// Writes `records` as a new transcript at `path` and waits until synced.
pub async fn write(path: &Path, records: &[Record]) {
    let mut writer = TranscriptWriter::create(path.to_path_buf());
    for r in records {
        writer.append(r);
    }
    writer.sync().await.unwrap();
}

pub fn path_in(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.jsonl"))
}

pub fn load(path: &Path) -> Result<orbit_session::LoadedSession, orbit_session::SessionError> {
    orbit_session::load(path, INTERRUPTED)
}
