//! The budgeted view a request sends, kept from request to request so a
//! request copies only what is new (R2).
//!
//! Every message of a view that was sent is frozen: its tool_results are in
//! `seen_ids`, so [`enforce_tool_result_budget`] would give it the same
//! replacements and plan nothing for it again. So the view of
//! `history[0..k]` stays valid until one of those history messages
//! changes, and the next view is that prefix (the same `Arc`s, which the
//! model client recognises and does not serialize again, see
//! `orbit_model`'s `ModelRequest::messages`) plus the budgeted copies of
//! the messages after it. The history changes only through `Session`,
//! which tells the view what it touched ([`BudgetedView::invalidate_from`]:
//! a user message merged into the last one, a compaction).

use std::sync::Arc;

use orbit_protocol::Message;

use super::budget::{ContentReplacementState, SkipResult, enforce_tool_result_budget};
use super::storage::ToolResultStorage;

/// The view of the history's first messages, as last sent.
#[derive(Debug, Default)]
pub(crate) struct BudgetedView {
    messages: Vec<Arc<Message>>,
}

impl BudgetedView {
    /// Forgets the view of `history[index..]` (those messages changed).
    pub(crate) fn invalidate_from(&mut self, index: usize) {
        self.messages.truncate(index);
    }

    /// The view of `history` to send: the kept prefix, then R2 over the
    /// rest (decisions frozen in `state`). Equal, message for message, to
    /// [`enforce_tool_result_budget`] over the whole history.
    pub(crate) async fn update(
        &mut self,
        history: &[Message],
        state: &mut ContentReplacementState,
        budget_chars: usize,
        storage: &ToolResultStorage,
        skip: SkipResult<'_>,
    ) -> Vec<Arc<Message>> {
        // A history shorter than the view was replaced without notice.
        if self.messages.len() > history.len() {
            self.messages.clear();
        }
        let kept = self.messages.len();
        let tail =
            enforce_tool_result_budget(&history[kept..], state, budget_chars, storage, skip).await;
        self.messages.extend(tail.into_iter().map(Arc::new));
        self.messages.clone()
    }
}
