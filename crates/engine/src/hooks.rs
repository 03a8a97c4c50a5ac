//! The engine's side of hooks (`orbit-hooks`): [`HookPoints`] is the one
//! handle the orchestrator and the query loop consult at each hook point.
//! It adds the fields every hook input carries (`session_id`,
//! `transcript_path`, `cwd`, `permission_mode`), runs the hooks, sends a
//! `HookResponse` event per run to the turn that is running, and keeps a
//! `continue: false` for the loop. What a verdict does is decided where
//! it is consulted: tool calls in `orchestrator`, prompts, stops and
//! compactions in `query`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use orbit_hooks::{HookEvent, HookVerdict, Hooks};
use orbit_protocol::{EngineEvent, HookRunOutcome};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::lock::lock;

/// The hooks of a session and where their reports go (the default: none).
#[derive(Debug, Default)]
pub(crate) struct HookPoints {
    hooks: Option<Arc<Hooks>>,
    /// `session_id`, `transcript_path`, `cwd`, `permission_mode`.
    base: Map<String, Value>,
    /// The running turn's event channel (None between turns).
    sink: Mutex<Option<UnboundedSender<EngineEvent>>>,
    /// A hook answered `continue: false`: the reason.
    stop: Mutex<Option<String>>,
}

impl HookPoints {
    /// The hook points of a session: `hooks` (None: no hooks) and the
    /// fields every hook input carries.
    pub(crate) fn new(
        hooks: Option<Arc<Hooks>>,
        session_id: &str,
        transcript_path: PathBuf,
        cwd: &std::path::Path,
        permission_mode: &str,
    ) -> Self {
        let base = json!({
            "session_id": session_id,
            "transcript_path": transcript_path,
            "cwd": cwd,
            "permission_mode": permission_mode,
        });
        Self {
            hooks: hooks.filter(|h| !h.set().is_empty()),
            base: match base {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            ..Self::default()
        }
    }

    /// Whether hooks are configured for `event` (nothing to build otherwise).
    pub(crate) fn active(&self, event: HookEvent) -> bool {
        self.hooks.as_ref().is_some_and(|h| h.has(event))
    }

    /// Reports go to `tx` until [`Self::end_turn`].
    pub(crate) fn begin_turn(&self, tx: UnboundedSender<EngineEvent>) {
        *lock(&self.sink) = Some(tx);
    }

    pub(crate) fn end_turn(&self) {
        *lock(&self.sink) = None;
    }

    /// Takes a pending `continue: false`.
    pub(crate) fn take_stop(&self) -> Option<String> {
        lock(&self.stop).take()
    }

    /// Runs the hooks of `event` for `subject` with `fields` plus the base
    /// fields. An empty verdict when none is configured.
    pub(crate) async fn run(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        fields: Value,
    ) -> HookVerdict {
        let Some(hooks) = self.hooks.as_ref().filter(|h| h.has(event)) else {
            return HookVerdict::default();
        };
        let mut input = self.base.clone();
        if let Value::Object(fields) = fields {
            input.extend(fields);
        }
        let verdict = hooks.run(event, subject, Value::Object(input)).await;
        if let Some(reason) = &verdict.stop {
            lock(&self.stop).get_or_insert_with(|| reason.clone());
        }
        self.report(&verdict);
        verdict
    }

    /// One line per failed run and per `systemMessage` for the user (the
    /// CLI prints warnings as `orbit: warning: …`), and the reports.
    fn report(&self, verdict: &HookVerdict) {
        for message in &verdict.system_messages {
            tracing::warn!("hook: {message}");
        }
        let sink = lock(&self.sink);
        for report in &verdict.reports {
            if report.outcome != HookRunOutcome::Success {
                tracing::warn!(
                    "{} hook `{}` {}",
                    report.hook_name,
                    report.command,
                    report.output
                );
            }
            if let Some(tx) = sink.as_ref() {
                let _ = tx.send(EngineEvent::HookResponse(report.clone()));
            }
        }
    }
}
