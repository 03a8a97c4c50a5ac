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
//! keep the policy's reason), with the reason when one was typed; a
//! subagent's call gets Claude Code's subagent text (try another way).
//! Esc denies and stops the turn ([`Dialog::stops_turn`]).

use std::sync::Arc;

use async_trait::async_trait;
use crossterm::event::{KeyCode, KeyEvent};
use orbit_engine::{Approval, ApprovalRequest, Approver, AskingAgent, SharedApprover};
use ratatui::text::{Line, Span};
use tokio::sync::{mpsc, oneshot};

use crate::diff::{DIFF_MAX_LINES, diff_lines, edit_texts};
use crate::plan_dialog::Special;
use crate::theme::Theme;
use crate::theme::Tone;
use crate::tools::{Before, file_before_edit, subject};
use crate::typed_line::{self, Typed};

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

/// What a subagent is told when the person says no to its call (Claude
/// Code's text: it goes on another way rather than waiting).
pub(crate) const SUBAGENT_REJECT_MESSAGE: &str = "Permission for this tool use was denied. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). Try a different approach or report the limitation to complete your task.";

/// The start of what a subagent is told when the person says no and why
/// (Claude Code's text); the reason follows.
pub(crate) const SUBAGENT_REJECT_MESSAGE_WITH_REASON_PREFIX: &str = "Permission for this tool use was denied. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user said:\n";

/// The person's "no", with what they said (trimmed; empty is nothing).
pub(crate) fn rejected(said: Option<&str>) -> Approval {
    rejected_for(false, said)
}

/// [`rejected`], in a subagent's words when `subagent`.
fn rejected_for(subagent: bool, said: Option<&str>) -> Approval {
    let said = said.map(str::trim).filter(|s| !s.is_empty());
    let (plain, prefix) = if subagent {
        (
            SUBAGENT_REJECT_MESSAGE,
            SUBAGENT_REJECT_MESSAGE_WITH_REASON_PREFIX,
        )
    } else {
        (REJECT_MESSAGE, REJECT_MESSAGE_WITH_REASON_PREFIX)
    };
    Approval::Deny {
        reason: Some(match said {
            Some(said) => format!("{prefix}{said}"),
            None => plain.to_string(),
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
            match typed_line::edit(reason, key.code) {
                Typed::Enter => {
                    let said = reason.trim().to_string();
                    let answer = rejected_for(self.agent.is_some(), Some(&said));
                    self.said = (!said.is_empty()).then_some(said);
                    return Some(answer);
                }
                Typed::Esc => return Some(self.stop()),
                Typed::Editing => {}
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
        // The policy's generic reason is worded for the model ("orbit
        // requested permissions to use Bash, but you haven't granted it
        // yet."); the person is asked the question Claude Code asks.
        let why = if r.reason == orbit_tool::texts::permissions::not_granted(&r.tool_name) {
            "Do you want to proceed?".to_string()
        } else {
            r.reason.clone()
        };
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
                        "  Asked by subagent {} ({}) · {why}",
                        a.agent_type, a.agent_id
                    ),
                    None => format!("  {why}"),
                },
                theme.dim(),
            )),
        ];

        for (i, (option, enabled)) in self.options().into_iter().enumerate() {
            let text = format!("  {}. {option}", i + 1);
            let style = if enabled {
                theme.choice(i == self.selected)
            } else {
                theme.dim()
            };
            out.push(Line::from(Span::styled(text, style)));
        }
        if let Some(reason) = &self.reason {
            out.push(typed_line::row(theme, "  Reason: ", reason));
        }
        out
    }
}

#[cfg(test)]
mod tests;
