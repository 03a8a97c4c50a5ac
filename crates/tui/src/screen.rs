//! [`Screen`]: everything the UI shows, as a value. Engine events, asks
//! and keys change it; [`Screen::draw`] (`draw`) puts it on a ratatui terminal:
//! lines that are final (a user prompt, a completed markdown line, a
//! finished tool call with its diff, a todo list) are wrapped and inserted
//! into the scrollback above the inline viewport once; the viewport (the
//! live region) holds only what still changes — the unfinished answer line,
//! running tools, the permission dialog or a picker, the input box and the
//! status line. ratatui diffs each frame against the last, so a streamed
//! token rewrites a few cells, not the screen.

use std::collections::VecDeque;
use std::time::Instant;

use orbit_engine::{Approval, ApprovalRequest};
use orbit_protocol::events::TodoStatus;
use orbit_protocol::{ContentBlock, EngineEvent, StreamEvent};
use ratatui::text::{Line, Span};

use orbit_composer::{Composer, ComposerConfig};

use crate::answer::Answer;
use crate::dialog::Dialog;
use crate::status::StatusInfo;
use crate::subagents::Subagents;
use crate::theme::Theme;
pub(crate) use crate::theme::Tone;
use crate::tools::{ToolCall, call_line, finished_lines, full_output, result_text};

mod draw;
mod jobs;
mod reprint;

/// Tool calls whose full output Ctrl-O shows.
const RECENT_TOOL_OUTPUTS: usize = 3;
/// Lines of one tool's output Ctrl-O shows.
const FULL_OUTPUT_MAX_LINES: usize = 200;

/// A choice list in the live region (`/resume`, the folder trust question).
pub(crate) struct Picker {
    pub(crate) title: String,
    /// (value, label) per row.
    pub(crate) items: Vec<(String, String)>,
    pub(crate) selected: usize,
    pub(crate) kind: PickerKind,
}

/// What a picker's answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PickerKind {
    /// Opens the chosen session.
    Resume,
    /// Answers "Trust this folder?".
    Trust,
    /// Runs `/rewind VALUE` (`crate::rewind`; an empty value does nothing).
    Rewind,
}

/// The UI's state; see the module docs.
pub struct Screen {
    theme: Theme,
    /// Final lines not yet in the scrollback.
    history: Vec<Line<'static>>,
    answer: Answer,
    thinking: String,
    tools: Vec<(String, ToolCall)>,
    /// The running `Agent` calls' subagents (their live lines).
    subagents: Subagents,
    /// The last calls and the lines Ctrl-O shows of their output.
    recent: VecDeque<(ToolCall, Vec<String>)>,
    full_output: bool,
    pub(crate) composer: Composer,
    dialogs: VecDeque<Dialog>,
    pub(crate) picker: Option<Picker>,
    status: StatusInfo,
    /// The `statusLine` command's latest output (replaces the built-in
    /// line's left part).
    custom_status: Option<String>,
    busy: Option<Instant>,
    /// What the running job is when it is not a turn ("Compacting
    /// conversation", and a detail such as the tokens it summarizes).
    activity: Option<(String, String)>,
    /// The last lines put into the scrollback, for a reprint after a
    /// resize the terminal's reflow spoilt (`reprint`).
    shown: VecDeque<Line<'static>>,
    /// The last `/compact`'s summary (Ctrl-O shows it).
    summary: Option<String>,
    /// A file the running turn is asked to write (`/init`'s CLAUDE.md)
    /// and its modification time before; checked when the turn ends.
    expected_write: Option<(std::path::PathBuf, Option<std::time::SystemTime>)>,
    hint: Option<String>,
    queued: usize,
}

