//! Guards the loop consults after each model call, besides the limits:
//!
//! - [`RepeatGuard`], the runaway-loop guard: `limit` model calls in a row
//!   that make the same tool call(s) with the same input, or a cycle of up
//!   to three steps seen twice over `limit` calls, get a reminder appended
//!   to their results; the run ends (`error_repeated_tool_call`) when the
//!   last `2 × limit` calls are at most three different steps each made at
//!   least twice (`Edit` refused, `Read`, `Edit` refused, `Read`, …: a
//!   small model looped so until the turn limit, and past the reminders
//!   when the pattern shifted). A different call resets the count.
//! - [`StructuredGuard`], for `--json-schema`: a valid `StructuredOutput`
//!   call ends the run with its input; every invalid call and every answer
//!   that ends without one is a failed attempt (the latter gets a reminder
//!   and another model call); `max_attempts` failures end the run
//!   (`error_max_structured_output_retries`).

use std::collections::VecDeque;

use orbit_protocol::{Message, ToolUseBlock};
use serde_json::Value;

use crate::structured::StructuredOutput;

/// What the runaway-loop guard says after a model call's tool_uses.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum RepeatVerdict {
    Fine,
    /// Append a reminder to the results.
    Remind {
        tool_name: String,
        count: u32,
    },
    /// End the run.
    Stop {
        tool_name: String,
        count: u32,
    },
}

/// The longest cycle of steps the runaway guard recognises.
const MAX_CYCLE_STEPS: usize = 3;

/// One step: `(tool name, input)` of one message's calls (`Value`
/// equality ignores the order of object keys).
type Step = Vec<(String, Value)>;

/// Counts repeated model calls: the same tool calls, with the same inputs,
/// as the previous call (a batch of identical parallel calls in one
/// message is one step, not several), or the same cycle of up to
/// [`MAX_CYCLE_STEPS`] steps repeated. A reminder comes when a repetition
/// spans `limit` model calls; the run stops when the last `2 × limit`
/// model calls are at most [`MAX_CYCLE_STEPS`] different steps, each made
/// at least twice — a loop whose pattern shifts (`Read`, `Edit`, `Edit`,
/// `Read`, …) included, so a small model at ~10 s a call stops within
/// 120 s.
#[derive(Debug, Default)]
pub(super) struct RepeatGuard {
    /// 0 = off.
    limit: u32,
    /// The last steps, as many as a reminder or a stop can need.
    history: VecDeque<Step>,
    reminded: bool,
}

