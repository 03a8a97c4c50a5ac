//! The permission dialog and the [`Approver`] behind it.
//!
//! Data flow: the engine's orchestrator awaits [`TuiApprover::approve`],
//! which sends the request with a one-shot reply channel to the UI
//! ([`ApprovalInbox`]); the UI queues a [`Dialog`] per request, shows the
//! first, and its keys produce an [`Approval`] that goes back through the
//! reply channel. A UI that is gone answers deny. A subagent's ask
//! ([`Approver::approve_for`]) names the subagent in the dialog.
//!
//! Every ask has the same keys: 1 Yes; 2 Yes, and don't ask again for the
//! rule shown (`orbit_permissions::suggested_rule`, saved for this project
//! in the user's data directory by the engine; greyed when no rule can
//! cover the call); 3 No, with an optional reason typed. A "no" gives the
//! model Claude Code's interactive reject text ([`rejected`]; headless runs
//! keep the policy's reason), with the reason when one was typed. Esc
//! denies the same way and stops the turn ([`Dialog::stops_turn`]).

use std::sync::Arc;

use async_trait::async_trait;
use crossterm::event::{KeyCode, KeyEvent};
use orbit_engine::{Approval, ApprovalRequest, Approver, AskingAgent, SharedApprover};
use ratatui::text::{Line, Span};
use tokio::sync::{mpsc, oneshot};

use crate::diff::{DIFF_MAX_LINES, diff_lines, edit_texts};
use crate::plan_dialog::Special;
use crate::screen::Tone;
use crate::theme::Theme;
use crate::tools::{Before, file_before_edit, subject};

/// One ask waiting for the person.
pub(crate) struct Ask {
    pub(crate) request: ApprovalRequest,
    pub(crate) reply: oneshot::Sender<Approval>,
    /// The subagent whose call it is; None: the session's own.
    pub(crate) agent: Option<AskingAgent>,
}

/// Where the UI receives the engine's asks; made with [`approver`].
pub struct ApprovalInbox {
    pub(crate) rx: mpsc::UnboundedReceiver<Ask>,
}

/// The engine side: sends each ask to the UI and waits for the answer.
struct TuiApprover {
    tx: mpsc::UnboundedSender<Ask>,
}

#[async_trait]
impl Approver for TuiApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.ask(request, None).await
    }

    async fn approve_for(&self, request: &ApprovalRequest, agent: &AskingAgent) -> Approval {
        self.ask(request, Some(agent.clone())).await
    }
}

impl TuiApprover {
    async fn ask(&self, request: &ApprovalRequest, agent: Option<AskingAgent>) -> Approval {
        let (reply, answer) = oneshot::channel();
        let ask = Ask {
            request: request.clone(),
            reply,
            agent,
        };
        if self.tx.send(ask).is_err() {
            return closed();
        }
        answer.await.unwrap_or_else(|_| closed())
    }
}

/// What the model is told when the person says no (Claude Code's text).
pub(crate) const REJECT_MESSAGE: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// The start of what the model is told when the person says no and why
/// (Claude Code's text); the reason follows.
pub(crate) const REJECT_MESSAGE_WITH_REASON_PREFIX: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n";

/// The person's "no", with what they said (trimmed; empty is nothing).
pub(crate) fn rejected(said: Option<&str>) -> Approval {
    let said = said.map(str::trim).filter(|s| !s.is_empty());
    Approval::Deny {
        reason: Some(match said {
            Some(said) => format!("{REJECT_MESSAGE_WITH_REASON_PREFIX}{said}"),
            None => REJECT_MESSAGE.to_string(),
        }),
    }
}

/// The rows of the dialog, by key (1, 2, 3).
const YES: usize = 0;
const ALWAYS: usize = 1;
const NO: usize = 2;
const OPTION_COUNT: usize = 3;

fn closed() -> Approval {
    Approval::Deny {
        reason: Some("the terminal UI was closed before the user answered".to_string()),
    }
}

