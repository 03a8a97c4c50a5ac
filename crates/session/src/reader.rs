//! [`load`]: reads a transcript back into the state a session resumes
//! from, repairing what a crash can leave behind.
//!
//! Data flow: the file is read line by line (streaming: memory holds the
//! replayed state, not the file) → each line is decoded ([`crate::Record`])
//! → replayed: messages appended with the engine's merge rule
//! ([`crate::history::push_message`]), a `compaction` or `snapshot` record
//! replaces the history so far (resume starts from the last boundary),
//! replacement decisions and never-persisted ids accumulate, the last
//! `usage` record gives the session totals → repair → [`LoadedSession`].
//!
//! Repairs, each reported in [`LoadedSession::repairs`]:
//! - a last line that is not a complete record (the process died while
//!   writing it) is dropped; the writer cuts the file back to
//!   [`LoadedSession::valid_len`] before appending again. A damaged line
//!   elsewhere is an error ([`SessionError::Damaged`]): it was not a crash,
//!   and guessing could send the model a history it never saw.
//! - a tool_use without its result (the process died while the tool ran)
//!   gets a synthetic error result with the caller's interrupted text: at
//!   the end of the history as [`LoadedSession::pending_results`] (a new
//!   user message the engine appends and records), elsewhere inserted in
//!   place.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use orbit_protocol::{ContentBlock, Message, Role, ToolResultBlock, Usage};

use crate::SessionError;
use crate::history::push_message;
use crate::record::{Header, LineError, Record, decode};

/// What a crash left behind and how it was repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// The last line was torn; it was dropped.
    TornLastLine {
        /// 1-based line number.
        line: usize,
        /// Its length in bytes.
        bytes: usize,
    },
    /// tool_uses without results got the interrupted result.
    InterruptedToolUses {
        /// Their ids.
        tool_use_ids: Vec<String>,
    },
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Repair::TornLastLine { line, bytes } => write!(
                f,
                "dropped an incomplete last record (line {line}, {bytes} bytes) left by a crash"
            ),
            Repair::InterruptedToolUses { tool_use_ids } => write!(
                f,
                "{} tool call(s) were cut off by a crash and are marked interrupted: {}",
                tool_use_ids.len(),
                tool_use_ids.join(", ")
            ),
        }
    }
}

/// A transcript read back: the state a session resumes from.
#[derive(Debug, Clone)]
pub struct LoadedSession {
    /// The transcript's path.
    pub path: PathBuf,
    /// Its header.
    pub header: Header,
    /// The history from the last boundary on, repaired in place.
    pub messages: Vec<Message>,
    /// Synthetic interrupted results for the tool_uses of the last message
    /// (a crash while its tools ran), to append to the history.
    pub pending_results: Option<Message>,
    /// tool_use ids whose results were part of a request.
    pub seen_ids: BTreeSet<String>,
    /// tool_use id → the text always sent in place of its result.
    pub replacements: BTreeMap<String, String>,
    /// tool_use ids whose results must never be replaced.
    pub never_persisted: BTreeSet<String>,
    /// Tokens of every model call of the session.
    pub usage: Usage,
    /// Cost of every model call of the session, in US dollars.
    pub total_cost_usd: f64,
    /// Model calls of the session.
    pub turns: u32,
    /// Deferred tools ToolSearch loaded before the last boundary (the
    /// history from it on names the ones loaded since).
    pub loaded_tools: Vec<String>,
    /// Length in bytes of the intact records (where appending resumes).
    pub valid_len: u64,
    /// Whether the last intact record lacks its newline.
    pub needs_newline: bool,
    /// What was repaired.
    pub repairs: Vec<Repair>,
}

#[derive(Default)]
struct Replay {
    header: Option<Header>,
    messages: Vec<Message>,
    /// Whether the last record added a new history entry (for `drop_last_message`).
    last_was_new_entry: bool,
    seen_ids: BTreeSet<String>,
    replacements: BTreeMap<String, String>,
    never_persisted: BTreeSet<String>,
    usage: Usage,
    total_cost_usd: f64,
    turns: u32,
    loaded_tools: Vec<String>,
}

