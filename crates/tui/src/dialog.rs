//! The permission dialog and the [`Approver`] behind it.
//!
//! Data flow: the engine's orchestrator awaits [`TuiApprover::approve`],
//! which sends the request with a one-shot reply channel to the UI
//! ([`ApprovalInbox`]); the UI queues a [`Dialog`] per request, shows the
//! first, and its keys produce an [`Approval`] that goes back through the
//! reply channel. "No" asks for an optional reason, which the model is
//! told. A UI that is gone answers deny. A subagent's ask
//! ([`Approver::approve_for`]) names the subagent in the dialog.

use std::sync::Arc;

use async_trait::async_trait;
use crossterm::event::{KeyCode, KeyEvent};
use orbit_engine::{Approval, ApprovalRequest, Approver, AskingAgent, SharedApprover};
use ratatui::text::{Line, Span};
use tokio::sync::{mpsc, oneshot};

use crate::diff::{DIFF_MAX_LINES, diff_lines, edit_texts};
use crate::plan_dialog::Special;
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
            selected: 0,
            reason: None,
            change,
        }
    }

    fn options(&self) -> Vec<String> {
        let mut out = vec!["Yes".to_string()];
        if let Some(rule) = &self.request.suggested_rule {
            out.push(format!(
                "Yes, and always allow {rule} (saved to .orbit/settings.local.json)"
            ));
        }
        out.push("No, and tell the model why (Esc: no reason)".to_string());
        out
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
                    let reason = reason.trim().to_string();
                    return Some(Approval::Deny {
                        reason: (!reason.is_empty()).then_some(reason),
                    });
                }
                KeyCode::Esc => return Some(Approval::Deny { reason: None }),
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) => reason.push(c),
                _ => {}
            }
            return None;
        }
        let count = self.options().len();
        let always = self.request.suggested_rule.is_some();
        let pick = match key.code {
            KeyCode::Up => {
                self.selected = self.selected.checked_sub(1).unwrap_or(count - 1);
                return None;
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % count;
                return None;
            }
            KeyCode::Esc => return Some(Approval::Deny { reason: None }),
            KeyCode::Enter => self.selected,
            KeyCode::Char('y' | '1') => 0,
            KeyCode::Char('a' | '2') if always => 1,
            KeyCode::Char('n') => count - 1,
            KeyCode::Char(c) if c.to_digit(10) == Some(u32::try_from(count).unwrap_or(0)) => {
                count - 1
            }
            _ => return None,
        };
        match (pick, &self.request.suggested_rule) {
            (0, _) => Some(Approval::Allow),
            (1, Some(rule)) => Some(Approval::AllowAlways { rule: rule.clone() }),
            _ => {
                self.selected = count - 1;
                self.reason = Some(String::new());
                None
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

        for (i, option) in self.options().into_iter().enumerate() {
            let text = format!("  {}. {option}", i + 1);
            let style = if i == self.selected {
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
        use KeyCode::{Char, Down, Enter, Esc};
        let deny = |r: Option<&str>| Approval::Deny {
            reason: r.map(str::to_string),
        };
        let always = Approval::AllowAlways {
            rule: "Bash(rm:*)".into(),
        };
        let cases: Vec<(Option<&str>, Vec<KeyCode>, Approval)> = vec![
            (Some("Bash(rm:*)"), vec![Enter], Approval::Allow),
            (Some("Bash(rm:*)"), vec![Char('2')], always.clone()),
            (Some("Bash(rm:*)"), vec![Down, Enter], always),
            (
                None,
                vec![Char('2'), Char('n'), Char('o'), Enter],
                deny(Some("no")),
            ),
            (Some("Bash(rm:*)"), vec![Char('n'), Enter], deny(None)),
            (None, vec![Esc], deny(None)),
        ];
        for (rule, input, want) in cases {
            let mut dialog = Dialog::new(request(rule), None);
            assert_eq!(keys(&mut dialog, &input), Some(want), "{input:?}");
        }
    }
}
