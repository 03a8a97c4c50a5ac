//! R2: the per-message aggregate budget over tool_results, with every
//! decision frozen in [`ContentReplacementState`] so the prompt cache prefix
//! never changes (Claude Code's `enforceToolResultBudget`).
//!
//! Flow, before each model request, over the full (unmodified) history:
//! for each user message → re-apply frozen replacements → sum the chars of
//! all its tool_results as they will be sent → while over budget, pick the
//! largest *fresh* result (id never sent before, of a tool whose results may
//! be persisted) and plan its replacement →
//! persist the picks (concurrently) → record each successful replacement →
//! mark every tool_result id of the view as seen → return the view.
//!
//! Frozen means: an id in `seen_ids` without a replacement was sent whole and
//! is sent whole forever; an id in `replacements` is always sent with that
//! exact string, never recomputed. Only fresh results are ever candidates, so
//! the bytes of every earlier message are identical from request to request.
//! Results that are already `<persisted-output>` (R1) or contain an image
//! count as they are but are never replaced. A result whose persistence fails
//! is sent whole and frozen whole (a later retry would change sent bytes).

use std::collections::{BTreeMap, BTreeSet};

use orbit_protocol::{ContentBlock, Message, Role, ToolResultBlock, ToolResultContent};
use serde::{Deserialize, Serialize};

use super::persist::{is_persisted_output, persisted_output_message};
use super::storage::ToolResultStorage;

/// Default per-message budget: the tool_results of one user message may
/// total 200,000 chars (~50k tokens) before the largest are persisted —
/// Claude Code's `MAX_TOOL_RESULTS_PER_MESSAGE_CHARS`.
pub const DEFAULT_PER_MESSAGE_BUDGET_CHARS: usize = 200_000;

/// Frozen budget decisions of a session. Serializable so a resumed session
/// sends the same bytes (the session store persists it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContentReplacementState {
    /// Every tool_use id whose result has been part of a request.
    pub seen_ids: BTreeSet<String>,
    /// tool_use id → the exact replacement text that is always sent for it.
    pub replacements: BTreeMap<String, String>,
}

/// A planned replacement of one fresh result.
struct Planned {
    message: usize,
    block: usize,
    tool_use_id: String,
    text: String,
    replacement: String,
}

/// Which results the budget must leave alone: true for a tool_use id whose
/// tool never has its results persisted (its fact
/// `max_result_size_chars() == usize::MAX`, e.g. Read: persisting a file
/// only for the model to Read the copy again would loop). The seed's
/// `skipToolNames`, decided by the tool's fact instead of a name list.
pub(crate) type SkipResult<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// R2: returns the view of `messages` to send; decisions are frozen in
/// `state`. `messages` is the engine's full history (results as produced by
/// the R1–R4 pipeline); it is not modified. Results for which `skip` holds
/// count towards the total but are never replaced.
pub async fn enforce_tool_result_budget(
    messages: &[Message],
    state: &mut ContentReplacementState,
    budget_chars: usize,
    storage: &ToolResultStorage,
    skip: SkipResult<'_>,
) -> Vec<Message> {
    let mut view = messages.to_vec();
    let mut planned = Vec::new();
    for (mi, message) in view.iter_mut().enumerate() {
        if message.role == Role::User {
            plan_message(
                mi,
                message,
                state,
                budget_chars,
                storage,
                skip,
                &mut planned,
            );
        }
    }

    let writes = planned
        .iter()
        .map(|p| storage.write(&p.tool_use_id, &p.text));
    let outcomes = futures::future::join_all(writes).await;
    for (p, outcome) in planned.into_iter().zip(outcomes) {
        match outcome {
            Ok(_) => {
                if let Some(tr) = tool_result_mut(&mut view, p.message, p.block) {
                    tr.content = ToolResultContent::Text(p.replacement.clone());
                }
                state.replacements.insert(p.tool_use_id, p.replacement);
            }
            Err(err) => tracing::warn!(
                tool_use_id = %p.tool_use_id,
                error = %err,
                "could not persist tool result over the message budget; sending it whole"
            ),
        }
    }

    for message in &view {
        for tr in message.tool_results() {
            state.seen_ids.insert(tr.tool_use_id.clone());
        }
    }
    view
}

/// Re-applies frozen replacements in one user message and, if it is over
/// budget, plans replacements of its largest fresh results.
fn plan_message(
    mi: usize,
    message: &mut Message,
    state: &ContentReplacementState,
    budget_chars: usize,
    storage: &ToolResultStorage,
    skip: SkipResult<'_>,
    planned: &mut Vec<Planned>,
) {
    let mut total = 0usize;
    // (block index, size in chars) of fresh, replaceable results.
    let mut fresh: Vec<(usize, usize)> = Vec::new();
    for (bi, block) in message.content.iter_mut().enumerate() {
        let ContentBlock::ToolResult(tr) = block else {
            continue;
        };
        if let Some(replacement) = state.replacements.get(&tr.tool_use_id) {
            tr.content = ToolResultContent::Text(replacement.clone());
        }
        let size = tr.content.text_len_chars();
        total += size;
        if !state.seen_ids.contains(&tr.tool_use_id) && is_replaceable(tr) && !skip(&tr.tool_use_id)
        {
            fresh.push((bi, size));
        }
    }
    if total <= budget_chars {
        return;
    }
    // Largest first; the stable sort keeps message order among equals.
    fresh.sort_by_key(|&(_, size)| std::cmp::Reverse(size));
    for (bi, size) in fresh {
        if total <= budget_chars {
            break;
        }
        let ContentBlock::ToolResult(tr) = &message.content[bi] else {
            continue;
        };
        let text = tr.content.as_text();
        let replacement = persisted_output_message(&text, &storage.path_for(&tr.tool_use_id));
        let replacement_chars = replacement.chars().count();
        if replacement_chars >= size {
            continue; // replacing would not shrink the message
        }
        total = total - size + replacement_chars;
        planned.push(Planned {
            message: mi,
            block: bi,
            tool_use_id: tr.tool_use_id.clone(),
            text,
            replacement,
        });
    }
}

fn is_replaceable(tr: &ToolResultBlock) -> bool {
    !tr.content.has_image() && !is_persisted_output(&tr.content)
}

fn tool_result_mut(view: &mut [Message], mi: usize, bi: usize) -> Option<&mut ToolResultBlock> {
    match view.get_mut(mi)?.content.get_mut(bi)? {
        ContentBlock::ToolResult(tr) => Some(tr),
        _ => None,
    }
}
