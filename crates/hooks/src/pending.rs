//! Hook inputs queued before a session's first prompt: the session's
//! assembly (which loads the memory files) cannot run hooks itself, so it
//! puts InstructionsLoaded inputs in a [`PendingHooks`] kept in the
//! session's tool context under [`PENDING_HOOKS_KEY`]; the engine takes
//! them on the first prompt and runs them (their answers are ignored:
//! those events are observability only).

use std::sync::Mutex;

use serde_json::Value;

use crate::event::HookEvent;

/// Where a session's [`PendingHooks`] are (a tool-context extension key).
pub const PENDING_HOOKS_KEY: &str = "orbit-hooks/pending";

/// One queued run: the event, its matcher subject and its fields.
pub type PendingRun = (HookEvent, Option<String>, Value);

/// Hook runs waiting for the session's first prompt.
#[derive(Debug, Default)]
pub struct PendingHooks(Mutex<Vec<PendingRun>>);

impl PendingHooks {
    /// Queues one run.
    pub fn push(&self, event: HookEvent, subject: Option<String>, fields: Value) {
        let mut runs = self.0.lock().unwrap_or_else(|p| p.into_inner());
        runs.push((event, subject, fields));
    }

    /// Takes every queued run, in order.
    pub fn take(&self) -> Vec<PendingRun> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
