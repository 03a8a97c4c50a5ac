//! Compaction: replacing a history that outgrows the context window by a
//! summary of it, so a session keeps running.
//!
//! When: the query loop estimates every request before sending it
//! (`estimate`: the last response's usage plus the size of what was added
//! since) and compacts first when the estimate passes the threshold of the
//! model's window (`window`); it also compacts and retries once when the
//! API answers that the prompt is too long
//! (`ModelError::is_prompt_too_long`); and an embedder asks for it with
//! `QueryEngine::compact`.
//!
//! How (`Compactor::compact`): the request view of the history plus the
//! summary instructions (`orbit_tool::texts::compact`), shrunk so the
//! summary request itself fits the window less the summary's output
//! (`shrink`) → one model call (`summary`) → the new history
//! (`rebuild`): one user message holding the summary, and the pending
//! prompt verbatim when the history ended with one, else the last calls
//! and their results verbatim (cut in the middle to fit), so the step they
//! ask for survives a summary that forgot it. If the summary call fails or answers
//! without text, the fallback keeps the history and drops the oldest tool
//! results, then the oldest turns, instead. Either way the result is a
//! valid history (roles alternate, every tool_use answered) within budget,
//! and nothing waits on anything: no deadlock, no lost session. An
//! interrupt leaves the history as it was.
//!
//! The new history reaches the session through ONE method,
//! `Session::apply_compaction`, as a [`CompactionBoundary`] (what the
//! transcript records), and the loop reports an
//! `EngineEvent::CompactBoundary`.

mod estimate;
mod rebuild;
mod shrink;
mod summary;
mod window;

use std::sync::Arc;

use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::{CompactTrigger, Message, Usage};
use orbit_tool::texts::compact::{compact_instructions, compact_summary_message};

use estimate::BYTES_PER_TOKEN;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::config::EngineConfig;
use crate::orchestrator::ToolRuntime;
use crate::session::Session;

pub(crate) use estimate::{ContextAnchor, request_tokens};
pub(crate) use estimate::{fixed_tokens, messages_tokens};
use rebuild::{cut_middle, summary_history};
use shrink::shrink_to_fit;
use summary::{SummaryFailure, request_summary, summary_messages};
pub(crate) use window::Limits;
pub use window::context_window_tokens;

/// The most of the current request the summary request quotes and the
/// compacted history keeps (a longer one, such as a piped file, is cut in
/// the middle).
const KEPT_REQUEST_MAX_BYTES: usize = 4_000;

/// One compaction, as it is applied to the session and recorded in its
/// transcript: the history that replaces the old one, and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionBoundary {
    /// Why it happened; `Fallback` when no summary could be made and the
    /// oldest results and turns were dropped instead.
    pub trigger: CompactTrigger,
    /// Estimated tokens of the next request before compaction.
    pub pre_tokens: u64,
    /// Estimated tokens of the next request after compaction.
    pub post_tokens: u64,
    /// The model's summary (None for the fallback).
    pub summary: Option<String>,
    /// The new history: it replaces every message of the old one.
    pub messages: Vec<Message>,
}

/// Why `QueryEngine::compact` did nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// The history is empty.
    #[error("nothing to compact: the conversation is empty")]
    Empty,
    /// The abort handle fired during the summary request; the history is
    /// unchanged.
    #[error("compaction interrupted; the conversation is unchanged")]
    Interrupted,
}

/// A compaction ready to apply, and what its model call cost.
pub(crate) struct Compacted {
    pub(crate) boundary: CompactionBoundary,
    /// Usage of the summary call (every attempt).
    pub(crate) usage: Usage,
}

/// What compaction borrows from the engine.
pub(crate) struct Compactor<'a> {
    pub(crate) config: &'a EngineConfig,
    pub(crate) client: &'a dyn ModelClient,
    pub(crate) runtime: &'a ToolRuntime,
    pub(crate) cancel: &'a CancellationToken,
}

