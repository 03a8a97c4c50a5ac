//! Making a history fit a token budget without a model: the input of the
//! summary request (so that request always fits), and the fallback when
//! no summary could be made.
//!
//! Three steps, each only as far as needed, oldest first:
//! 1. clear tool results: each keeps its first lines (up to
//!    [`CLEARED_RESULT_HEAD_BYTES`]) followed by `[Old tool result content
//!    cleared]`; the tool_use keeps its result, so pairing holds;
//! 2. drop whole turns after the first message: an assistant message and
//!    the user message after it (its results), so roles still alternate,
//!    every remaining tool_use keeps its result, and the first message (the
//!    task) and the last one (what the next request answers) stay;
//! 3. cut the largest text blocks and results in half, with a marker, down
//!    to [`MIN_CUT_BYTES`] each (a single message too large on its own).
//!
//! Every step keeps the history valid for the API, and the whole terminates:
//! each step only removes content (a cut is made only where the block,
//! its marker included, comes out shorter).

use orbit_protocol::{ContentBlock, Message, Role, ToolResultContent, ToolResultContentBlock};
use orbit_tool::texts::compact::{CLEARED_TOOL_RESULT, cut_text_marker, dropped_turns_note};

use super::estimate::{BYTES_PER_TOKEN, message_bytes};

/// Step 1 keeps this much of the head of a cleared result, in bytes (a
/// file's first lines, a command's first output often say what matters).
pub(crate) const CLEARED_RESULT_HEAD_BYTES: usize = 256;

/// Step 3 leaves at least this much of each block, in bytes.
pub(crate) const MIN_CUT_BYTES: usize = 512;

/// What [`shrink_to_fit`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shrunk {
    pub(crate) cleared_results: usize,
    pub(crate) dropped_messages: usize,
    pub(crate) cut_blocks: usize,
}

/// Shrinks `messages` until `fixed_tokens` plus their estimate is at most
/// `target_tokens` (or nothing more can go). See the module docs.
pub(crate) fn shrink_to_fit(
    messages: &mut Vec<Message>,
    fixed_tokens: u64,
    target_tokens: u64,
) -> Shrunk {
    let target_bytes = target_tokens
        .saturating_sub(fixed_tokens)
        .saturating_mul(BYTES_PER_TOKEN);
    let mut total: u64 = messages.iter().map(message_bytes).sum();
    let mut shrunk = Shrunk::default();
    // 1. Clear tool results, oldest first.
    'clear: for message in messages.iter_mut() {
        for block in &mut message.content {
            if total <= target_bytes {
                break 'clear;
            }
            if let ContentBlock::ToolResult(result) = block {
                let before = result_len(&result.content);
                let cleared = cleared_result(&result.content);
                if before > cleared.len() {
                    total -= (before - cleared.len()) as u64;
                    result.content = ToolResultContent::Text(cleared);
                    shrunk.cleared_results += 1;
                }
            }
        }
    }
    // 2. Drop the oldest turns, keeping the first and the last message
    // (and room for the note saying so).
    let note_room = dropped_turns_note(messages.len()).len() as u64;
    while total + note_room > target_bytes
        && messages.len() >= 4
        && messages[1].role == Role::Assistant
        && messages[2].role == Role::User
    {
        total -= messages.drain(1..3).map(|m| message_bytes(&m)).sum::<u64>();
        shrunk.dropped_messages += 2;
    }
    if shrunk.dropped_messages > 0
        && let Some(first) = messages.first_mut()
    {
        // One note: an earlier fallback's note is replaced, not repeated.
        let earlier_note = |block: &ContentBlock| matches!(block, ContentBlock::Text { text, .. } if is_dropped_turns_note(text));
        first.content.retain(|block| !earlier_note(block));
        let note = dropped_turns_note(shrunk.dropped_messages);
        total += note.len() as u64;
        first.content.push(ContentBlock::text(note));
    }
    // 3. Cut the largest blocks in half until it fits. A cut must leave
    // the block shorter than it was, marker included: a block just over
    // MIN_CUT_BYTES would otherwise lose fewer bytes than its marker adds
    // and the loop would never end (seen: a small model's window, where
    // the fixed part of the request left little room). When the largest
    // block cannot shrink, no smaller one can either.
    while total > target_bytes {
        let Some((mi, bi, len)) = largest_block(messages) else {
            break;
        };
        let keep = (len / 2).max(MIN_CUT_BYTES);
        let marker = cut_text_marker(len.saturating_sub(keep));
        if keep + marker.len() >= len {
            break;
        }
        let Some(text) = block_text_mut(&mut messages[mi].content[bi]) else {
            break;
        };
        let mut at = keep;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        text.push_str(&marker);
        total = total.saturating_sub((len - at) as u64) + marker.len() as u64;
        shrunk.cut_blocks += 1;
    }
    shrunk
}

