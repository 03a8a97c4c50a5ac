//! The dialog's keys, rows and the texts the model is told.

use super::*;
use crossterm::event::KeyModifiers;
use serde_json::json;

fn request(rule: Option<&str>) -> ApprovalRequest {
    ApprovalRequest {
        tool_name: "Bash".into(),
        tool_use_id: "t1".into(),
        input: json!({"command": "rm x"}),
        reason: "needs approval".into(),
        subject: "rm x".into(),
        suggested_rule: rule.map(str::to_string),
    }
}

fn keys(dialog: &mut Dialog, keys: &[KeyCode]) -> Option<Approval> {
    keys.iter()
        .find_map(|k| dialog.handle_key(KeyEvent::new(*k, KeyModifiers::NONE)))
}

/// An Edit or Write asking about a FIFO or a device shows no diff and
/// opens at once (a plain read blocked the UI forever).
#[test]
#[allow(clippy::unwrap_used)]
fn a_dialog_about_a_fifo_or_device_opens_at_once_without_a_diff() {
    let (_dir, fifo) = orbit_test_support::files::temp_fifo();
    for path in [fifo.display().to_string(), "/dev/zero".to_string()] {
        for input in [
            json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            json!({"file_path": path, "content": "b"}),
        ] {
            let request = ApprovalRequest {
                tool_name: "Edit".into(),
                input,
                ..request(None)
            };
            let change =
                crate::tools::tests::within_a_second(move || Dialog::new(request, None).change);
            assert_eq!(change, None, "{path}");
        }
    }
}

#[test]
fn keys_to_answers() {
    use KeyCode::{Char, Down, Enter, Esc, Up};
    let no = rejected(None);
    let because = rejected(Some("use pytest"));
    let always = Approval::AllowAlways {
        rule: "Bash(rm:*)".into(),
    };
    let rule = Some("Bash(rm:*)");
    // (rule, keys, answer, stops the turn)
    let cases: Vec<(Option<&str>, Vec<KeyCode>, Approval, bool)> = vec![
        (rule, vec![Enter], Approval::Allow, false),
        (rule, vec![Char('1')], Approval::Allow, false),
        (rule, vec![Char('2')], always.clone(), false),
        (rule, vec![Down, Enter], always.clone(), false),
        (rule, vec![Up, Up, Enter], always, false),
        (rule, vec![Char('3'), Enter], no.clone(), false),
        (rule, vec![Char('n'), Enter], no.clone(), false),
        (rule, vec![Esc], no.clone(), true),
        (rule, vec![Char('3'), Char('x'), Esc], no.clone(), true),
        // No rule: 2 does nothing, the arrows skip its row, 3 is still No.
        (None, vec![Char('2'), Char('1')], Approval::Allow, false),
        (None, vec![Down, Enter, Enter], no.clone(), false),
        (None, vec![Up, Up, Enter], Approval::Allow, false),
        (
            None,
            "3use pytest".chars().map(Char).chain([Enter]).collect(),
            because,
            false,
        ),
        (None, vec![Esc], no, true),
    ];
    for (rule, input, want, stops) in cases {
        let mut dialog = Dialog::new(request(rule), None);
        assert_eq!(keys(&mut dialog, &input), Some(want), "{input:?}");
        assert_eq!(dialog.stops_turn(), stops, "{input:?}");
    }
}

#[test]
fn the_model_gets_claude_code_s_reject_texts() {
    let reason = |a: Approval| match a {
        Approval::Deny { reason } => reason.unwrap_or_default(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        reason(rejected(None)),
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
    );
    assert_eq!(reason(rejected(Some("  "))), REJECT_MESSAGE);
    assert_eq!(
        reason(rejected(Some(" use pytest "))),
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse pytest"
    );
}

/// A subagent told no goes on another way (Claude Code's texts).
#[test]
fn a_subagent_is_told_to_try_another_way() {
    let mut dialog = Dialog::new(request(None), None);
    dialog.agent = Some(AskingAgent {
        agent_id: "a1".into(),
        agent_type: "Explore".into(),
    });
    let no = keys(&mut dialog, &[KeyCode::Char('3'), KeyCode::Enter]);
    assert_eq!(
        no,
        Some(Approval::Deny {
            reason: Some(SUBAGENT_REJECT_MESSAGE.to_string())
        })
    );
    assert!(
        SUBAGENT_REJECT_MESSAGE
            .ends_with("Try a different approach or report the limitation to complete your task.")
    );
    let mut dialog = Dialog::new(request(None), None);
    dialog.agent = Some(AskingAgent {
        agent_id: "a1".into(),
        agent_type: "Explore".into(),
    });
    let typed: Vec<KeyCode> = "3grep instead"
        .chars()
        .map(KeyCode::Char)
        .chain([KeyCode::Enter])
        .collect();
    assert_eq!(
        keys(&mut dialog, &typed),
        Some(Approval::Deny {
            reason: Some(format!(
                "{SUBAGENT_REJECT_MESSAGE_WITH_REASON_PREFIX}grep instead"
            ))
        })
    );
}

/// The same three rows whatever the ask; the rule shown in row 2.
#[test]
fn every_ask_shows_the_same_three_rows() {
    let rows = |rule: Option<&str>| -> Vec<String> {
        let dialog = Dialog::new(request(rule), None);
        dialog
            .lines(Theme::new(false))
            .iter()
            .skip(2)
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    };
    assert_eq!(
        rows(Some("Bash(rm:*)")),
        [
            "  1. Yes",
            "  2. Yes, and don't ask again for Bash(rm:*)",
            "  3. No, and tell the model what to do differently (esc)",
        ]
    );
    let without = rows(None);
    assert_eq!(without.len(), 3);
    assert!(without[1].starts_with("  2. Yes, and don't ask again (no rule"));
    assert!(without[2].starts_with("  3. No"));
}

/// The policy's generic reason, worded for the model ("… you haven't
/// granted it yet"), is not shown to the person being asked; a specific
/// reason (a rule that asks, a path outside the project) is.
#[test]
fn the_person_is_asked_not_told_they_have_not_granted_it() {
    let second_row = |reason: String| -> String {
        let request = ApprovalRequest {
            reason,
            ..request(None)
        };
        let lines = Dialog::new(request, None).lines(Theme::new(false));
        lines[1].spans.iter().map(|s| s.content.as_ref()).collect()
    };
    let generic = orbit_tool::texts::permissions::not_granted("Bash");
    assert_eq!(second_row(generic), "  Do you want to proceed?");
    assert_eq!(
        second_row("Bash(rm:*) asks before it runs".into()),
        "  Bash(rm:*) asks before it runs"
    );
}
