//! R2: the per-message tool_result budget and its frozen decisions.

use std::collections::BTreeSet;

use super::store::{as_bash, store, unwritable_store};
use orbit_engine::{
    ContentReplacementState, ToolResultStorage, enforce_tool_result_budget,
    persisted_output_message,
};
use orbit_protocol::{
    ContentBlock, ImageSource, Message, ToolResultBlock, ToolResultContent, ToolResultContentBlock,
};
use orbit_tools::ToolOutput;
use serde_json::json;

/// Distinct, line-structured text of exactly `n` chars for result `id`
/// (shared with the end-to-end suite).
pub(super) fn lined_output(id: &str, n: usize) -> String {
    let mut s = String::with_capacity(n + 32);
    let mut i = 0;
    while s.len() < n {
        s.push_str(&format!("{id} line {i}\n"));
        i += 1;
    }
    s.truncate(n);
    s
}

fn assistant_calls(ids: &[&str]) -> Message {
    Message::assistant(
        ids.iter()
            .map(|id| ContentBlock::tool_use(*id, "Bash", json!({"command": "x"})))
            .collect(),
    )
}

fn user_results(results: &[(&str, usize)]) -> Message {
    Message::user(
        results
            .iter()
            .map(|(id, n)| {
                ContentBlock::ToolResult(ToolResultBlock::text(*id, lined_output(id, *n), false))
            })
            .collect(),
    )
}

/// One turn: the prompt, an assistant calling `results`' ids, and a user
/// message with a result of the given size for each.
fn one_turn(results: &[(&str, usize)]) -> Vec<Message> {
    let ids: Vec<&str> = results.iter().map(|(id, _)| *id).collect();
    vec![
        Message::user_text("go"),
        assistant_calls(&ids),
        user_results(results),
    ]
}

/// The budget pass with no tool exempt from it.
async fn enforce(
    history: &[Message],
    state: &mut ContentReplacementState,
    budget: usize,
    storage: &ToolResultStorage,
) -> Vec<Message> {
    enforce_tool_result_budget(history, state, budget, storage, &|_: &str| false).await
}

/// [`one_turn`] of `results` budgeted once from a fresh state: the
/// history, the state after the pass and the view it sent.
async fn first_view(
    results: &[(&str, usize)],
    budget: usize,
    storage: &ToolResultStorage,
) -> (Vec<Message>, ContentReplacementState, Vec<Message>) {
    let history = one_turn(results);
    let mut state = ContentReplacementState::default();
    let view = enforce(&history, &mut state, budget, storage).await;
    (history, state, view)
}

fn result_text<'a>(view: &'a [Message], id: &str) -> &'a str {
    for m in view {
        for tr in m.tool_results() {
            if let (true, ToolResultContent::Text(t)) = (tr.tool_use_id == id, &tr.content) {
                return t;
            }
        }
    }
    panic!("no text result {id}");
}

fn replaced_ids(state: &ContentReplacementState) -> BTreeSet<&str> {
    state.replacements.keys().map(String::as_str).collect()
}

fn serialized(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect()
}

#[tokio::test]
async fn under_budget_everything_is_sent_whole_and_marked_seen() {
    let st = store();
    let (history, state, view) = first_view(&[("a", 60_000), ("b", 60_000)], 120_000, &st).await;
    assert_eq!(view, history);
    assert_eq!(
        state.seen_ids,
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
    assert!(state.replacements.is_empty());
    assert!(!st.dir().exists());
}

#[tokio::test]
async fn largest_fresh_results_are_replaced_first_until_it_fits() {
    let st = store();
    // 55,000 > 40,000: replacing "huge" alone fits.
    let (history, state, view) = first_view(
        &[("small", 5_000), ("huge", 30_000), ("mid", 20_000)],
        40_000,
        &st,
    )
    .await;
    assert_eq!(replaced_ids(&state), BTreeSet::from(["huge"]));
    let huge = lined_output("huge", 30_000);
    let expected = persisted_output_message(&huge, &st.path_for("huge"));
    assert_eq!(result_text(&view, "huge"), expected);
    assert_eq!(state.replacements["huge"], expected);
    assert_eq!(std::fs::read_to_string(st.path_for("huge")).unwrap(), huge);
    assert_eq!(result_text(&view, "mid"), lined_output("mid", 20_000));
    // The history itself is never modified.
    assert_eq!(result_text(&history, "huge"), huge);

    // With 10,000: "huge" then "mid" go; "small" (5,000) then fits.
    let st2 = store();
    let mut state = ContentReplacementState::default();
    let view = enforce(&history, &mut state, 10_000, &st2).await;
    assert_eq!(replaced_ids(&state), BTreeSet::from(["huge", "mid"]));
    let sent: usize = view[2]
        .tool_results()
        .map(|t| t.content.text_len_chars())
        .sum();
    assert!(sent <= 10_000, "{sent}");
}

#[tokio::test]
async fn budget_is_per_message_not_per_history() {
    let st = store();
    let history = vec![
        Message::user_text("go"),
        assistant_calls(&["a"]),
        user_results(&[("a", 30_000)]),
        assistant_calls(&["b"]),
        user_results(&[("b", 30_000)]),
    ];
    let mut state = ContentReplacementState::default();
    let view = enforce(&history, &mut state, 40_000, &st).await;
    assert_eq!(view, history);
}

#[tokio::test]
async fn a_result_sent_whole_stays_whole_forever() {
    let st = store();
    let mut history = one_turn(&[("a", 30_000)]);
    let mut state = ContentReplacementState::default();
    let first = enforce(&history, &mut state, 100_000, &st).await;
    // Same history under a budget it now exceeds: "a" was already sent whole.
    let second = enforce(&history, &mut state, 1_000, &st).await;
    assert_eq!(first, second);

    // A new message over budget: only its fresh result is replaced.
    history.push(assistant_calls(&["b"]));
    history.push(user_results(&[("b", 30_000)]));
    let third = enforce(&history, &mut state, 1_000, &st).await;
    assert_eq!(third[..3], first[..]);
    assert_eq!(replaced_ids(&state), BTreeSet::from(["b"]));
}

#[tokio::test]
async fn a_replacement_is_reused_byte_for_byte_never_recomputed() {
    let st = store();
    let (history, mut state, first) = first_view(&[("a", 30_000)], 10_000, &st).await;
    assert_eq!(replaced_ids(&state), BTreeSet::from(["a"]));

    // A different storage (another data dir) and a generous budget: the
    // frozen string (with the first path) is still what is sent.
    let other = store();
    let second =
        enforce_tool_result_budget(&history, &mut state, usize::MAX, &other, &|_: &str| false)
            .await;
    assert_eq!(serialized(&first), serialized(&second));
    assert!(result_text(&second, "a").contains(&st.path_for("a").display().to_string()));
    assert!(!other.dir().exists());
}

#[tokio::test]
async fn persisted_and_image_results_count_but_are_never_replaced() {
    let st = store();
    // An R1-persisted result as the pipeline produced it.
    let r1 = as_bash(&st, "r1", ToolOutput::text(lined_output("r1", 40_000))).await;
    let image = ToolResultBlock {
        tool_use_id: "img".into(),
        content: ToolResultContent::Blocks(vec![
            ToolResultContentBlock::Text {
                text: lined_output("img", 3_000),
            },
            ToolResultContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "AAAA".into(),
                },
            },
        ]),
        is_error: None,
    };
    let fresh = ToolResultBlock::text("fresh", lined_output("fresh", 3_000), false);
    let history = vec![
        Message::user_text("go"),
        assistant_calls(&["r1", "img", "fresh"]),
        Message::user(vec![
            ContentBlock::ToolResult(r1.clone()),
            ContentBlock::ToolResult(image.clone()),
            ContentBlock::ToolResult(fresh),
        ]),
    ];
    let mut state = ContentReplacementState::default();
    let view = enforce(&history, &mut state, 6_000, &st).await;
    // r1 (~2.2k) + img (3k) + fresh (3k) > 6,000: only "fresh" is eligible.
    assert_eq!(replaced_ids(&state), BTreeSet::from(["fresh"]));
    let blocks: Vec<_> = view[2].tool_results().cloned().collect();
    assert_eq!(blocks[0], r1);
    assert_eq!(blocks[1], image);
    assert_eq!(state.seen_ids.len(), 3);
}