/// Whether `text` is a note [`dropped_turns_note`] wrote (whatever count).
fn is_dropped_turns_note(text: &str) -> bool {
    let template = dropped_turns_note(0);
    let prefix = template.split(" its ").next().unwrap_or(&template);
    text.starts_with(prefix)
}

/// A cleared result: its first [`CLEARED_RESULT_HEAD_BYTES`] (cut at a line
/// end when there is one) and [`CLEARED_TOOL_RESULT`].
fn cleared_result(content: &ToolResultContent) -> String {
    let text = match content {
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Blocks(_) => content.as_text(),
    };
    if text.ends_with(CLEARED_TOOL_RESULT) {
        return text;
    }
    let mut at = text.len().min(CLEARED_RESULT_HEAD_BYTES);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let head = &text[..at];
    let head = match head.rfind('\n') {
        Some(end) if at < text.len() => &head[..end],
        _ => head,
    };
    if head.is_empty() {
        CLEARED_TOOL_RESULT.to_string()
    } else {
        format!("{head}\n{CLEARED_TOOL_RESULT}")
    }
}

fn result_len(content: &ToolResultContent) -> usize {
    match content {
        ToolResultContent::Text(t) => t.len(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ToolResultContentBlock::Text { text } => text.len(),
                ToolResultContentBlock::Image { .. } | ToolResultContentBlock::Document { .. } => 0,
            })
            .sum(),
    }
}

/// The one text of a block that step 3 may cut (a text block, or a text
/// tool result).
pub(crate) fn block_text_mut(block: &mut ContentBlock) -> Option<&mut String> {
    match block {
        ContentBlock::Text { text, .. } => Some(text),
        ContentBlock::ToolResult(result) => match &mut result.content {
            ToolResultContent::Text(text) => Some(text),
            ToolResultContent::Blocks(_) => None,
        },
        _ => None,
    }
}

