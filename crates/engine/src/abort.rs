//! The abort handle (L5): one signal that cancels the running turn.
//!
//! Each `submit_message` installs a fresh [`CancellationToken`]; the handle
//! cancels whichever token is current, so an abort that arrives while no turn
//! runs does not poison the next one. Every tool call gets a child token of
//! the turn's token, so an abort reaches running tools directly (no hop
//! through the loop), while the loop drops the model stream and answers the
//! tool_uses.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// Cancels the running turn. Cheap to clone; callable from a signal-handler task.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle {
    current: Arc<Mutex<CancellationToken>>,
}

impl AbortHandle {
    /// Interrupts the running turn (no effect on later turns).
    pub fn abort(&self) {
        self.lock().cancel();
    }

    /// Whether the current turn has been interrupted.
    pub fn is_aborted(&self) -> bool {
        self.lock().is_cancelled()
    }

    /// Starts a new turn: installs and returns a fresh token.
    pub(crate) fn reset(&self) -> CancellationToken {
        let token = CancellationToken::new();
        *self.lock() = token.clone();
        token
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CancellationToken> {
        match self.current.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abort_between_turns_is_reset_by_the_next_turn() {
        let handle = AbortHandle::default();
        handle.abort();
        assert!(handle.is_aborted());
        let token = handle.reset();
        assert!(!token.is_cancelled());
        handle.abort();
        assert!(token.is_cancelled());
    }
}
