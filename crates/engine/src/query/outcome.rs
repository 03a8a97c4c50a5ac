//! How a run ends: the one typed [`Outcome`] the loop returns, and the
//! [`TerminalResult`] built from it (subtype, error lines, accounting).

use std::time::Duration;

use orbit_model::ModelError;
use orbit_protocol::{ResultSubtype, TerminalResult};
use orbit_tool::texts::engine::{
    INTERRUPT_MESSAGE, max_budget_error, max_turns_error, repeated_tool_call_error,
    structured_output_retries_error,
};

use super::QueryLoop;

/// How a run ends. A model error keeps its type until the result is written.
pub(super) enum Outcome {
    Success,
    MaxTurns(u32),
    MaxBudget(f64),
    /// `--json-schema`: this many attempts failed.
    MaxStructuredOutputRetries(u32),
    /// Headless, the permission gate refused the same call twice: the
    /// error names the rule, flag or mode that would allow it.
    DeniedTwice(String),
    /// The runaway-loop guard stopped the run.
    RepeatedToolCall {
        tool_name: String,
        count: u32,
    },
    ModelError(ModelError),
    Interrupted,
    /// A UserPromptSubmit hook blocked the prompt (its reason); no model
    /// call was made and the prompt is not in the history.
    PromptBlocked(String),
    /// A hook answered `continue: false` (its `stopReason`).
    HookStopped(String),
}

impl QueryLoop<'_> {
    pub(super) fn terminal_result(&self, end: Outcome) -> TerminalResult {
        let (subtype, errors, interrupted) = match end {
            Outcome::Success => (ResultSubtype::Success, Vec::new(), false),
            Outcome::MaxTurns(max) => (
                ResultSubtype::ErrorMaxTurns,
                vec![max_turns_error(max)],
                false,
            ),
            Outcome::MaxBudget(max) => (
                ResultSubtype::ErrorMaxBudgetUsd,
                vec![max_budget_error(max)],
                false,
            ),
            Outcome::MaxStructuredOutputRetries(attempts) => (
                ResultSubtype::ErrorMaxStructuredOutputRetries,
                vec![structured_output_retries_error(attempts)],
                false,
            ),
            Outcome::RepeatedToolCall { tool_name, count } => (
                ResultSubtype::ErrorRepeatedToolCall,
                vec![repeated_tool_call_error(&tool_name, count)],
                false,
            ),
            Outcome::DeniedTwice(error) => {
                (ResultSubtype::ErrorDuringExecution, vec![error], false)
            }
            Outcome::ModelError(error) => (
                ResultSubtype::ErrorDuringExecution,
                vec![error.to_string()],
                false,
            ),
            Outcome::Interrupted => (
                ResultSubtype::ErrorDuringExecution,
                vec![INTERRUPT_MESSAGE.to_string()],
                true,
            ),
            Outcome::PromptBlocked(reason) => (
                ResultSubtype::ErrorDuringExecution,
                vec![format!(
                    "A UserPromptSubmit hook blocked the prompt: {reason}"
                )],
                false,
            ),
            Outcome::HookStopped(reason) => (
                ResultSubtype::ErrorDuringExecution,
                vec![format!("A hook stopped the session: {reason}")],
                false,
            ),
        };
        let success = subtype == ResultSubtype::Success;
        TerminalResult {
            subtype,
            num_turns: self.num_turns,
            duration_ms: millis(self.started.elapsed()),
            duration_api_ms: millis(self.api_time),
            total_cost_usd: self.session.total_cost_usd(),
            usage: self.usage,
            result: if success {
                self.answer.clone()
            } else {
                String::new()
            },
            stop_reason: self.stop_reason.clone(),
            permission_denials: self.denials.clone(),
            errors,
            interrupted,
            structured_output: if success {
                self.structured_output.clone()
            } else {
                None
            },
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