#[tokio::test]
async fn failed_persistence_sends_whole_and_freezes_whole() {
    let broken = unwritable_store();
    let (history, mut state, first) = first_view(&[("a", 30_000)], 1_000, &broken).await;
    assert_eq!(first, history);
    assert!(state.seen_ids.contains("a"));
    assert!(state.replacements.is_empty());
    // Storage works again: the decision stays (sent whole once, whole forever).
    let st = store();
    let second = enforce(&history, &mut state, 1_000, &st).await;
    assert_eq!(second, history);
}

#[tokio::test]
async fn state_round_trips_through_serde_and_resumes_identically() {
    let st = store();
    let (history, state, before) = first_view(&[("a", 30_000), ("b", 500)], 10_000, &st).await;
    let json = serde_json::to_string(&state).unwrap();
    let back: ContentReplacementState = serde_json::from_str(&json).unwrap();
    assert_eq!(back, state);
    let v = serde_json::to_value(&state).unwrap();
    assert_eq!(v["seen_ids"], json!(["a", "b"]));
    assert_eq!(v["replacements"]["a"], json!(state.replacements["a"]));

    let mut resumed = back;
    let after = enforce(&history, &mut resumed, 10_000, &st).await;
    assert_eq!(serialized(&before), serialized(&after));
}

/// A scripted 8-turn session whose turns return large outputs: every view's
/// serialized messages are a byte-identical prefix of the next view.
#[tokio::test]
async fn growing_history_keeps_every_earlier_message_byte_identical() {
    let st = store();
    let turns: [&[(&str, usize)]; 8] = [
        &[("t1a", 20_000)],
        &[("t2a", 45_000), ("t2b", 30_000)],
        &[("t3a", 500)],
        &[("t4a", 60_000)],
        &[("t5a", 10_000), ("t5b", 10_000), ("t5c", 35_000)],
        &[("t6a", 0)],
        &[("t7a", 90_000)],
        &[("t8a", 15_000), ("t8b", 15_000)],
    ];
    let budget = 50_000;
    let mut history = vec![Message::user_text("start")];
    let mut state = ContentReplacementState::default();
    let mut previous: Vec<String> = Vec::new();
    for turn in turns {
        let view = enforce(&history, &mut state, budget, &st).await;
        let now = serialized(&view);
        assert_eq!(now[..previous.len()], previous[..], "prefix changed");
        previous = now;
        let ids: Vec<&str> = turn.iter().map(|(id, _)| *id).collect();
        history.push(assistant_calls(&ids));
        history.push(user_results(turn));
    }
    let view = enforce(&history, &mut state, budget, &st).await;
    let now = serialized(&view);
    assert_eq!(now[..previous.len()], previous[..]);
    // The budget triggered on the turns over 50,000 chars, and only there.
    assert_eq!(
        replaced_ids(&state),
        BTreeSet::from(["t2a", "t4a", "t5c", "t7a"])
    );
    for m in &view {
        let total: usize = m.tool_results().map(|t| t.content.text_len_chars()).sum();
        assert!(total <= budget, "{total}");
    }
}