/// The approver to build the session with (`EngineConfig::approver`) and
/// the inbox [`crate::run`] answers it from.
pub fn approver() -> (SharedApprover, ApprovalInbox) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        SharedApprover(Arc::new(TuiApprover { tx })),
        ApprovalInbox { rx },
    )
}

/// One ask on screen.
pub(crate) struct Dialog {
    pub(crate) request: ApprovalRequest,
    pub(crate) reply: Option<oneshot::Sender<Approval>>,
    /// The subagent asking; None: the session itself.
    pub(crate) agent: Option<AskingAgent>,
    /// A plan or questions get a dialog of their own (`crate::plan_dialog`).
    special: Option<Special>,
    /// The permission mode an approved plan switches to.
    pub(crate) next_mode: Option<orbit_permissions::PermissionMode>,
    selected: usize,
    /// Typing the reason for "No".
    reason: Option<String>,
    /// The reason the person gave with "No" (for the note).
    said: Option<String>,
    /// Esc answered: the turn stops too.
    stop_turn: bool,
    /// An edit's file before and after the proposed change, until shown.
    change: Option<(String, String)>,
}

impl Dialog {
    pub(crate) fn new(request: ApprovalRequest, reply: Option<oneshot::Sender<Approval>>) -> Self {
        // The file is read while the call waits for this answer, so the
        // diff is against what the edit will change.
        // A file not shown (a FIFO, a device, too large) gives no diff.
        let change = match file_before_edit(&request.input) {
            Before::Unknown => None,
            Before::Absent => edit_texts(&request.input, None),
            Before::Text(file) => edit_texts(&request.input, Some(&file)),
        };
        let special = Special::for_request(&request);
        Self {
            request,
            reply,
            agent: None,
            special,
            next_mode: None,
            selected: YES,
            reason: None,
            said: None,
            stop_turn: false,
            change,
        }
    }

    /// The three rows' texts, and whether each can be chosen.
    fn options(&self) -> [(String, bool); OPTION_COUNT] {
        let always = match &self.request.suggested_rule {
            Some(rule) => (format!("Yes, and don't ask again for {rule}"), true),
            None => (
                "Yes, and don't ask again (no rule can cover this call)".to_string(),
                false,
            ),
        };
        [
            ("Yes".to_string(), true),
            always,
            (
                "No, and tell the model what to do differently (esc)".to_string(),
                true,
            ),
        ]
    }

    /// Whether the answer given also stops the turn (Esc, as in Claude
    /// Code).
    pub(crate) fn stops_turn(&self) -> bool {
        self.stop_turn
    }

    /// The line the transcript keeps about `answer`, if any.
    pub(crate) fn note(&self, answer: &Approval) -> Option<(String, Tone)> {
        let name = &self.request.tool_name;
        match answer {
            Approval::Allow | Approval::AllowWithInput { .. } => None,
            Approval::AllowAlways { rule } => Some((
                format!(
                    "  Always allowed: {rule} (saved for this project in your orbit data directory)"
                ),
                Tone::Dim,
            )),
            Approval::Deny { reason } => {
                let text = if self.special.is_some() {
                    match reason {
                        Some(r) => format!("  Denied {name}: {r}"),
                        None => format!("  Denied {name}"),
                    }
                } else if self.stop_turn {
                    format!("  Denied {name} and stopped")
                } else {
                    match &self.said {
                        Some(said) => format!("  Denied {name}: {said}"),
                        None => format!("  Denied {name}"),
                    }
                };
                Some((text, Tone::Error))
            }
        }
    }