impl RepeatGuard {
    pub(super) fn new(limit: u32) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// Counts the calls of one assistant message.
    pub(super) fn observe<'a>(
        &mut self,
        calls: impl Iterator<Item = &'a ToolUseBlock>,
    ) -> RepeatVerdict {
        if self.limit == 0 {
            return RepeatVerdict::Fine;
        }
        let calls: Step = calls
            .map(|call| (call.name.clone(), call.input.clone()))
            .collect();
        if calls.is_empty() {
            return RepeatVerdict::Fine;
        }
        self.history.push_back(calls);
        let keep = MAX_CYCLE_STEPS.saturating_mul(self.limit.saturating_mul(2) as usize);
        while self.history.len() > keep {
            self.history.pop_front();
        }
        if let Some(stop) = self.looping() {
            return stop;
        }
        // The longest repetition wins; the shortest cycle a tie. A cycle
        // longer than one step counts once it is seen twice.
        let (period, count) = (1..=MAX_CYCLE_STEPS)
            .map(|period| (period, self.repetitions(period)))
            .filter(|(period, count)| *period == 1 || *count >= 2)
            .fold((1, 0), |best, next| {
                if next.0 * next.1 as usize > best.0 * best.1 as usize {
                    next
                } else {
                    best
                }
            });
        let span = u32::try_from(period)
            .unwrap_or(u32::MAX)
            .saturating_mul(count);
        if span < self.limit {
            self.reminded = false;
            return RepeatVerdict::Fine;
        }
        if self.reminded {
            return RepeatVerdict::Fine;
        }
        self.reminded = true;
        RepeatVerdict::Remind {
            tool_name: self.cycle_names(period),
            count,
        }
    }

    /// `Stop` when the last `2 × limit` steps are at most
    /// [`MAX_CYCLE_STEPS`] distinct steps, each made at least twice: the
    /// steps named in the order they first came, with the fewest times
    /// one of them was made.
    fn looping(&self) -> Option<RepeatVerdict> {
        let window = self.limit.saturating_mul(2) as usize;
        let len = self.history.len();
        if len < window {
            return None;
        }
        let mut distinct: Vec<(&Step, u32)> = Vec::new();
        for step in self.history.range(len - window..) {
            match distinct.iter().position(|(seen, _)| *seen == step) {
                Some(i) => distinct[i].1 += 1,
                None if distinct.len() == MAX_CYCLE_STEPS => return None,
                None => distinct.push((step, 1)),
            }
        }
        let count = distinct.iter().map(|(_, n)| *n).min().unwrap_or(0);
        (count >= 2).then(|| RepeatVerdict::Stop {
            tool_name: distinct
                .iter()
                .map(|(step, _)| step_names(step))
                .collect::<Vec<_>>()
                .join(" then "),
            count,
        })
    }

    /// How many times the last `period` steps repeat back to back at the
    /// end of the history (0 when they are not a cycle of that length).
    fn repetitions(&self, period: usize) -> u32 {
        let len = self.history.len();
        if len < period {
            return 0;
        }
        let cycle: Vec<&Step> = self.history.range(len - period..).collect();
        if period > 1 && cycle.iter().all(|step| *step == cycle[0]) {
            return 0;
        }
        let mut count = 1;
        while len >= (count as usize + 1) * period {
            let start = len - (count as usize + 1) * period;
            let block = self.history.range(start..start + period);
            if !block.zip(&cycle).all(|(a, b)| a == *b) {
                break;
            }
            count += 1;
        }
        count
    }

    /// The tool names of the last `period` steps: `Read`, `Read, Grep` for
    /// one step, `Edit then Read` for a cycle.
    fn cycle_names(&self, period: usize) -> String {
        let len = self.history.len();
        self.history
            .range(len.saturating_sub(period)..)
            .map(step_names)
            .collect::<Vec<_>>()
            .join(" then ")
    }
}

/// The tool names of one step, `Read` or `Read, Grep`.
fn step_names(step: &Step) -> String {
    let mut names: Vec<&str> = step.iter().map(|(name, _)| name.as_str()).collect();
    names.dedup();
    names.join(", ")
}

/// What the structured-output guard says after a model call.
#[derive(Debug, PartialEq)]
pub(super) enum StructuredVerdict {
    /// No structured output asked for, or nothing to decide yet.
    Continue,
    /// A valid output arrived: the run ends with it.
    Done(Value),
    /// The model answered without a valid output: remind it and call again.
    Remind,
    /// Too many failed attempts: the run ends with this many.
    GiveUp(u32),
}

/// Attempts at valid structured output in one run.
#[derive(Debug)]
pub(super) struct StructuredGuard {
    output: Option<StructuredOutput>,
    failed: u32,
}

impl StructuredGuard {
    pub(super) fn new(output: Option<StructuredOutput>) -> Self {
        if let Some(output) = &output {
            // A value left by an earlier run (ended by an interrupt) is stale.
            output.slot.take();
        }
        Self { output, failed: 0 }
    }

