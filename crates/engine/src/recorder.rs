//! [`Recorder`]: the engine's side of the transcript — it turns changes of
//! the [`crate::Session`] into `orbit_session` records and decides when they
//! must be durable.
//!
//! Data flow: the session calls the recorder as it changes — a message
//! appended, an assistant message streamed (recorded at once, before its
//! tools finish, so a crash mid-tool leaves a tool_use the reader answers as
//! interrupted), a compaction. Right before each model request the session
//! hands it the rest (new frozen budget decisions, usage totals, denials so
//! far) and awaits [`Recorder::sync`]: everything the request is built from
//! is on disk before it is sent. At the end of a prompt the result is
//! recorded and synced before the result event is emitted.
//!
//! A transcript that cannot be written does not stop the session: the first
//! failure is logged as a warning, the session goes on in memory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use orbit_protocol::{Message, PermissionDenial, Role, TerminalResult, Usage};
use orbit_session::{
    CompactionRecord, DenialRecord, Header, LoadedSession, MessageRecord, Record,
    ReplacementsRecord, ResultRecord, SnapshotRecord, TranscriptWriter, UsageRecord,
};

use crate::results::ContentReplacementState;

/// Session totals as last recorded.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Totals {
    pub(crate) usage: Usage,
    pub(crate) total_cost_usd: f64,
    pub(crate) turns: u32,
}

/// Records one session's changes; see the module docs.
#[derive(Debug)]
pub(crate) struct Recorder {
    writer: TranscriptWriter,
    /// Budget decisions already in the transcript.
    seen: BTreeSet<String>,
    replaced: BTreeSet<String>,
    totals: Totals,
    /// Denials of the running prompt already recorded.
    denials_recorded: usize,
    /// The last message record is an assistant message streamed but not yet
    /// committed to the history.
    in_flight: bool,
    warned: bool,
}

impl Recorder {
    /// A new transcript at `path`, starting with `header`.
    pub(crate) fn create(path: PathBuf, header: Header) -> Self {
        let mut recorder = Self::with_writer(TranscriptWriter::create(path));
        recorder.writer.append(&Record::Header(header));
        recorder
    }

    /// Appends to the transcript `loaded` was read from.
    pub(crate) fn append_to(loaded: &LoadedSession) -> Self {
        let writer = TranscriptWriter::append_existing(
            loaded.path.clone(),
            loaded.valid_len,
            loaded.needs_newline,
        );
        let mut recorder = Self::with_writer(writer);
        recorder.mark_recorded(loaded);
        recorder
    }

    /// A new transcript at `path` for a fork of `loaded`: the header, then
    /// the history, decisions and totals it starts from.
    pub(crate) fn fork(path: PathBuf, header: Header, loaded: &LoadedSession) -> Self {
        let mut recorder = Self::create(path, header);
        recorder.writer.append(&Record::Snapshot(SnapshotRecord {
            messages: loaded.messages.clone(),
            never_persisted: loaded.never_persisted.iter().cloned().collect(),
            loaded_tools: loaded.loaded_tools.clone(),
        }));
        recorder
            .writer
            .append(&Record::Replacements(ReplacementsRecord {
                seen: loaded.seen_ids.iter().cloned().collect(),
                replaced: loaded.replacements.clone(),
            }));
        recorder.writer.append(&Record::Usage(UsageRecord {
            usage: loaded.usage,
            total_cost_usd: loaded.total_cost_usd,
            turns: loaded.turns,
        }));
        recorder.mark_recorded(loaded);
        recorder
    }

    fn with_writer(writer: TranscriptWriter) -> Self {
        Self {
            writer,
            seen: BTreeSet::new(),
            replaced: BTreeSet::new(),
            totals: Totals::default(),
            denials_recorded: 0,
            in_flight: false,
            warned: false,
        }
    }

    fn mark_recorded(&mut self, loaded: &LoadedSession) {
        self.seen = loaded.seen_ids.clone();
        self.replaced = loaded.replacements.keys().cloned().collect();
        self.totals = Totals {
            usage: loaded.usage,
            total_cost_usd: loaded.total_cost_usd,
            turns: loaded.turns,
        };
    }

