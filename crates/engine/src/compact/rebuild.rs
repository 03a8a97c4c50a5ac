//! The history that replaces a summarized one.
//!
//! It opens with one user message holding the summary
//! (`compact_summary_message`). What follows depends on where the old
//! history stopped:
//! - at a pending prompt (a user message without tool results): the prompt,
//!   verbatim, joins the summary's message, so the next request answers it;
//! - in the middle of the work (the last message holds tool results): the
//!   run's request joins the summary's message, verbatim, and the last
//!   assistant message (its calls) and the results, verbatim, follow. The
//!   model sees what it was asked, what it just did and what came back, so
//!   the request and the step the results ask for (the error to fix, the
//!   file named next) survive even a summary that forgot them — a small
//!   model's summary often does (a 1.5B model once summarized a worked
//!   example of its system prompt as the task). The request counts against
//!   `tail_budget_bytes` first; results too large for the rest are cut in
//!   the middle (their first and last lines stay, with a marker); if even
//!   that does not fit, only the summary and the request remain.
//!
//! Roles alternate (summary: user, calls: assistant, results: user) and
//! every kept tool_use keeps its result, so the history is valid for the API.

use orbit_protocol::{ContentBlock, Message, Role, ToolResultContent};
use orbit_tool::texts::compact::{compact_summary_message, cut_text_marker};

use super::estimate::message_bytes;
use super::shrink::{MIN_CUT_BYTES, block_text_mut, largest_block};

/// The history after `summary` of `view`; `current_request` (the prompt
/// of the run compacting in its middle, not blank, already cut to size) and the kept
/// calls and results take at most `tail_budget_bytes` (as
/// `message_bytes` counts). See the module docs.
pub(crate) fn summary_history(
    summary: &str,
    view: &[Message],
    current_request: Option<&str>,
    tail_budget_bytes: u64,
) -> Vec<Message> {
    let mut content = vec![ContentBlock::text(compact_summary_message(summary))];
    let Some(last) = view.last() else {
        return vec![Message::user(content)];
    };
    if last.role == Role::User && last.tool_results().next().is_none() {
        content.extend(last.content.iter().cloned());
        return vec![Message::user(content)];
    }
    let mut budget = tail_budget_bytes;
    if let Some(request) = current_request {
        content.push(ContentBlock::text(request));
        budget = budget.saturating_sub(request.len() as u64);
    }
    let mut history = vec![Message::user(content)];
    if let Some(tail) = last_exchange(view, budget) {
        history.extend(tail);
    }
    history
}

/// The last assistant message and the tool results after it, cut to fit
/// `budget_bytes`; None when the view does not end that way or cannot fit.
fn last_exchange(view: &[Message], budget_bytes: u64) -> Option<[Message; 2]> {
    let [.., calls, results] = view else {
        return None;
    };
    if calls.role != Role::Assistant
        || calls.tool_uses().next().is_none()
        || results.role != Role::User
        || results.tool_results().next().is_none()
    {
        return None;
    }
    let mut tail = [calls.clone(), results.clone()];
    // Results with blocks become their text, so they can be cut too.
    for block in &mut tail[1].content {
        if let ContentBlock::ToolResult(result) = block
            && let ToolResultContent::Blocks(_) = result.content
        {
            result.content = ToolResultContent::Text(result.content.as_text());
        }
    }
    let mut total: u64 = tail.iter().map(message_bytes).sum();
    while total > budget_bytes {
        let excess = usize::try_from(total - budget_bytes).unwrap_or(usize::MAX);
        let (message, block, len) = largest_block(&mut tail)?;
        if len <= MIN_CUT_BYTES {
            return None;
        }
        // The marker's own length is paid for from the kept part.
        let keep = len
            .saturating_sub(excess)
            .saturating_sub(cut_text_marker(len).len() + 1)
            .max(MIN_CUT_BYTES);
        let text = block_text_mut(&mut tail[message].content[block])?;
        let before = text.len();
        cut_middle(text, keep);
        total = total.saturating_sub(before as u64) + text.len() as u64;
        if text.len() >= before {
            return None;
        }
    }
    Some(tail)
}

