//! A resumed session's history, shown again in the scrollback
//! (`orbit --continue`, `--resume ID`, `/resume`, `/continue`): the
//! person's prompts as they typed them, the answers as Markdown, each tool
//! call as its one line. What orbit itself put into user messages is shown
//! as what it is, collapsed — the summary a compaction left ("This session
//! is being continued…") and `<system-reminder>` blocks (attached files,
//! plan mode, memory) — one dim line each, the text on Ctrl-O
//! ([`Collapsed`], kept by the front). The last line says the session was
//! resumed and how many messages it holds.
//!
//! Data flow: `engine.messages()` → [`replay`] → lines on the [`Screen`]
//! and collapsed texts on the [`Collapsed`] list.

use std::collections::{HashMap, VecDeque};

use orbit_engine::QueryEngine;
use orbit_protocol::{ContentBlock, Message, Role, ToolResultBlock};
use ratatui::text::{Line, Span};

use crate::answer::Answer;
use crate::screen::{Screen, Tone};
use crate::theme::Theme;
use crate::tools::{Before, ToolCall, call_line, result_text, stored_summary};
use crate::wrap::truncate;

/// The most messages shown again (the newest); older ones are counted.
const REPLAY_MESSAGES_MAX: usize = 200;
/// Collapsed texts Ctrl-O can show (the newest).
const COLLAPSED_MAX: usize = 8;
/// Longest label of a collapsed text, in chars.
const LABEL_MAX_CHARS: usize = 60;
/// The opening and closing tag of a system reminder.
const REMINDER_OPEN: &str = "<system-reminder>";
const REMINDER_CLOSE: &str = "</system-reminder>";

/// Texts shown collapsed, (label, text), newest last; Ctrl-O prints them.
#[derive(Debug, Default)]
pub(crate) struct Collapsed {
    items: VecDeque<(String, String)>,
}

impl Collapsed {
    fn push(&mut self, label: String, text: String) {
        self.items.push_back((label, text));
        while self.items.len() > COLLAPSED_MAX {
            self.items.pop_front();
        }
    }

    /// Forgets them (another session was opened).
    pub(crate) fn clear(&mut self) {
        self.items.clear();
    }

    /// Ctrl-O turned full output on: each text, dim and indented.
    pub(crate) fn expand(&self, screen: &mut Screen) {
        for (label, text) in &self.items {
            screen.note(&format!("  ⎿ {label}"), Tone::Dim);
            screen.full_lines(&text.lines().collect::<Vec<_>>());
        }
    }
}

/// One piece of a user text block.
#[derive(Debug, PartialEq, Eq)]
enum Part<'a> {
    /// What the person typed.
    Prompt(&'a str),
    /// A compaction's summary (the text between `<summary>` tags).
    Summary(&'a str),
    /// A `<system-reminder>`'s text.
    Reminder(&'a str),
}

/// The start of the message a compaction leaves (the engine's own text).
fn summary_prefix() -> String {
    let probe = orbit_tool::texts::compact::compact_summary_message("");
    match probe.find("<summary>") {
        Some(at) => probe[..at].trim_end().to_string(),
        None => probe,
    }
}

/// `text` split into prompt, summary and reminder pieces.
fn parts<'a>(text: &'a str, prefix: &str) -> Vec<Part<'a>> {
    if !prefix.is_empty() && text.starts_with(prefix) {
        let inner = text
            .split_once("<summary>")
            .and_then(|(_, rest)| rest.rsplit_once("</summary>"))
            .map_or(text, |(summary, _)| summary);
        return vec![Part::Summary(inner.trim())];
    }
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(REMINDER_OPEN) {
        let before = rest[..open].trim();
        if !before.is_empty() {
            out.push(Part::Prompt(before));
        }
        let after = &rest[open + REMINDER_OPEN.len()..];
        let (inner, next) = after.split_once(REMINDER_CLOSE).unwrap_or((after, ""));
        out.push(Part::Reminder(inner.trim()));
        rest = next;
    }
    let rest = rest.trim();
    if !rest.is_empty() {
        out.push(Part::Prompt(rest));
    }
    out
}

