//! The SDK's `rewind_files` control request, answered as Claude Code
//! answers it: keyed by a user message's `uuid` (the one echoed with
//! `--replay-user-messages`, or the message's own), and only when the
//! session was started with `enable_file_checkpointing`
//! (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`).
//!
//! Data flow: [`Rewinds::queued`] notes each user message's uuid as it is
//! read; when the loop takes queued messages into a prompt
//! ([`Rewinds::take`]) and submits it ([`Rewinds::submitted`]), their uuids
//! map to that prompt's number (the transcript's `result` records + 1,
//! `orbit_session::fork::count_results`). [`Rewinds::answer`] restores the
//! files to before that prompt with `orbit_checkpoint::rewind_code` (not
//! forced: a file changed outside orbit is refused by name) and answers
//! `{"canRewind": true, "filesChanged": [...], "insertions", "deletions"}`;
//! with `dry_run` nothing is written ([`orbit_checkpoint::preview_code`]).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use orbit_engine::QueryEngine;
use serde_json::{Value, json};

/// The uuid → prompt map of one SDK session.
pub(crate) struct Rewinds {
    enabled: bool,
    data_dir: PathBuf,
    root: PathBuf,
    session_id: String,
    /// uuids of queued messages, oldest first.
    pending: VecDeque<String>,
    /// uuid → prompt number.
    prompts: HashMap<String, u32>,
    /// Result records counted so far and the transcript offset reached.
    results: (u32, u64),
}

impl Rewinds {
    pub(crate) fn new(engine: &QueryEngine, enabled: bool) -> Self {
        let config = engine.config();
        let root = config
            .cwd
            .canonicalize()
            .unwrap_or_else(|_| config.cwd.clone());
        Self {
            enabled,
            data_dir: config.data_dir.clone(),
            root,
            session_id: config.session_id.clone(),
            pending: VecDeque::new(),
            prompts: HashMap::new(),
            results: (0, 0),
        }
    }

    /// A user message was read (its uuid).
    pub(crate) fn queued(&mut self, uuid: String) {
        self.pending.push_back(uuid);
    }

    /// The loop took `count` queued messages into its next prompt.
    pub(crate) fn take(&mut self, count: usize) -> Vec<String> {
        let count = count.min(self.pending.len());
        self.pending.drain(..count).collect()
    }

    /// The prompt made of `uuids` is being submitted.
    pub(crate) fn submitted(&mut self, uuids: Vec<String>) {
        let transcript =
            orbit_session::transcript_path(&self.data_dir, &self.root, &self.session_id);
        let (more, offset) = orbit_session::fork::count_results(&transcript, self.results.1);
        self.results = (self.results.0 + more, offset);
        let number = self.results.0 + 1;
        for uuid in uuids {
            self.prompts.insert(uuid, number);
        }
    }

    /// The answer to `rewind_files` for `user_message_id` (Claude Code's
    /// texts for a session without checkpointing and an unknown id; a
    /// `dry_run` only says what would change).
    pub(crate) fn answer(
        &self,
        user_message_id: &str,
        dry_run: bool,
        turn_running: bool,
    ) -> Result<Value, String> {
        if !self.enabled {
            return Err("File rewinding is not enabled.".into());
        }
        let Some(&number) = self.prompts.get(user_message_id) else {
            return Err("No file checkpoint found for this message.".into());
        };
        if turn_running && !dry_run {
            return Err("Cannot rewind files while a turn is running.".into());
        }
        let mut store = orbit_checkpoint::Store::open(&self.data_dir, &self.root, &self.session_id);
        let report = match dry_run {
            true => orbit_checkpoint::preview_code(&mut store, number),
            false => orbit_checkpoint::rewind_code(&mut store, number, false),
        }
        .map_err(|err| err.to_string())?;
        let changed: Vec<&String> = report.restored.iter().chain(&report.removed).collect();
        Ok(json!({
            "canRewind": true,
            "filesChanged": changed,
            "insertions": report.insertions,
            "deletions": report.deletions,
        }))
    }
}