impl Screen {
    /// An empty screen for a session described by `status`.
    pub fn new(status: StatusInfo, theme: Theme, composer: ComposerConfig) -> Self {
        let mut composer = Composer::new(composer);
        composer.set_color(theme.has_color());
        let mut screen = Self {
            theme,
            history: Vec::new(),
            answer: Answer::new(theme),
            thinking: String::new(),
            tools: Vec::new(),
            subagents: Subagents::default(),
            recent: VecDeque::new(),
            full_output: false,
            composer,
            dialogs: VecDeque::new(),
            picker: None,
            status,
            custom_status: None,
            busy: None,
            activity: None,
            shown: VecDeque::new(),
            summary: None,
            expected_write: None,
            hint: None,
            queued: 0,
        };
        screen.composer_warnings();
        screen
    }

    /// The input box's warnings (its history file), once each.
    pub(crate) fn composer_warnings(&mut self) {
        while let Some(warning) = self.composer.take_warning() {
            self.note(&warning, Tone::Error);
        }
    }

    /// The status line's facts (the app updates cost, mode, model).
    pub fn status_mut(&mut self) -> &mut StatusInfo {
        &mut self.status
    }

    /// The status line's facts.
    pub(crate) fn status(&self) -> &StatusInfo {
        &self.status
    }

    /// The `statusLine` command's output, shown instead of the built-in
    /// line's model and directory.
    pub(crate) fn set_custom_status(&mut self, text: String) {
        self.custom_status = Some(text);
    }

    /// The input box.
    pub fn composer_mut(&mut self) -> &mut Composer {
        &mut self.composer
    }

    /// A line for the scrollback.
    pub fn push_line(&mut self, line: Line<'static>) {
        self.history.push(line);
    }

    /// Plain text lines for the scrollback, in `style`'s tone: `dim`, `error`, or plain.
    pub(crate) fn note(&mut self, text: &str, tone: Tone) {
        let style = match tone {
            Tone::Dim => self.theme.dim(),
            Tone::Error => self.theme.error(),
            Tone::Plain => self.theme.plain(),
        };
        for line in text.lines() {
            self.history
                .push(Line::from(Span::styled(line.to_string(), style)));
        }
    }

    /// The person's prompt, as it goes into the scrollback: a large paste
    /// as the placeholder the input box showed (the model gets it whole).
    pub fn user_prompt(&mut self, text: &str) {
        let shown = self.composer.shown_form(text);
        for (i, line) in shown.lines().enumerate() {
            let prefix = if i == 0 { "> " } else { "  " };
            self.history.push(Line::from(Span::styled(
                format!("{prefix}{line}"),
                self.theme.user(),
            )));
        }
    }

    /// A turn (or compaction, or shell command) runs from now until [`Screen::set_idle`].
    pub fn set_busy(&mut self) {
        self.busy = Some(Instant::now());
        self.hint = None;
    }

    /// Nothing runs any more.
    pub fn set_idle(&mut self) {
        self.busy = None;
        self.activity = None;
        self.check_expected_write();
        for line in self.answer.finish() {
            self.history.push(line);
        }
        self.tools.clear();
        self.subagents.clear();
    }

    pub(crate) fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    pub(crate) fn set_hint(&mut self, hint: Option<String>) {
        self.hint = hint;
    }

    pub(crate) fn set_queued(&mut self, n: usize) {
        self.queued = n;
    }

    /// Shows an ask (the first one waiting is on screen; answers go to `reply`).
    pub fn ask(&mut self, request: ApprovalRequest) {
        self.dialogs.push_back(Dialog::new(request, None));
        self.preview_front();
    }

    /// Shows an ask from the engine (a subagent's names the subagent).
    pub(crate) fn ask_with_reply(&mut self, ask: crate::dialog::Ask) {
        let mut dialog = Dialog::new(ask.request, Some(ask.reply));
        dialog.agent = ask.agent;
        self.dialogs.push_back(dialog);
        self.preview_front();
    }

    /// The dialog on screen's proposed change (an edit's diff), printed
    /// once right above it: the live region is too short to hold it.
    fn preview_front(&mut self) {
        let theme = self.theme;
        if let Some(lines) = self.dialogs.front_mut().and_then(|d| d.take_preview(theme)) {
            self.history.extend(lines);
        }
    }