/// Shows `engine`'s history again and the "Resumed session" line; sets
/// the status line's context use from the session.
pub(crate) fn replay(
    engine: &QueryEngine,
    screen: &mut Screen,
    collapsed: &mut Collapsed,
    theme: Theme,
) {
    let messages = engine.messages();
    let start = messages.len().saturating_sub(REPLAY_MESSAGES_MAX);
    if start > 0 {
        screen.note(&format!("… {start} earlier messages not shown"), Tone::Dim);
    }
    let mut shown = Shown {
        screen,
        collapsed,
        theme,
        prefix: summary_prefix(),
        calls: HashMap::new(),
    };
    for message in &messages[start..] {
        shown.message(message);
    }
    let Shown { screen, .. } = shown;
    screen.status_mut().context_tokens = engine.context_usage().total_tokens;
    screen.note(
        &format!(
            "Resumed session {} ({} messages)",
            engine.session_id(),
            messages.len()
        ),
        Tone::Dim,
    );
}

/// The replay's state: the screen, and tool calls waiting for their result.
struct Shown<'a> {
    screen: &'a mut Screen,
    collapsed: &'a mut Collapsed,
    theme: Theme,
    prefix: String,
    calls: HashMap<String, ToolCall>,
}

impl Shown<'_> {
    fn message(&mut self, message: &Message) {
        match message.role {
            Role::User => self.user(&message.content),
            Role::Assistant => self.assistant(&message.content),
        }
    }

    fn user(&mut self, blocks: &[ContentBlock]) {
        for block in blocks {
            match block {
                ContentBlock::Text { text, .. } => {
                    for part in parts(text, &self.prefix) {
                        self.part(part);
                    }
                }
                ContentBlock::ToolResult(result) => self.result(result),
                ContentBlock::Image { .. } => self.screen.note("  ⎿ [image]", Tone::Dim),
                _ => {}
            }
        }
    }

    fn part(&mut self, part: Part<'_>) {
        let (label, text) = match part {
            Part::Prompt(text) => {
                self.screen.push_line(Line::from(""));
                self.screen.user_prompt(text);
                return;
            }
            Part::Summary(text) => ("compacted summary".to_string(), text),
            Part::Reminder(text) => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let label = format!("system reminder: {}", first.trim());
                (truncate(&label, LABEL_MAX_CHARS), text)
            }
        };
        let line = format!("  ⎿ {label} (Ctrl-O to expand)");
        self.screen.note(&line, Tone::Dim);
        self.collapsed.push(label, text.to_string());
    }

    fn assistant(&mut self, blocks: &[ContentBlock]) {
        for block in blocks {
            match block {
                ContentBlock::Text { text, .. } => {
                    let mut answer = Answer::new(self.theme);
                    let mut lines = answer.push(text);
                    lines.extend(answer.finish());
                    for line in lines {
                        self.screen.push_line(line);
                    }
                }
                ContentBlock::ToolUse(call) => {
                    let shown = ToolCall {
                        name: call.name.clone(),
                        input: call.input.clone(),
                        before: Before::Unknown,
                        running: false,
                    };
                    self.calls.insert(call.id.clone(), shown);
                }
                _ => {}
            }
        }
    }

    /// A call's line with a short summary of its result.
    fn result(&mut self, result: &ToolResultBlock) {
        let Some(call) = self.calls.remove(&result.tool_use_id) else {
            return;
        };
        let failed = result.is_error();
        let (marker, style) = if failed {
            (Span::styled("● ", self.theme.error()), self.theme.error())
        } else {
            (Span::styled("● ", self.theme.ok()), self.theme.dim())
        };
        let summary = stored_summary(&result_text(result), failed);
        let mut line = call_line(&call, marker, self.theme);
        line.spans
            .push(Span::styled(format!(" ⎿ {summary}"), style));
        self.screen.push_line(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compaction's message is its summary; reminders are split from the
    /// prompt around them.
    #[test]
    fn internal_texts_are_told_from_prompts() {
        let prefix = summary_prefix();
        let summary = orbit_tool::texts::compact::compact_summary_message("we fixed the test");
        assert_eq!(
            parts(&summary, &prefix),
            vec![Part::Summary("we fixed the test")]
        );
        let text = "<system-reminder>\nplan mode\n</system-reminder>\n\nfix it\n\n<system-reminder>Called the Read tool</system-reminder>";
        assert_eq!(
            parts(text, &prefix),
            vec![
                Part::Reminder("plan mode"),
                Part::Prompt("fix it"),
                Part::Reminder("Called the Read tool"),
            ]
        );
        assert_eq!(
            parts("just a prompt", &prefix),
            vec![Part::Prompt("just a prompt")]
        );
    }
}
