//! [`lock`]: the engine's one way to take a `std::sync::Mutex`. Every
//! mutex here guards plain data (a list, a slot, a channel) that a panic
//! elsewhere cannot leave half-written, so a poisoned lock is taken over
//! as it is rather than passing the panic on.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering the guard when a panicking holder poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
