//! [`Checkpoints`]: the contract between the engine, which knows where a
//! prompt's writing calls begin and end, and an embedder that snapshots
//! the working tree then (orbit's `orbit-checkpoint`). The engine calls
//! it (`orbit_engine`'s `checkpoint` module: when a prompt starts and
//! ends, and around each call whose facts say it can write); what a
//! snapshot is, the engine never decides. It lives here, below both, so
//! the checkpoint crate needs no engine.

use crate::CallFacts;

/// Told where a prompt's writing calls begin and end. Every method may
/// block; none may fail the call (a failing snapshot is the hook's to
/// report).
pub trait Checkpoints: Send + Sync + std::fmt::Debug {
    /// A prompt starts. Nothing is expected to happen yet (the snapshot is
    /// taken lazily, before the prompt's first writing call).
    fn prompt_started(&self);
    /// A call that can write is about to run; `call_id` is its tool_use id.
    fn before_write(&self, call_id: &str, facts: &CallFacts);
    /// The call `call_id` returned (whatever it did).
    fn after_write(&self, call_id: &str);
    /// The prompt's result was recorded.
    fn prompt_finished(&self);
}
