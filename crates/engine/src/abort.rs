//! The abort handle (L5): one signal that cancels a turn. An abort is never
//! lost.
//!
//! Semantics:
//! - During a turn, [`AbortHandle::abort`] cancels that turn: its
//!   [`CancellationToken`] fires, and every tool call holds a child token,
//!   so the abort reaches running tools directly (no hop through the loop)
//!   while the loop drops the model stream and answers the tool_uses.
//! - Between turns (before the first `submit_message`, or after a turn has
//!   ended), an abort is kept pending and cancels the *next* turn: that turn
//!   ends at once, interrupted, without calling the model. This is what
//!   makes an early Ctrl-C, or the CLI's "stdout closed" stop, effective.
//! - A turn consumes the abort that cancelled it: when a turn ends (or its
//!   stream is dropped) the handle starts afresh, so a library caller can
//!   run a new turn after an aborted one.
//!
//! [`AbortHandle::is_aborted`] tells whether an abort is pending for the
//! next turn or has cancelled the running one.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

/// Cancels the running turn, or the next one when none runs. Cheap to
/// clone; callable from a signal-handler task or another thread.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle {
    slot: Arc<Mutex<Slot>>,
}

/// The token the next (or running) turn uses.
#[derive(Debug, Default)]
struct Slot {
    token: CancellationToken,
    /// Increments whenever a turn claims `token`; tells a turn's guard
    /// whether the slot still holds its token.
    generation: u64,
    /// A turn holds `token`.
    running: bool,
}

impl AbortHandle {
    /// Interrupts the running turn, or the next turn when none runs.
    pub fn abort(&self) {
        self.lock().token.cancel();
    }

    /// Whether an abort is pending for the next turn or has cancelled the
    /// running one.
    pub fn is_aborted(&self) -> bool {
        self.lock().token.is_cancelled()
    }

    /// Starts a turn: the returned guard's token is already cancelled when
    /// an abort was requested since the last turn ended. Dropping the guard
    /// ends the turn (see [`TurnGuard`]).
    pub(crate) fn begin_turn(&self) -> TurnGuard {
        let mut slot = self.lock();
        if slot.running {
            // A previous turn's guard is still alive (its stream was leaked):
            // that turn keeps its token, this one gets its own.
            slot.token = CancellationToken::new();
        }
        slot.running = true;
        slot.generation = slot.generation.wrapping_add(1);
        TurnGuard {
            handle: self.clone(),
            token: slot.token.clone(),
            generation: slot.generation,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        crate::lock::lock(&self.slot)
    }
}

/// One turn's claim on the handle. Its drop ends the turn: the handle gets a
/// fresh token, so an abort that cancelled this turn is consumed and one
/// requested from now on waits for the next turn.
#[derive(Debug)]
pub(crate) struct TurnGuard {
    handle: AbortHandle,
    token: CancellationToken,
    generation: u64,
}

impl TurnGuard {
    /// The turn's cancellation token.
    pub(crate) fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        let mut slot = self.handle.lock();
        if slot.running && slot.generation == self.generation {
            slot.running = false;
            slot.token = CancellationToken::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abort_before_a_turn_cancels_that_turn_and_is_consumed_by_it() {
        let handle = AbortHandle::default();
        handle.abort();
        assert!(handle.is_aborted(), "pending");
        let turn = handle.begin_turn();
        assert!(turn.token().is_cancelled());
        drop(turn);
        assert!(!handle.is_aborted(), "consumed by the turn it cancelled");
        let next = handle.begin_turn();
        assert!(!next.token().is_cancelled());
    }

    #[test]
    fn an_abort_during_a_turn_cancels_only_that_turn() {
        let handle = AbortHandle::default();
        let turn = handle.begin_turn();
        let token = turn.token();
        assert!(!token.is_cancelled());
        handle.abort();
        assert!(token.is_cancelled());
        drop(turn);
        assert!(!handle.begin_turn().token().is_cancelled());
    }

    #[test]
    fn an_abort_after_a_turn_ended_waits_for_the_next_turn() {
        let handle = AbortHandle::default();
        let first = handle.begin_turn();
        let first_token = first.token();
        drop(first);
        handle.abort();
        assert!(!first_token.is_cancelled(), "the ended turn is left alone");
        assert!(handle.begin_turn().token().is_cancelled());
    }

    #[test]
    fn a_leaked_turn_does_not_capture_later_turns() {
        let handle = AbortHandle::default();
        let leaked = handle.begin_turn();
        let second = handle.begin_turn();
        handle.abort();
        assert!(second.token().is_cancelled());
        assert!(!leaked.token().is_cancelled());
        // The stale guard's drop must not reset the live turn's slot.
        drop(leaked);
        assert!(handle.is_aborted());
        drop(second);
        assert!(!handle.is_aborted());
    }
}
