//! `orbit task summary DIR [--json]`: every `task-N.json` of an output
//! directory folded into solved and failed counts, the total cost and the
//! p50/p95 of the tasks' wall time (nearest-rank percentiles). Files that
//! are not result files (transcript copies, temporary files) are skipped;
//! a result file that does not parse counts as unreadable, by name.

use std::path::Path;

use anyhow::Context;
use serde_json::json;

use crate::term_safe::println_safe;

/// The figures of one output directory.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Summary {
    /// Result files read.
    pub tasks: usize,
    /// Tasks with `status: solved`.
    pub solved: usize,
    /// The others.
    pub failed: usize,
    /// Result files that did not parse.
    pub unreadable: Vec<String>,
    /// Sum of `cost_usd`.
    pub cost_usd: f64,
    /// Median wall time of a task, in milliseconds.
    pub p50_ms: u64,
    /// 95th percentile wall time, in milliseconds.
    pub p95_ms: u64,
    /// Tasks that resumed an earlier attempt.
    pub resumed: usize,
}

/// Reads `dir`'s result files.
pub(crate) fn summarise(dir: &Path) -> anyhow::Result<Summary> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut summary = Summary::default();
    let mut times = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_result_name(&name) {
            continue;
        }
        summary.tasks += 1;
        let parsed = super::run::read_result(&entry.path());
        let Some(result) = parsed else {
            summary.unreadable.push(name);
            continue;
        };
        if result["status"] == "solved" {
            summary.solved += 1;
        } else {
            summary.failed += 1;
        }
        summary.resumed += usize::from(result["resumed"] == true);
        summary.cost_usd += result["cost_usd"].as_f64().unwrap_or(0.0);
        times.push(result["duration_ms"].as_u64().unwrap_or(0));
    }
    times.sort_unstable();
    summary.p50_ms = percentile(&times, 50);
    summary.p95_ms = percentile(&times, 95);
    Ok(summary)
}

/// `task-<digits>.json`.
fn is_result_name(name: &str) -> bool {
    name.strip_prefix("task-")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Nearest-rank percentile of sorted values (0 when there are none).
fn percentile(sorted: &[u64], pct: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (pct * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

/// Prints the summary of `dir`, as text or one JSON object.
pub(super) fn print(dir: &Path, as_json: bool) -> anyhow::Result<()> {
    let s = summarise(dir)?;
    if as_json {
        let value = json!({
            "tasks": s.tasks,
            "solved": s.solved,
            "failed": s.failed,
            "unreadable": s.unreadable,
            "resumed": s.resumed,
            "cost_usd": s.cost_usd,
            "p50_ms": s.p50_ms,
            "p95_ms": s.p95_ms,
        });
        println_safe!("{value}");
        return Ok(());
    }
    println_safe!(
        "{} tasks: {} solved, {} failed{}",
        s.tasks,
        s.solved,
        s.failed,
        if s.unreadable.is_empty() {
            String::new()
        } else {
            format!(
                ", {} unreadable ({})",
                s.unreadable.len(),
                s.unreadable.join(", ")
            )
        }
    );
    println_safe!("cost: ${:.4}", s.cost_usd);
    println_safe!(
        "time per task: p50 {:.1} s, p95 {:.1} s",
        s.p50_ms as f64 / 1000.0,
        s.p95_ms as f64 / 1000.0
    );
    if s.resumed > 0 {
        println_safe!("resumed after a failed attempt: {}", s.resumed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), 10);
        assert_eq!(percentile(&v, 95), 19);
        assert_eq!(percentile(&[7], 95), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn only_result_files_count() {
        assert!(is_result_name("task-12.json"));
        assert!(!is_result_name("task-12.transcript.jsonl"));
        assert!(!is_result_name(".task-1.json.tmp"));
        assert!(!is_result_name("task-.json"));
    }
}
