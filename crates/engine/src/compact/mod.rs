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
//! How (`Compactor::compact`): the request that was, or would have been,
//! sent (built by the loop's one request builder, `crate::request`) with
//! the summary instructions (`orbit_tool::texts::compact`), shrunk so the
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
//! The compactor knows no session: it returns a [`Compacted`] (what the
//! summary call was billed, and the boundary or why there is none). ONE
//! path applies it, for the loop and for `QueryEngine::compact` alike
//! (`query::compaction`): the bill goes to `Session::add_billed`, the new
//! history to `Session::apply_compaction` as a [`CompactionBoundary`] (what
//! the transcript records), and the loop reports an
//! `EngineEvent::CompactBoundary`.

mod estimate;
mod rebuild;
mod shrink;
mod summary;
mod window;

use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::{CompactTrigger, Message, Usage};
use orbit_tool::texts::compact::{compact_instructions, compact_summary_message};

use estimate::BYTES_PER_TOKEN;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::config::EngineConfig;

pub(crate) use estimate::{ContextAnchor, request_tokens};
pub(crate) use estimate::{fixed_tokens, messages_tokens};
use rebuild::{cut_middle, summary_history};
use shrink::shrink_to_fit;
use summary::{SummaryFailure, request_summary, summary_messages, summary_request};
pub use window::context_window_tokens;
pub(crate) use window::{Limits, window_tokens};

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

/// What one compaction produced: its bill, and the boundary to apply.
pub(crate) struct Compacted {
    /// Usage of the summary call (every attempt; none when nothing was
    /// asked), counted whatever the outcome.
    pub(crate) usage: Usage,
    /// The model that answered, when its stream named it.
    pub(crate) model: Option<String>,
    /// The compaction ready to apply, or why there is none.
    pub(crate) boundary: Result<CompactionBoundary, CompactError>,
}

/// What compaction borrows from the engine.
pub(crate) struct Compactor<'a> {
    pub(crate) config: &'a EngineConfig,
    pub(crate) client: &'a dyn ModelClient,
    pub(crate) cancel: &'a CancellationToken,
}

impl Compactor<'_> {
    /// The session's budgets (the configured model's window).
    pub(crate) fn limits(&self) -> Limits {
        Limits::for_model(self.config, &self.config.model)
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

    /// Compacts `turn`'s history (`turn`: the request that was, or would
    /// have been, sent; `anchor`: the session's usage anchor): a summary,
    /// else the fallback. `current_request` is the prompt of the run that
    /// compacts in its middle (None between runs): the summary request
    /// quotes it and the new history keeps it verbatim. Applies nothing and
    /// counts nothing: the caller does both (see the module docs).
    pub(crate) async fn compact(
        &self,
        turn: &ModelRequest,
        anchor: Option<ContextAnchor>,
        trigger: CompactTrigger,
        instructions: Option<&str>,
        current_request: Option<&str>,
    ) -> Compacted {
        let compacted = |boundary| Compacted {
            usage: Usage::default(),
            model: None,
            boundary,
        };
        if turn.messages.is_empty() {
            return compacted(Err(CompactError::Empty));
        }
        // Compaction rewrites the messages; it runs rarely, so this copy
        // is not per request.
        let view: Vec<Message> = turn.messages.iter().map(|m| Message::clone(m)).collect();
        let view = view.as_slice();
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
        let pre_tokens = request_tokens(&turn.system, &turn.tools, view, anchor);
        let fixed = fixed_tokens(&turn.system, &turn.tools);
        let messages = summary_messages(
            view,
            compact_instructions(instructions, current_request.as_deref()),
            fixed,
            limits.summary_input_budget(),
        );
        let request = summary_request(turn, messages, limits.summary_output);
        let answer = request_summary(self.client, &request, self.cancel).await;
        let billed = |boundary| Compacted {
            usage: answer.billed_usage,
            model: answer.model.clone(),
            boundary,
        };
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
            Err(SummaryFailure::Interrupted) => return billed(Err(CompactError::Interrupted)),
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
        billed(Ok(CompactionBoundary {
            trigger,
            pre_tokens,
            post_tokens,
            summary,
            messages,
        }))
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
