//! The plan approval dialog: an `ExitPlanMode` ask shown as the plan
//! (Markdown, printed once above the dialog) and three choices — approve
//! and auto-accept edits, approve and ask before each edit, or keep
//! planning with a note for the model.
//!
//! Data flow: the permission gate's ask for `ExitPlanMode` (its
//! `CallFacts::asks_user`) reaches the UI like any ask; `crate::dialog`
//! hands it to a [`PlanDialog`] when the request carries a plan. An
//! approval picks the next permission mode, which the screen sets on the
//! session's policy before the answer goes back, so the tool's call (which
//! leaves plan mode only when still in it) reports the chosen mode. "Keep
//! planning" denies the call with the person's note: the mode stays plan.

use crossterm::event::{KeyCode, KeyEvent};
use orbit_engine::{Approval, ApprovalRequest};
use orbit_permissions::PermissionMode;
use ratatui::text::{Line, Span};

use crate::markdown::MarkdownStream;
use crate::question_dialog::QuestionDialog;
use crate::theme::Theme;
use crate::typed_line::{self, Typed};

/// An ask with a dialog of its own: a plan to approve, questions to answer.
#[derive(Debug)]
pub(crate) enum Special {
    /// `ExitPlanMode`'s plan.
    Plan(PlanDialog),
    /// `AskUserQuestion`'s questions.
    Questions(QuestionDialog),
}

impl Special {
    /// The dialog `request` gets instead of the permission dialog, if any.
    pub(crate) fn for_request(request: &ApprovalRequest) -> Option<Self> {
        PlanDialog::for_request(request)
            .map(Self::Plan)
            .or_else(|| QuestionDialog::for_request(request).map(Self::Questions))
    }
}

/// The choices, in order: label and the mode an approval switches to
/// (None: keep planning).
const CHOICES: [(&str, Option<PermissionMode>); 3] = [
    (
        "Yes, and auto-accept edits",
        Some(PermissionMode::AcceptEdits),
    ),
    (
        "Yes, and ask before each edit",
        Some(PermissionMode::Default),
    ),
    ("No, keep planning (tell the model what to change)", None),
];

/// One plan waiting for approval.
#[derive(Debug)]
pub(crate) struct PlanDialog {
    plan: String,
    selected: usize,
    /// Typing the note for "keep planning".
    feedback: Option<String>,
    /// The plan still to print above the dialog.
    unshown: bool,
}

impl PlanDialog {
    /// The dialog for an ask whose input holds a plan (`ExitPlanMode`).
    pub(crate) fn for_request(request: &ApprovalRequest) -> Option<Self> {
        if request.tool_name != "ExitPlanMode" {
            return None;
        }
        let plan = request.input.get("plan")?.as_str()?;
        Some(Self {
            plan: plan.to_string(),
            selected: 0,
            feedback: None,
            unshown: true,
        })
    }

    /// The plan as Markdown, once (printed above the dialog).
    pub(crate) fn take_preview(&mut self, theme: Theme) -> Option<Vec<Line<'static>>> {
        if !std::mem::take(&mut self.unshown) {
            return None;
        }
        let mut md = MarkdownStream::new(theme);
        let mut out = vec![Line::from(vec![
            Span::styled("? ", theme.warn()),
            Span::styled("Here is the plan:", theme.bold()),
        ])];
        out.extend(md.push(&self.plan));
        out.extend(md.finish());
        Some(out)
    }

    /// The answer a key gives (and, for an approval, the next mode).
    pub(crate) fn handle_key(
        &mut self,
        key: KeyEvent,
    ) -> Option<(Approval, Option<PermissionMode>)> {
        if let Some(note) = &mut self.feedback {
            match typed_line::edit(note, key.code) {
                Typed::Enter => {
                    let note = note.trim();
                    let reason = if note.is_empty() {
                        "The user wants to keep planning.".to_string()
                    } else {
                        format!("The user wants to keep planning: {note}")
                    };
                    return Some((
                        Approval::Deny {
                            reason: Some(reason),
                        },
                        None,
                    ));
                }
                Typed::Esc => self.feedback = None,
                Typed::Editing => {}
            }
            return None;
        }
        let pick = match key.code {
            KeyCode::Up => {
                self.selected = self.selected.checked_sub(1).unwrap_or(CHOICES.len() - 1);
                return None;
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % CHOICES.len();
                return None;
            }
            KeyCode::Enter => self.selected,
            KeyCode::Char('1' | 'y') => 0,
            KeyCode::Char('2') => 1,
            KeyCode::Char('3' | 'n') | KeyCode::Esc => 2,
            _ => return None,
        };
        match CHOICES[pick].1 {
            Some(mode) => Some((Approval::Allow, Some(mode))),
            None => {
                self.selected = pick;
                self.feedback = Some(String::new());
                None
            }
        }
    }

    /// The dialog's rows.
    pub(crate) fn lines(&self, theme: Theme) -> Vec<Line<'static>> {
        let mut out = vec![Line::from(vec![
            Span::styled("? ", theme.warn()),
            Span::styled("Would you like to proceed with this plan?", theme.bold()),
        ])];
        for (i, (label, _)) in CHOICES.iter().enumerate() {
            out.push(Line::from(Span::styled(
                format!("  {}. {label}", i + 1),
                theme.choice(i == self.selected),
            )));
        }
        if let Some(note) = &self.feedback {
            out.push(typed_line::row(theme, "  What should change? ", note));
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;
    use serde_json::json;

    fn dialog() -> PlanDialog {
        PlanDialog::for_request(&ApprovalRequest {
            tool_name: "ExitPlanMode".into(),
            tool_use_id: "t".into(),
            input: json!({"plan": "# Plan\n1. edit"}),
            reason: String::new(),
            subject: String::new(),
            suggested_rule: None,
        })
        .unwrap()
    }

    fn keys(d: &mut PlanDialog, keys: &[KeyCode]) -> Option<(Approval, Option<PermissionMode>)> {
        keys.iter()
            .find_map(|k| d.handle_key(KeyEvent::new(*k, KeyModifiers::NONE)))
    }

    #[test]
    fn approve_picks_the_mode_and_keep_planning_denies_with_the_note() {
        use KeyCode::{Char, Down, Enter};
        let allow = |m| Some((Approval::Allow, Some(m)));
        assert_eq!(
            keys(&mut dialog(), &[Enter]),
            allow(PermissionMode::AcceptEdits)
        );
        assert_eq!(
            keys(&mut dialog(), &[Down, Enter]),
            allow(PermissionMode::Default)
        );
        let deny = keys(&mut dialog(), &[Char('3'), Char('x'), Enter]);
        assert_eq!(
            deny,
            Some((
                Approval::Deny {
                    reason: Some("The user wants to keep planning: x".into())
                },
                None
            ))
        );
        let mut d = dialog();
        assert!(d.take_preview(Theme::new(false)).is_some());
        assert!(d.take_preview(Theme::new(false)).is_none());
    }
}