    pub(crate) fn has_dialog(&self) -> bool {
        !self.dialogs.is_empty()
    }

    /// A key for the dialog on screen; an answer is sent and noted. True
    /// when the answer also stops the turn (Esc).
    pub(crate) fn dialog_key(
        &mut self,
        key: crossterm::event::KeyEvent,
        policy: &orbit_permissions::Policy,
    ) -> bool {
        let Some(dialog) = self.dialogs.front_mut() else {
            return false;
        };
        let Some(answer) = dialog.handle_key(key) else {
            return false;
        };
        let Some(mut dialog) = self.dialogs.pop_front() else {
            return false;
        };
        if let Some((text, tone)) = dialog.note(&answer) {
            self.note(&text, tone);
        }
        // An approved plan's next mode is in force before its call runs.
        if let Some(mode) = dialog.next_mode.filter(|_| answer == Approval::Allow) {
            policy.set_mode(mode);
            self.status_mut().mode = mode;
        }
        if let Some(reply) = dialog.reply.take() {
            let _ = reply.send(answer);
        }
        self.preview_front();
        dialog.stops_turn()
    }

    /// Every open ask is answered "no" (the turn was interrupted).
    pub(crate) fn deny_all(&mut self) {
        for mut dialog in self.dialogs.drain(..) {
            if let Some(reply) = dialog.reply.take() {
                let _ = reply.send(crate::dialog::rejected(None));
            }
        }
    }

    /// Ctrl-O: full tool output on or off; turning it on prints the last
    /// calls' outputs.
    pub fn toggle_full_output(&mut self) {
        self.full_output = !self.full_output;
        if !self.full_output {
            self.note("Full tool output off (Ctrl-O to show it)", Tone::Dim);
            return;
        }
        self.note("Full tool output on (Ctrl-O to hide it)", Tone::Dim);
        self.summary_lines();
        let recent: Vec<(ToolCall, Vec<String>)> = self.recent.iter().cloned().collect();
        for (call, output) in recent {
            self.full_output_lines(&call, &output);
        }
    }

    fn full_output_lines(&mut self, call: &ToolCall, lines: &[String]) {
        let marker = Span::styled("  ⎿ ", self.theme.dim());
        self.history.push(call_line(call, marker, self.theme));
        self.full_lines(lines);
    }

    /// The lines of a text Ctrl-O shows in full, under its `⎿` line: dim
    /// and indented, at most [`FULL_OUTPUT_MAX_LINES`], then how many more.
    pub(crate) fn full_lines(&mut self, lines: &[impl AsRef<str>]) {
        for line in lines.iter().take(FULL_OUTPUT_MAX_LINES) {
            self.note(&format!("     {}", line.as_ref()), Tone::Dim);
        }
        if lines.len() > FULL_OUTPUT_MAX_LINES {
            let more = lines.len() - FULL_OUTPUT_MAX_LINES;
            self.note(&format!("     … {more} more lines"), Tone::Dim);
        }
    }