/// `(message, block, bytes)` of the largest cuttable block.
pub(crate) fn largest_block(messages: &mut [Message]) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    for (mi, message) in messages.iter_mut().enumerate() {
        for (bi, block) in message.content.iter_mut().enumerate() {
            if let Some(text) = block_text_mut(block)
                && best.is_none_or(|(_, _, len)| text.len() > len)
            {
                best = Some((mi, bi, text.len()));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use orbit_protocol::ToolResultBlock;
    use serde_json::json;

    fn turn(i: usize, result_bytes: usize) -> [Message; 2] {
        let id = format!("toolu_{i}");
        [
            Message::assistant(vec![ContentBlock::tool_use(
                id.clone(),
                "Read",
                json!({"file_path": format!("f{i}")}),
            )]),
            Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::text(
                id,
                "r".repeat(result_bytes),
                false,
            ))]),
        ]
    }

    fn history(turns: usize, result_bytes: usize) -> Vec<Message> {
        let mut messages = vec![Message::user_text("the task")];
        for i in 0..turns {
            messages.extend(turn(i, result_bytes));
        }
        messages
    }

    fn tokens(messages: &[Message]) -> u64 {
        super::super::estimate::messages_tokens(messages)
    }

    #[test]
    fn each_step_goes_only_as_far_as_needed() {
        // (turns, result bytes, target tokens) → what was done.
        let cases = [
            // Fits already: nothing.
            (3, 100, 10_000, Shrunk::default()),
            // Clearing the two oldest results is enough.
            (
                4,
                3_000,
                2_600,
                Shrunk {
                    cleared_results: 2,
                    ..Shrunk::default()
                },
            ),
            // Clearing all is not: turns are dropped too.
            (
                40,
                3_000,
                300,
                Shrunk {
                    cleared_results: 40,
                    dropped_messages: 78,
                    ..Shrunk::default()
                },
            ),
        ];
        for (turns, bytes, target, expected) in cases {
            let mut messages = history(turns, bytes);
            let last = messages.last().cloned();
            let shrunk = shrink_to_fit(&mut messages, 0, target);
            assert_eq!(
                shrunk, expected,
                "{turns} turns of {bytes} bytes → {target}"
            );
            assert!(tokens(&messages) <= target, "{}", tokens(&messages));
            assert_eq!(messages[0].content[0], ContentBlock::text("the task"));
            assert_eq!(
                messages.last().map(|m| m.tool_results().count()),
                last.map(|m| m.tool_results().count())
            );
            assert_valid(&messages);
        }
    }

    #[test]
    fn a_single_huge_message_is_cut_with_a_marker() {
        let mut messages = vec![Message::user_text("z".repeat(90_000))];
        let shrunk = shrink_to_fit(&mut messages, 100, 2_000);
        assert!(shrunk.cut_blocks >= 2, "{shrunk:?}");
        assert!(100 + tokens(&messages) <= 2_000);
        assert!(messages[0].text().contains("characters cut to fit"));
    }

    /// A budget no cut can reach ends the loop: blocks just over
    /// MIN_CUT_BYTES (where half a block is less than its marker) are left
    /// as they are, never cut again and again (the loop used to spin there
    /// for ever). Run on a thread with a deadline, so a regression fails
    /// instead of hanging the suite.
    #[test]
    fn an_unreachable_budget_ends_without_growing_a_block() {
        // (block bytes, whether a cut still shortens it: over MIN_CUT_BYTES
        // by more than a marker's ≈ 54 bytes)
        for (len, cut) in [
            (MIN_CUT_BYTES + 1, false),
            (MIN_CUT_BYTES + 40, false),
            (MIN_CUT_BYTES + 60, true),
            (4_000, true),
        ] {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut messages = vec![
                    Message::user_text("y".repeat(len)),
                    Message::assistant(vec![ContentBlock::text("z".repeat(len))]),
                    Message::user_text("x".repeat(len)),
                ];
                let shrunk = shrink_to_fit(&mut messages, 0, 1);
                let _ = tx.send((shrunk, messages));
            });
            let (shrunk, messages) = rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("shrink_to_fit did not end for blocks of {len} bytes"));
            for message in &messages {
                let text = message.text();
                assert!(text.len() <= len, "{len}: a block grew to {}", text.len());
                assert!(
                    text.len() >= MIN_CUT_BYTES.min(len),
                    "{len}: {}",
                    text.len()
                );
            }
            assert_eq!(shrunk.cut_blocks > 0, cut, "{len}: {shrunk:?}");
        }
    }

    /// Roles alternate from a user message, and every tool_use is answered
    /// by the next message.
    fn assert_valid(messages: &[Message]) {
        assert_eq!(messages[0].role, Role::User);
        for pair in messages.windows(2) {
            assert_ne!(pair[0].role, pair[1].role);
            let uses: Vec<&str> = pair[0].tool_uses().map(|t| t.id.as_str()).collect();
            let answers: Vec<&str> = pair[1]
                .tool_results()
                .map(|r| r.tool_use_id.as_str())
                .collect();
            assert_eq!(uses, answers);
        }
    }
}