    /// After a model call whose tools ran and whose history is committed.
    /// `ended` = the message had no tool_use (the model's final answer).
    pub(super) fn after_call(&mut self, message: &Message, ended: bool) -> StructuredVerdict {
        let Some(output) = &self.output else {
            return StructuredVerdict::Continue;
        };
        if let Some(value) = output.slot.take() {
            return StructuredVerdict::Done(value);
        }
        let calls = message
            .tool_uses()
            .filter(|t| StructuredOutput::is_own_tool(&t.name))
            .count();
        let failed_now = if ended { 1 } else { calls };
        if failed_now == 0 {
            return StructuredVerdict::Continue;
        }
        self.failed = self
            .failed
            .saturating_add(u32::try_from(failed_now).unwrap_or(u32::MAX));
        if self.failed >= output.max_attempts {
            StructuredVerdict::GiveUp(output.max_attempts)
        } else if ended {
            StructuredVerdict::Remind
        } else {
            StructuredVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, input: Value) -> ToolUseBlock {
        ToolUseBlock {
            id: "toolu_1".into(),
            name: name.into(),
            input,
        }
    }

    #[test]
    fn repeat_guard_reminds_once_at_the_limit_and_stops_at_twice_it() {
        let mut guard = RepeatGuard::new(2);
        let read = call("Read", json!({"file_path": "a", "limit": 1}));
        let same = call("Read", json!({"limit": 1, "file_path": "a"}));
        let other = call("Read", json!({"file_path": "b"}));
        let remind = || RepeatVerdict::Remind {
            tool_name: "Read".into(),
            count: 2,
        };
        let steps = [
            (vec![&read], RepeatVerdict::Fine),
            (vec![&same], remind()),
            (vec![&read], RepeatVerdict::Fine),
            // A different call resets the count and the reminder; a batch
            // of calls is one step.
            (vec![&other, &read], RepeatVerdict::Fine),
            (vec![&read], RepeatVerdict::Fine),
            (vec![&read], remind()),
            (vec![&read], RepeatVerdict::Fine),
            (
                vec![&read],
                RepeatVerdict::Stop {
                    tool_name: "Read".into(),
                    count: 4,
                },
            ),
        ];
        let mut got = Vec::new();
        for (calls, _) in &steps {
            got.push(guard.observe(calls.iter().copied()));
        }
        let want: Vec<RepeatVerdict> = steps.into_iter().map(|(_, v)| v).collect();
        assert_eq!(got, want);
        let mut off = RepeatGuard::new(0);
        for _ in 0..5 {
            assert_eq!(off.observe([&read].into_iter()), RepeatVerdict::Fine);
        }
        // A cycle of two steps: reminded once seen twice over `limit`
        // calls, stopped when the last `2 × limit` calls are the pair.
        let edit = call(
            "Edit",
            json!({"file_path": "a", "old_string": "", "new_string": "x"}),
        );
        let observe_all = |limit: u32, steps: &[&ToolUseBlock]| {
            let mut guard = RepeatGuard::new(limit);
            steps
                .iter()
                .map(|step| guard.observe([*step].into_iter()))
                .collect::<Vec<_>>()
        };
        use RepeatVerdict::Fine;
        let stop = |name: &str, count| RepeatVerdict::Stop {
            tool_name: name.into(),
            count,
        };
        let remind = RepeatVerdict::Remind {
            tool_name: "Edit then Read".into(),
            count: 2,
        };
        assert_eq!(
            observe_all(3, &[&edit, &read, &edit, &read, &edit, &read]),
            [Fine, Fine, Fine, remind, Fine, stop("Edit then Read", 3)]
        );
        // A cycle of three steps, and a pair whose pattern shifts, stop
        // within `2 × limit` calls too.
        let bash = call("Bash", json!({"command": "pytest"}));
        let got = observe_all(3, &[&read, &bash, &edit, &read, &bash, &edit]);
        assert_eq!(got[5], stop("Read then Bash then Edit", 2));
        let got = observe_all(3, &[&read, &edit, &edit, &read, &edit, &read]);
        assert_eq!(got[5], stop("Read then Edit", 3));
        // Four different steps in the window are work, not a loop.
        let got = observe_all(3, &[&read, &bash, &edit, &other, &read, &bash, &edit]);
        assert!(
            got.iter().all(|v| !matches!(v, RepeatVerdict::Stop { .. })),
            "{got:?}"
        );
        // Twelve identical parallel calls in one message are one step.
        let mut batch = RepeatGuard::new(2);
        assert_eq!(batch.observe([&read; 12].into_iter()), RepeatVerdict::Fine);
    }
}
