//! [`Session`]: what one conversation accumulates — the history, the frozen
//! result-budget decisions ([`ContentReplacementState`]), usage and cost,
//! the ids of its tool calls — and the state its tools share through the
//! `ToolUseContext` (the file-state cache behind read-before-write, the todo
//! list).
//!
//! The engine owns one `Session`; the query loop borrows it mutably for one
//! run and only ever extends the history with complete pairs (an assistant
//! message and the user message answering its tool_uses). It is the value
//! the transcript of issue 11 persists and a resume rebuilds.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use orbit_protocol::{Message, Role, TodoItem, ToolUseBlock, Usage};
use orbit_tool::FileStateCache;

use crate::compact::{CompactionBoundary, ContextAnchor};
use crate::results::ContentReplacementState;

/// One conversation's state.
#[derive(Debug, Default)]
pub struct Session {
    pub(crate) messages: Vec<Message>,
    pub(crate) replacement_state: ContentReplacementState,
    /// Tokens of every model call of the session, voided attempts included.
    pub(crate) usage: Usage,
    /// Cost of every model call of the session, in US dollars.
    pub(crate) total_cost_usd: f64,
    /// Every tool_use id in the history (kept unique, see
    /// [`Session::make_tool_use_id_unique`]).
    tool_use_ids: HashSet<String>,
    /// tool_use ids whose results the per-message budget must never replace
    /// (their tool's `ResultLimit`; see `results::budget`).
    pub(crate) never_persisted_ids: HashSet<String>,
    /// Read-before-write state, shared with the tools.
    pub(crate) file_state: Arc<FileStateCache>,
    /// The TodoWrite list, shared with the tools.
    pub(crate) todos: Arc<Mutex<Vec<TodoItem>>>,
    /// What the last response's usage says about the history's size (the
    /// compaction estimate's starting point; None after a compaction).
    pub(crate) context_anchor: Option<ContextAnchor>,
}

impl Session {
    /// The full history (tool_results as produced, before the budget view).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The budget's frozen decisions.
    pub fn replacement_state(&self) -> &ContentReplacementState {
        &self.replacement_state
    }

    /// Tokens of every model call so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Cost of every model call so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.total_cost_usd
    }

    /// The current todo list.
    pub fn todos(&self) -> Vec<TodoItem> {
        match self.todos.lock() {
            Ok(todos) => todos.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Gives a tool_use a fresh id when its id is empty or was already used
    /// in this session: some OpenAI-compatible servers repeat ids (`call_0`
    /// every turn, or twice in one message), and a repeated id would pair a
    /// result with the wrong call or reuse an old frozen budget decision.
    /// `attempt_ids` holds the ids of the message being streamed (a voided
    /// attempt's ids never enter the history and are forgotten with it).
    pub(crate) fn make_tool_use_id_unique(
        &self,
        tool_use: &mut ToolUseBlock,
        attempt_ids: &mut HashSet<String>,
    ) {
        if tool_use.id.is_empty()
            || self.tool_use_ids.contains(&tool_use.id)
            || attempt_ids.contains(&tool_use.id)
        {
            let fresh = format!("toolu_orbit_{}", uuid::Uuid::new_v4().simple());
            tracing::debug!(from = %tool_use.id, to = %fresh, "renamed a repeated tool_use id");
            tool_use.id = fresh;
        }
        attempt_ids.insert(tool_use.id.clone());
    }

    /// Replaces the whole history by a compaction's (see
    /// [`CompactionBoundary`]): the one way compaction changes the history.
    /// The usage-based size estimate starts over.
    pub fn apply_compaction(&mut self, boundary: CompactionBoundary) {
        self.messages = boundary.messages;
        self.context_anchor = None;
    }

    /// Appends a message to the history; a user message that follows a user
    /// message (e.g. a prompt after an answer that had no content) is merged
    /// into it, so roles alternate as the API requires.
    pub(crate) fn push_message(&mut self, message: Message) {
        match self.messages.last_mut() {
            Some(last) if last.role == Role::User && message.role == Role::User => {
                last.content.extend(message.content);
            }
            _ => {
                self.tool_use_ids
                    .extend(message.tool_uses().map(|t| t.id.clone()));
                self.messages.push(message);
            }
        }
    }
}