    /// A message appended to the history. The commit of an assistant
    /// message already recorded while streamed is not written twice; any
    /// other message after such a streamed one means its turn was dropped.
    pub(crate) fn message(&mut self, message: &Message, never_persisted: Vec<String>) {
        if std::mem::take(&mut self.in_flight) {
            if message.role == Role::Assistant {
                return;
            }
            self.writer.append(&Record::DropLastMessage);
        }
        self.writer.append(&Record::Message(MessageRecord {
            message: message.clone(),
            never_persisted,
        }));
    }

    /// An assistant message as soon as it is streamed (its tools may still
    /// run); its commit to the history is then not recorded again.
    pub(crate) fn streamed(&mut self, message: &Message) {
        if message.content.is_empty() {
            return;
        }
        if std::mem::take(&mut self.in_flight) {
            self.writer.append(&Record::DropLastMessage);
        }
        self.writer.append(&Record::Message(MessageRecord {
            message: message.clone(),
            never_persisted: Vec::new(),
        }));
        self.in_flight = true;
    }

    /// A compaction boundary (its messages replace the history).
    pub(crate) fn compaction(&mut self, record: CompactionRecord) {
        self.in_flight = false;
        self.writer.append(&Record::Compaction(record));
    }

    /// The budget decisions not yet recorded.
    pub(crate) fn replacements(&mut self, state: &ContentReplacementState) {
        let mut delta = ReplacementsRecord::default();
        if state.seen_ids.len() != self.seen.len() {
            delta.seen = state
                .seen_ids
                .iter()
                .filter(|id| !self.seen.contains(*id))
                .cloned()
                .collect();
            self.seen.extend(delta.seen.iter().cloned());
        }
        if state.replacements.len() != self.replaced.len() {
            delta.replaced = state
                .replacements
                .iter()
                .filter(|(id, _)| !self.replaced.contains(*id))
                .map(|(id, text)| (id.clone(), text.clone()))
                .collect::<BTreeMap<_, _>>();
            self.replaced.extend(delta.replaced.keys().cloned());
        }
        if !delta.is_empty() {
            self.writer.append(&Record::Replacements(delta));
        }
    }

    /// The session totals, when they changed.
    pub(crate) fn totals(&mut self, totals: Totals) {
        if totals != self.totals {
            self.totals = totals;
            self.writer.append(&Record::Usage(UsageRecord {
                usage: totals.usage,
                total_cost_usd: totals.total_cost_usd,
                turns: totals.turns,
            }));
        }
    }

    /// The running prompt's denials so far (`all`: every one of this
    /// prompt, in order; those already recorded are skipped).
    pub(crate) fn denials(&mut self, all: &[PermissionDenial]) {
        for denial in all.iter().skip(self.denials_recorded) {
            self.writer.append(&Record::Denial(DenialRecord {
                denial: denial.clone(),
            }));
        }
        self.denials_recorded = self.denials_recorded.max(all.len());
    }

    /// How a prompt ended; the next prompt's denials count from zero.
    pub(crate) fn result(&mut self, result: &TerminalResult) {
        self.denials(&result.permission_denials);
        self.denials_recorded = 0;
        self.writer.append(&Record::Result(ResultRecord {
            subtype: result.subtype,
            num_turns: result.num_turns,
            duration_ms: result.duration_ms,
            interrupted: result.interrupted,
        }));
    }

    /// Waits until everything recorded is on disk (`synced`), or only in
    /// the file (not `synced`: safe from a crash of the process; the writer
    /// syncs right after). A failure is logged once and the session goes on
    /// unrecorded.
    pub(crate) async fn sync(&mut self, synced: bool) {
        let outcome = if synced {
            self.writer.sync().await
        } else {
            self.writer.written().await
        };
        if let Err(err) = outcome
            && !std::mem::replace(&mut self.warned, true)
        {
            tracing::warn!("{err}; the session goes on but cannot be resumed from here");
        }
    }
}