    /// The proposed change of an edit, once: a header and the coloured
    /// diff of the file's lines (the screen prints it right above the
    /// dialog, whose live region is only a few rows).
    pub(crate) fn take_preview(&mut self, theme: Theme) -> Option<Vec<Line<'static>>> {
        if let Some(Special::Plan(plan)) = &mut self.special {
            return plan.take_preview(theme);
        }
        let (before, after) = self.change.take()?;
        let (diff, added, removed) = diff_lines(&before, &after, DIFF_MAX_LINES, theme);
        let what = if self.request.subject.is_empty() {
            subject(&self.request.input)
        } else {
            self.request.subject.clone()
        };
        let mut out = vec![Line::from(vec![
            Span::styled("? ", theme.warn()),
            Span::styled(format!("Proposed change to {what}"), theme.bold()),
            Span::styled(format!(" (+{added} -{removed})"), theme.dim()),
        ])];
        out.extend(diff);
        Some(out)
    }

    /// The answer a key gives, if it gives one.
    pub(crate) fn handle_key(&mut self, key: KeyEvent) -> Option<Approval> {
        match &mut self.special {
            Some(Special::Plan(plan)) => {
                let (answer, mode) = plan.handle_key(key)?;
                self.next_mode = mode;
                return Some(answer);
            }
            Some(Special::Questions(questions)) => return questions.handle_key(key),
            None => {}
        }
        if let Some(reason) = &mut self.reason {
            match key.code {
                KeyCode::Enter => {
                    let said = reason.trim().to_string();
                    let answer = rejected(Some(&said));
                    self.said = (!said.is_empty()).then_some(said);
                    return Some(answer);
                }
                KeyCode::Esc => return Some(self.stop()),
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) => reason.push(c),
                _ => {}
            }
            return None;
        }
        let always = self.request.suggested_rule.is_some();
        let pick = match key.code {
            KeyCode::Up => {
                self.selected = self.step(OPTION_COUNT - 1);
                return None;
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = self.step(1);
                return None;
            }
            KeyCode::Esc => return Some(self.stop()),
            KeyCode::Enter => self.selected,
            KeyCode::Char('y' | '1') => YES,
            KeyCode::Char('a' | '2') if always => ALWAYS,
            KeyCode::Char('n' | '3') => NO,
            _ => return None,
        };
        match (pick, &self.request.suggested_rule) {
            (YES, _) => Some(Approval::Allow),
            (ALWAYS, Some(rule)) => Some(Approval::AllowAlways { rule: rule.clone() }),
            _ => {
                self.selected = NO;
                self.reason = Some(String::new());
                None
            }
        }
    }

    /// Esc: no, and the turn stops.
    fn stop(&mut self) -> Approval {
        self.stop_turn = true;
        rejected(None)
    }

    /// The row `by` steps down (wrapping), past a row that cannot be chosen.
    fn step(&self, by: usize) -> usize {
        let options = self.options();
        let mut at = self.selected;
        loop {
            at = (at + by) % OPTION_COUNT;
            if options[at].1 || at == self.selected {
                return at;
            }
        }
    }

    /// The dialog's rows.
    pub(crate) fn lines(&self, theme: Theme) -> Vec<Line<'static>> {
        match &self.special {
            Some(Special::Plan(plan)) => return plan.lines(theme),
            Some(Special::Questions(questions)) => return questions.lines(theme),
            None => {}
        }
        let r = &self.request;
        let what = if r.subject.is_empty() {
            subject(&r.input)
        } else {
            r.subject.clone()
        };
        let mut out = vec![
            Line::from(vec![
                Span::styled("? ", theme.warn()),
                Span::styled(format!("Allow {}", r.tool_name), theme.bold()),
                Span::styled(format!("({what})"), theme.plain()),
                Span::styled("?", theme.bold()),
            ]),
            Line::from(Span::styled(
                match &self.agent {
                    Some(a) => format!(
                        "  Asked by subagent {} ({}) · {}",
                        a.agent_type, a.agent_id, r.reason
                    ),
                    None => format!("  {}", r.reason),
                },
                theme.dim(),
            )),
        ];

        for (i, (option, enabled)) in self.options().into_iter().enumerate() {
            let text = format!("  {}. {option}", i + 1);
            let style = if !enabled {
                theme.dim()
            } else if i == self.selected {
                theme.selected()
            } else {
                theme.plain()
            };
            out.push(Line::from(Span::styled(text, style)));
        }
        if let Some(reason) = &self.reason {
            out.push(Line::from(vec![
                Span::styled("  Reason: ", theme.bold()),
                Span::raw(format!("{reason}▏")),
            ]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
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
}