/// Keeps about `keep` bytes of `text`: its first and last halves, on line
/// ends where there are some, with a marker saying how much was cut.
pub(crate) fn cut_middle(text: &mut String, keep: usize) {
    if text.len() <= keep {
        return;
    }
    let half = keep / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    if let Some(nl) = text[..head_end].rfind('\n') {
        head_end = nl + 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    if let Some(nl) = text[tail_start..].find('\n')
        && tail_start + nl + 1 < text.len()
    {
        tail_start += nl + 1;
    }
    let cut = tail_start.saturating_sub(head_end);
    if cut == 0 {
        return;
    }
    let marker = cut_text_marker(cut);
    let tail = text[tail_start..].to_string();
    text.truncate(head_end);
    text.push_str(marker.trim_start());
    text.push('\n');
    text.push_str(&tail);
}

#[cfg(test)]
mod tests {
    use super::*;
    use orbit_protocol::ToolResultBlock;
    use serde_json::json;

    fn exchange(result: &str) -> [Message; 2] {
        [
            Message::assistant(vec![ContentBlock::tool_use(
                "toolu_1",
                "Bash",
                json!({"command": "cat start.txt"}),
            )]),
            Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::text(
                "toolu_1", result, false,
            ))]),
        ]
    }

    fn view(result: &str) -> Vec<Message> {
        let mut view = vec![Message::user_text("follow the chain")];
        view.extend(exchange(result));
        view
    }

    fn long_result() -> String {
        let mut text: String = (1..=200)
            .map(|i| format!("line {i}: inventory record checked\n"))
            .collect();
        text.push_str("Next, run: cat final.txt\n");
        text
    }

    #[test]
    fn a_pending_prompt_joins_the_summary() {
        let mut old = view("ok");
        old.push(Message::assistant(vec![ContentBlock::text("done")]));
        old.push(Message::user_text("now the tests"));
        let new = summary_history("S", &old, None, 10_000);
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].content.len(), 2);
        assert_eq!(new[0].content[1], ContentBlock::text("now the tests"));
    }

    #[test]
    fn the_last_calls_and_results_follow_the_summary_verbatim_when_they_fit() {
        let old = view("short result");
        let new = summary_history("S", &old, None, 10_000);
        assert_eq!(new.len(), 3);
        assert_eq!(new[0].role, Role::User);
        assert_eq!(new[1..], old[1..]);
    }

    #[test]
    fn a_large_result_keeps_its_first_and_last_lines() {
        let result = long_result();
        let budget = 2_000;
        let new = summary_history("S", &view(&result), None, budget);
        assert_eq!(new.len(), 3);
        let tail_bytes: u64 = new[1..].iter().map(message_bytes).sum();
        assert!(tail_bytes <= budget, "{tail_bytes}");
        let Some(result) = new[2].tool_results().next() else {
            panic!("no result kept: {new:?}");
        };
        let kept = result.content.as_text();
        assert!(kept.starts_with("line 1: "), "{kept}");
        assert!(kept.ends_with("Next, run: cat final.txt\n"), "{kept}");
        assert!(kept.contains("characters cut to fit"), "{kept}");
        assert!(kept.len() > 1_000, "{}", kept.len());
    }

    #[test]
    fn without_room_only_the_summary_remains() {
        let new = summary_history("S", &view(&long_result()), None, 300);
        assert_eq!(new.len(), 1);
        // A history that ends with an answer keeps nothing after the summary.
        let mut answered = view("ok");
        answered.push(Message::assistant(vec![ContentBlock::text("done")]));
        assert_eq!(summary_history("S", &answered, None, 10_000).len(), 1);
    }

    #[test]
    fn mid_work_the_request_joins_the_summary_and_counts_against_the_budget() {
        let old = view("short result");
        let request = "follow the chain and tell me the last line";
        let new = summary_history("S", &old, Some(request), 10_000);
        assert_eq!(new.len(), 3);
        assert_eq!(new[0].content[1], ContentBlock::text(request));
        assert_eq!(new[1..], old[1..]);
        // The request is paid first: what is left cuts the result more.
        let result = long_result();
        let with = summary_history("S", &view(&result), Some(&"r".repeat(800)), 2_000);
        let without = summary_history("S", &view(&result), None, 2_000);
        let bytes = |h: &[Message]| h[1..].iter().map(message_bytes).sum::<u64>();
        assert!(bytes(&with) <= 1_200, "{}", bytes(&with));
        assert!(bytes(&with) < bytes(&without));
        // Without room for the tail, the summary and the request remain.
        let tight = summary_history("S", &view(&result), Some(request), 300);
        assert_eq!(tight.len(), 1);
        assert_eq!(tight[0].content[1], ContentBlock::text(request));
    }

    #[test]
    fn cut_middle_respects_char_boundaries_and_lines() {
        let mut text = "é".repeat(2_000);
        cut_middle(&mut text, 500);
        assert!(text.len() < 700, "{}", text.len());
        assert!(text.starts_with('é') && text.ends_with('é'));
        let mut short = "abc".to_string();
        cut_middle(&mut short, 10);
        assert_eq!(short, "abc");
    }
}