impl Compactor<'_> {
    /// The session's budgets.
    pub(crate) fn limits(&self) -> Limits {
        let compact = &self.config.compact;
        let window = compact
            .context_window
            .unwrap_or_else(|| context_window_tokens(&self.config.model));
        Limits::new(
            window,
            u64::from(self.config.max_tokens),
            compact.autocompact_pct,
        )
    }

    /// The request's estimated tokens, when it passes the automatic
    /// threshold (None: send it as it is).
    pub(crate) fn over_threshold(
        &self,
        request: &ModelRequest,
        anchor: Option<ContextAnchor>,
    ) -> Option<u64> {
        if self.config.compact.disable_auto || request.messages.is_empty() {
            return None;
        }
        let tokens = request_tokens(&request.system, &request.tools, &request.messages, anchor);
        (tokens > self.limits().threshold).then_some(tokens)
    }

    /// Compacts `view` (the history as the next request would send it):
    /// a summary, else the fallback. `current_request` is the prompt of
    /// the run that compacts in its middle (None between runs): the
    /// summary request quotes it and the new history keeps it verbatim.
    /// Counts the summary call's usage and cost in the session; does not
    /// apply the result. See the module docs.
    pub(crate) async fn compact(
        &self,
        session: &mut Session,
        trigger: CompactTrigger,
        instructions: Option<&str>,
        current_request: Option<&str>,
        view: &[Message],
    ) -> Result<Compacted, CompactError> {
        if view.is_empty() {
            return Err(CompactError::Empty);
        }
        // A blank prompt counts as none.
        let current_request = current_request
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|request| {
                let mut request = request.to_string();
                cut_middle(&mut request, KEPT_REQUEST_MAX_BYTES);
                request
            });
        let limits = self.limits();
        let system = &self.config.system_prompt;
        let tools = crate::query::tool_specs(&self.runtime.tools, session);
        let pre_tokens = request_tokens(system, &tools, view, session.context_anchor);
        let fixed = fixed_tokens(system, &tools);
        let messages = summary_messages(
            view,
            compact_instructions(instructions, current_request.as_deref()),
            fixed,
            limits.summary_input_budget(),
        );
        let request = ModelRequest {
            model: session
                .fallback_model
                .clone()
                .unwrap_or_else(|| self.config.model.clone()),
            system: system.clone(),
            messages: messages.into_iter().map(Arc::new).collect(),
            tools,
            max_tokens: u32::try_from(limits.summary_output).unwrap_or(u32::MAX),
            temperature: self.config.temperature,
            seed: self.config.seed,
            thinking_budget: None,
            one_tool_call: false,
        };
        let answer = request_summary(self.client, &request, self.cancel).await;
        let model = answer.model.as_deref().unwrap_or(&self.config.model);
        session.usage.add(&answer.billed_usage);
        session.total_cost_usd += orbit_model::pricing::cost_usd(model, &answer.billed_usage);
        let (trigger, summary, mut messages) = match answer.summary {
            Ok(summary) => {
                let messages = summary_history(
                    &summary,
                    view,
                    current_request.as_deref(),
                    tail_budget_bytes(&limits, fixed, &summary),
                );
                (trigger, Some(summary), messages)
            }
            Err(SummaryFailure::Interrupted) => return Err(CompactError::Interrupted),
            Err(SummaryFailure::Failed(why)) => {
                tracing::warn!(
                    %why,
                    "no compaction summary; dropping the oldest tool results and turns instead"
                );
                (CompactTrigger::Fallback, None, view.to_vec())
            }
        };
        let shrunk = shrink_to_fit(&mut messages, fixed, limits.fallback_target());
        let post_tokens = fixed + messages_tokens(&messages);
        tracing::info!(
            ?trigger,
            pre_tokens,
            post_tokens,
            threshold = limits.threshold,
            window = limits.window,
            ?shrunk,
            "compacted the conversation"
        );
        Ok(Compacted {
            boundary: CompactionBoundary {
                trigger,
                pre_tokens,
                post_tokens,
                summary,
                messages,
            },
            usage: answer.billed_usage,
        })
    }
}

/// Room for the calls and results kept after a summary (`rebuild`): what
/// the compacted history may take (`Limits::fallback_target`) less the
/// system prompt, the tools and the summary's message.
fn tail_budget_bytes(limits: &Limits, fixed_tokens: u64, summary: &str) -> u64 {
    let summary_tokens = (compact_summary_message(summary).len() as u64).div_ceil(BYTES_PER_TOKEN);
    limits
        .fallback_target()
        .saturating_sub(fixed_tokens)
        .saturating_sub(summary_tokens)
        .saturating_mul(BYTES_PER_TOKEN)
}
