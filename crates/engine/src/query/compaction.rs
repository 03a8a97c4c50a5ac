//! The one compact-and-apply path, shared by the loop (automatic: before a
//! request that passes the threshold, and after a prompt-too-long answer)
//! and by `QueryEngine::compact` (by hand).
//!
//! Data flow: the request that was, or would have been, sent (the one
//! request builder, `crate::request`) → PreCompact hooks → the compactor
//! (`crate::compact`: summary or fallback) → its bill to
//! `Session::add_billed` → the boundary reported
//! (`EngineEvent::CompactBoundary`, when a run is listening) and applied
//! (`Session::apply_compaction`) → SessionStart hooks (`compact`), whose
//! context joins the history as a user message.

use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::{CompactTrigger, EngineEvent, Message, Usage};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::outcome::Outcome;
use super::{QueryLoop, QueryParts, append_user, hook_calls};
use crate::compact::{CompactError, CompactionBoundary, Compactor};
use crate::config::EngineConfig;
use crate::request::next_request;
use crate::runtime::ToolRuntime;
use crate::session::Session;

/// Who asks for a compaction, and with what.
struct Ask<'a> {
    trigger: CompactTrigger,
    /// `/compact [instructions]`'s text.
    instructions: Option<&'a str>,
    /// The prompt of the run that compacts in its middle.
    current_request: Option<&'a str>,
}

/// What a compaction borrows.
struct Compaction<'a, 's> {
    config: &'a EngineConfig,
    client: &'a dyn ModelClient,
    runtime: &'a ToolRuntime,
    session: &'s mut Session,
    cancel: &'a CancellationToken,
    /// A run's event channel (None: compaction by hand, between runs).
    events: Option<&'a UnboundedSender<EngineEvent>>,
}

impl Compaction<'_, '_> {
    /// Compacts `turn`'s history and applies it; returns the boundary and
    /// the summary call's usage. An `Err` changed nothing but the bill.
    async fn apply(
        self,
        turn: &ModelRequest,
        ask: Ask<'_>,
    ) -> Result<(CompactionBoundary, Usage), CompactError> {
        let Self {
            config,
            client,
            runtime,
            session,
            cancel,
            events,
        } = self;
        hook_calls::pre_compact(runtime, ask.trigger, ask.instructions).await;
        let compactor = Compactor {
            config,
            client,
            cancel,
        };
        let compacted = compactor
            .compact(
                turn,
                session.context_anchor,
                ask.trigger,
                ask.instructions,
                ask.current_request,
            )
            .await;
        session.add_billed(compacted.model.as_deref(), &turn.model, &compacted.usage);
        let boundary = compacted.boundary?;
        if let Some(tx) = events {
            // The receiver is gone only when the embedder dropped the run.
            let _ = tx.send(EngineEvent::CompactBoundary {
                trigger: boundary.trigger,
                pre_tokens: boundary.pre_tokens,
                post_tokens: boundary.post_tokens,
            });
        }
        session.apply_compaction(boundary.clone());
        let summary = boundary.summary.as_deref().unwrap_or_default();
        hook_calls::post_compact(runtime, boundary.trigger, summary).await;
        if let Some(context) = hook_calls::after_compact(runtime).await {
            append_user(session, events, Message::user_text(context));
        }
        Ok((boundary, compacted.usage))
    }
}

/// `QueryEngine::compact`: compacts the history now and applies it.
pub(crate) async fn compact_now(
    parts: QueryParts<'_>,
    instructions: Option<&str>,
    cancel: &CancellationToken,
) -> Result<CompactionBoundary, CompactError> {
    let QueryParts {
        config,
        client,
        runtime,
        session,
        ..
    } = parts;
    let turn = next_request(config, runtime, session).await;
    let compaction = Compaction {
        config,
        client,
        runtime,
        session: &mut *session,
        cancel,
        events: None,
    };
    let ask = Ask {
        trigger: CompactTrigger::Manual,
        instructions,
        current_request: None,
    };
    let (boundary, _) = compaction.apply(&turn, ask).await?;
    session.sync_transcript().await;
    Ok(boundary)
}

impl QueryLoop<'_> {
    /// Compacts the history of `turn` (the request that was, or would have
    /// been, sent) in the middle of this run, applies it and reports the
    /// boundary. Err: how the run ends (an interrupt; the history is then
    /// unchanged).
    pub(super) async fn compact(&mut self, turn: &ModelRequest) -> Result<(), Outcome> {
        let compaction = Compaction {
            config: self.config,
            client: self.client,
            runtime: self.runtime,
            session: &mut *self.session,
            cancel: &self.cancel,
            events: Some(&self.tx),
        };
        let ask = Ask {
            trigger: CompactTrigger::Auto,
            instructions: None,
            current_request: Some(&self.request),
        };
        match compaction.apply(turn, ask).await {
            Ok((_, usage)) => {
                self.usage.add(&usage);
                Ok(())
            }
            Err(CompactError::Interrupted) => Err(Outcome::Interrupted),
            // Nothing to compact: send the request as it is.
            Err(CompactError::Empty) => Ok(()),
        }
    }

    /// Whether `request` passes the automatic threshold: its estimated
    /// tokens, when it does.
    pub(super) fn over_threshold(&self, request: &ModelRequest) -> Option<u64> {
        let compactor = Compactor {
            config: self.config,
            client: self.client,
            cancel: &self.cancel,
        };
        compactor.over_threshold(request, self.session.context_anchor)
    }
}