    /// One engine event.
    pub fn on_event(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::Stream(stream) => self.on_stream(stream),
            EngineEvent::AssistantMessage { usage, .. } => {
                self.status.context_tokens = usage.input_tokens
                    + usage.cache_read_input_tokens
                    + usage.cache_creation_input_tokens
                    + usage.output_tokens;
            }
            EngineEvent::ToolStarted { tool_use_id, name } => {
                match self.tools.iter_mut().find(|(id, _)| id == tool_use_id) {
                    Some((_, call)) => call.running = true,
                    None => {
                        let mut call = ToolCall::new(name.clone(), serde_json::json!({}));
                        call.running = true;
                        self.tools.push((tool_use_id.clone(), call));
                    }
                }
            }
            EngineEvent::ToolProgress { tool_use_id, data } => {
                self.subagents.on_progress(tool_use_id, data);
            }
            EngineEvent::ToolResult { result, detail } => {
                self.subagents.finish(&result.tool_use_id);
                let at = self
                    .tools
                    .iter()
                    .position(|(id, _)| *id == result.tool_use_id);
                let call = match at {
                    Some(at) => self.tools.remove(at).1,
                    None => ToolCall::new("Tool".to_string(), serde_json::json!({})),
                };
                for line in self.answer.finish() {
                    self.history.push(line);
                }
                let detail = detail.as_ref();
                self.history
                    .extend(finished_lines(&call, result, detail, self.theme));
                let output = full_output(&result_text(result), detail);
                if self.full_output {
                    self.full_output_lines(&call, &output);
                }
                self.recent.push_back((call, output));
                while self.recent.len() > RECENT_TOOL_OUTPUTS {
                    self.recent.pop_front();
                }
            }
            EngineEvent::TodoUpdate { todos } => {
                self.history
                    .push(Line::from(Span::styled("● Todos", self.theme.bold())));
                for todo in todos {
                    let (mark, text, style) = match todo.status {
                        TodoStatus::Completed => ("☒", &todo.content, self.theme.dim()),
                        TodoStatus::InProgress => ("◐", &todo.active_form, self.theme.bold()),
                        TodoStatus::Pending => ("☐", &todo.content, self.theme.plain()),
                    };
                    self.history
                        .push(Line::from(Span::styled(format!("  {mark} {text}"), style)));
                }
            }
            EngineEvent::CompactBoundary {
                pre_tokens,
                post_tokens,
                ..
            } => {
                self.status.context_tokens = *post_tokens;
                self.note(
                    &format!("✻ Conversation compacted ({pre_tokens} → {post_tokens} tokens)"),
                    Tone::Dim,
                );
            }
            EngineEvent::ModelFallback {
                original_model,
                fallback_model,
            } => self.note(
                &format!("  ⎿ {original_model} is overloaded: switched to {fallback_model}"),
                Tone::Error,
            ),
            EngineEvent::Result(result) => {
                for line in self.answer.finish() {
                    self.history.push(line);
                }
                if result.interrupted {
                    self.note("  ⎿ Interrupted", Tone::Error);
                } else {
                    for error in &result.errors {
                        self.note(&format!("  ⎿ {error}"), Tone::Error);
                    }
                }
                self.history.push(Line::from(""));
            }
            EngineEvent::RequestStart { .. }
            | EngineEvent::UserMessage { .. }
            | EngineEvent::HookResponse(_) => {}
        }
    }

    fn on_stream(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta { text, .. } => {
                let lines = self.answer.push(text);
                self.history.extend(lines);
            }
            StreamEvent::ThinkingDelta { thinking, .. } => {
                self.thinking.push_str(thinking);
                while let Some(at) = self.thinking.find('\n') {
                    let line: String = self.thinking.drain(..=at).collect();
                    self.push_thinking(line.trim_end());
                }
            }
            StreamEvent::ContentBlockComplete { block, .. } => match block {
                ContentBlock::Text { .. } => {
                    let lines = self.answer.finish();
                    self.history.extend(lines);
                }
                ContentBlock::Thinking { .. } => {
                    let rest = std::mem::take(&mut self.thinking);
                    if !rest.is_empty() {
                        self.push_thinking(&rest);
                    }
                }
                ContentBlock::ToolUse(tool_use) => self.tools.push((
                    tool_use.id.clone(),
                    ToolCall::new(tool_use.name.clone(), tool_use.input.clone()),
                )),
                _ => {}
            },
            StreamEvent::Retry {
                attempt,
                max_retries,
                message,
                ..
            } => {
                self.hint = Some(format!("retrying ({attempt}/{max_retries}): {message}"));
            }
            _ => {}
        }
    }

    fn push_thinking(&mut self, text: &str) {
        self.history.push(Line::from(Span::styled(
            format!("∴ {text}"),
            self.theme.thinking(),
        )));
    }
}
