//! The checkpoint hook: how an embedder (orbit's `orbit-checkpoint`) is told
//! where a prompt's writing calls begin, so it can snapshot the working
//! tree before the first one. The engine never decides what a snapshot is.
//!
//! Data flow: `query::run_query` calls [`Checkpoints::prompt_started`] when a
//! prompt starts and [`Checkpoints::prompt_finished`] after its result is
//! recorded; the orchestrator calls [`Checkpoints::before_write`] right
//! before a call whose facts say it can write (`!read_only`; never by tool
//! name), after the permission gate allowed it, and
//! [`Checkpoints::after_write`] once it returned. The before/after calls run
//! on a blocking thread ([`before_write`], [`after_write`] here), since a
//! snapshot runs processes and reads files.

use std::sync::Arc;

use orbit_tool::CallFacts;

// The hook's contract lives in `orbit-tool`, below the engine and the
// crate that implements it (`orbit-checkpoint`, which the tools use too).
pub use orbit_tool::Checkpoints;

/// [`Checkpoints::before_write`] on a blocking thread, awaited.
pub(crate) async fn before_write(hook: Option<&Arc<dyn Checkpoints>>, id: &str, facts: &CallFacts) {
    let Some(hook) = hook.filter(|_| !facts.read_only) else {
        return;
    };
    let (hook, id, facts) = (Arc::clone(hook), id.to_string(), facts.clone());
    let _ = tokio::task::spawn_blocking(move || hook.before_write(&id, &facts)).await;
}

/// [`Checkpoints::after_write`] on a blocking thread, awaited.
pub(crate) async fn after_write(hook: Option<&Arc<dyn Checkpoints>>, id: &str, facts: &CallFacts) {
    let Some(hook) = hook.filter(|_| !facts.read_only) else {
        return;
    };
    let (hook, id) = (Arc::clone(hook), id.to_string());
    let _ = tokio::task::spawn_blocking(move || hook.after_write(&id)).await;
}

/// [`Checkpoints::prompt_finished`] on a blocking thread, awaited.
pub(crate) async fn prompt_finished(hook: Option<&Arc<dyn Checkpoints>>) {
    if let Some(hook) = hook {
        let hook = Arc::clone(hook);
        let _ = tokio::task::spawn_blocking(move || hook.prompt_finished()).await;
    }
}
