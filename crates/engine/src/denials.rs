//! [`Denials`]: P1's record of every call the permission gate refused.
//!
//! The [`Session`](crate::session::Session) owns it (a prompt's denials go
//! to its result and its transcript); the session's `ToolRuntime` holds a
//! clone of the handle, so the orchestrator records a denial the moment it
//! is decided, from whatever task runs the call, and no path (retry, abort,
//! error) can drop one.

use std::sync::{Arc, Mutex};

use orbit_protocol::PermissionDenial;

use crate::lock::lock;

/// The denials recorded since they were last taken, in order (a shared
/// handle: clones see the same list).
#[derive(Debug, Clone, Default)]
pub(crate) struct Denials(Arc<Mutex<Vec<PermissionDenial>>>);

impl Denials {
    /// Records one refused call.
    pub(crate) fn record(&self, denial: PermissionDenial) {
        lock(&self.0).push(denial);
    }

    /// The denials recorded so far, taken (the list starts empty again).
    pub(crate) fn take(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *lock(&self.0))
    }

    /// Reads the denials recorded so far, leaving them in place.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&[PermissionDenial]) -> R) -> R {
        f(&lock(&self.0))
    }
}