impl Replay {
    fn apply(&mut self, record: Record) {
        match record {
            Record::Header(header) => {
                if self.header.is_none() {
                    self.header = Some(header);
                }
            }
            Record::Message(m) => {
                self.never_persisted.extend(m.never_persisted);
                self.last_was_new_entry = push_message(&mut self.messages, m.message);
                return;
            }
            Record::DropLastMessage => {
                if self.last_was_new_entry {
                    self.messages.pop();
                }
            }
            Record::Replacements(r) => {
                self.seen_ids.extend(r.seen);
                self.replacements.extend(r.replaced);
            }
            Record::Usage(u) => {
                self.usage = u.usage;
                self.total_cost_usd = u.total_cost_usd;
                self.turns = u.turns;
            }
            Record::Compaction(c) => {
                self.messages = c.messages;
                self.loaded_tools = c.loaded_tools;
            }
            Record::Snapshot(s) => {
                self.messages = s.messages;
                self.loaded_tools = s.loaded_tools;
                self.never_persisted.extend(s.never_persisted);
            }
            Record::Denial(_) | Record::Result(_) => {}
        }
        self.last_was_new_entry = false;
    }
}

/// Reads the transcript at `path` (see the module docs); tool_uses left
/// without a result are answered with `interrupted_text` (`is_error`).
pub fn load(path: &Path, interrupted_text: &str) -> Result<LoadedSession, SessionError> {
    let io_error = |source| SessionError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut replay = Replay::default();
    let mut repairs = Vec::new();
    let mut line = Vec::new();
    let mut offset = 0u64;
    let mut valid_len = 0u64;
    let mut needs_newline = false;
    let mut line_no = 0usize;
    // A bad line is fatal only if another line follows it.
    let mut pending_bad: Option<(usize, usize, String)> = None;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io_error)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if let Some((bad_line, _, reason)) = pending_bad.take() {
            return Err(SessionError::Damaged {
                path: path.to_path_buf(),
                line: bad_line,
                reason,
            });
        }
        offset += n as u64;
        let has_newline = line.last() == Some(&b'\n');
        let body = if has_newline {
            &line[..n - 1]
        } else {
            &line[..]
        };
        if body.iter().all(u8::is_ascii_whitespace) {
            valid_len = offset;
            continue;
        }
        match decode(body) {
            Ok(record) => {
                replay.apply(record);
                valid_len = offset;
                needs_newline = !has_newline;
            }
            Err(LineError::Newer(version)) => {
                return Err(SessionError::NewerFormat {
                    path: path.to_path_buf(),
                    version,
                });
            }
            Err(LineError::Invalid(reason)) => pending_bad = Some((line_no, n, reason)),
        }
    }
    if let Some((line, bytes, _)) = pending_bad {
        repairs.push(Repair::TornLastLine { line, bytes });
    }
    let Some(header) = replay.header.take() else {
        return Err(SessionError::Damaged {
            path: path.to_path_buf(),
            line: 1,
            reason: "no header record".into(),
        });
    };
    let mut messages = std::mem::take(&mut replay.messages);
    let (pending_results, interrupted) = pair_tool_uses(&mut messages, interrupted_text);
    if !interrupted.is_empty() {
        repairs.push(Repair::InterruptedToolUses {
            tool_use_ids: interrupted,
        });
    }
    Ok(LoadedSession {
        path: path.to_path_buf(),
        header,
        messages,
        pending_results,
        seen_ids: replay.seen_ids,
        replacements: replay.replacements,
        never_persisted: replay.never_persisted,
        usage: replay.usage,
        total_cost_usd: replay.total_cost_usd,
        turns: replay.turns,
        loaded_tools: replay.loaded_tools,
        valid_len,
        needs_newline,
        repairs,
    })
}

/// Gives every tool_use without a result in the next message a synthetic
/// interrupted result. Returns the results for the last message (to be
/// appended as a new user message) and the ids repaired.
fn pair_tool_uses(messages: &mut Vec<Message>, text: &str) -> (Option<Message>, Vec<String>) {
    let mut repaired = Vec::new();
    let mut i = 0;
    let mut pending = None;
    while i < messages.len() {
        if messages[i].role != Role::Assistant {
            i += 1;
            continue;
        }
        let answered: HashSet<&str> = match messages.get(i + 1) {
            Some(next) if next.role == Role::User => next
                .tool_results()
                .map(|r| r.tool_use_id.as_str())
                .collect(),
            _ => HashSet::new(),
        };
        let missing: Vec<ContentBlock> = messages[i]
            .tool_uses()
            .filter(|t| !answered.contains(t.id.as_str()))
            .map(|t| ContentBlock::ToolResult(ToolResultBlock::text(&t.id, text, true)))
            .collect();
        if missing.is_empty() {
            i += 1;
            continue;
        }
        repaired.extend(missing.iter().filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.tool_use_id.clone()),
            _ => None,
        }));
        match messages.get_mut(i + 1) {
            Some(next) if next.role == Role::User => {
                // Results first, as the API expects them.
                next.content.splice(0..0, missing);
            }
            Some(_) => messages.insert(i + 1, Message::user(missing)),
            None => pending = Some(Message::user(missing)),
        }
        i += 1;
    }
    (pending, repaired)
}
