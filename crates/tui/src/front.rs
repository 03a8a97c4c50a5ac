//! [`Front`]: the part of the app keys change (the screen, the work
//! queue, exit and interrupt flags), everything but the engine. Keys that
//! act at once (Esc, Ctrl-C, Ctrl-D, Shift-Tab, Ctrl-O, dialog and picker
//! keys) are handled here (Ctrl-O also expands a resumed session's
//! collapsed texts, `crate::replay`); submissions become [`Work`] queued for the app,
//! which runs it when nothing runs.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use orbit_composer::{ComposerEvent, Submission};
use orbit_permissions::{PermissionMode, Policy};

use crate::action::Work;
use crate::replay::Collapsed;
use crate::screen::{PickerKind, Screen, Tone};
use crate::session::SessionChoice;
use crate::submit::append_note;

/// Two Ctrl-C within this long (on an empty input) exit.
const DOUBLE_CTRL_C_MS: u64 = 1_000;
/// Two Esc within this long (on an empty input, nothing running) open
/// the `/rewind` picker.
const DOUBLE_ESC_MS: u64 = 1_000;

/// The part of the app keys change (everything but the engine).
pub(crate) struct Front {
    pub(crate) screen: Screen,
    pub(crate) queue: VecDeque<Work>,
    last_ctrl_c: Option<Instant>,
    last_esc: Option<Instant>,
    pub(crate) exit: bool,
    /// Esc / Ctrl-C asked the running job to stop.
    pub(crate) interrupt: bool,
    pub(crate) cwd: PathBuf,
    /// A resumed session's internal texts, shown collapsed (Ctrl-O).
    pub(crate) collapsed: Collapsed,
    /// Whether Ctrl-O turned full output on.
    full_output: bool,
}

impl Front {
    /// The front of a session in `cwd` drawing on `screen`; nothing queued.
    pub(crate) fn new(screen: Screen, cwd: PathBuf) -> Self {
        Self {
            screen,
            queue: VecDeque::new(),
            last_ctrl_c: None,
            last_esc: None,
            exit: false,
            interrupt: false,
            cwd,
            collapsed: Collapsed::default(),
            full_output: false,
        }
    }

    /// One item of the terminal's event stream: an event is handled, the
    /// stream's end exits, a read error is returned.
    pub(crate) fn on_terminal_item(
        &mut self,
        item: Option<std::io::Result<Event>>,
        policy: &Policy,
    ) -> std::io::Result<()> {
        match item {
            Some(Ok(event)) => self.on_terminal(event, policy),
            Some(Err(err)) => return Err(err),
            None => self.exit = true,
        }
        Ok(())
    }

    pub(crate) fn on_terminal(&mut self, event: Event, policy: &Policy) {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key, policy),
            Event::Paste(text) => self.screen.composer.handle_paste(&text),
            _ => {}
        }
    }

    fn on_key(&mut self, key: KeyEvent, policy: &Policy) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let busy = self.screen.is_busy();
        if self.screen.has_dialog() {
            if ctrl && key.code == KeyCode::Char('c') {
                self.interrupt = true;
                self.screen.deny_all();
            } else if self.screen.dialog_key(key, policy) {
                // Esc in a dialog: no, and the turn stops.
                self.interrupt = true;
            }
            return;
        }
        if self.screen.picker.is_some() {
            self.picker_key(key);
            return;
        }
        match key.code {
            KeyCode::Char('c') if ctrl => {
                if !self.screen.composer.is_empty() {
                    self.screen.composer.clear();
                    self.screen.set_hint(None);
                    return;
                }
                let again = self
                    .last_ctrl_c
                    .is_some_and(|t| t.elapsed() < Duration::from_millis(DOUBLE_CTRL_C_MS));
                if again {
                    self.exit = true;
                    self.interrupt = busy;
                } else if busy {
                    self.interrupt = true;
                } else {
                    self.screen
                        .set_hint(Some("Press Ctrl-C again to exit".to_string()));
                }
                self.last_ctrl_c = Some(Instant::now());
            }
            KeyCode::Char('d') if ctrl && self.screen.composer.is_empty() => {
                self.exit = true;
                self.interrupt = busy;
            }
            KeyCode::Esc if busy && !self.screen.composer.popup_open() => {
                self.interrupt = true;
                self.queue.clear();
                self.screen.set_queued(0);
            }
            KeyCode::Esc if !busy && self.screen.composer.is_empty() => {
                let again = self
                    .last_esc
                    .is_some_and(|t| t.elapsed() < Duration::from_millis(DOUBLE_ESC_MS));
                self.last_esc = (!again).then(Instant::now);
                if again {
                    self.queue.push_back(Work::Command {
                        name: "rewind".to_string(),
                        args: String::new(),
                    });
                }
            }
            KeyCode::BackTab => {
                let next = match policy.mode() {
                    PermissionMode::Default => PermissionMode::AcceptEdits,
                    PermissionMode::AcceptEdits => PermissionMode::Plan,
                    PermissionMode::Plan
                    | PermissionMode::BypassPermissions
                    | PermissionMode::DontAsk => PermissionMode::Default,
                };
                policy.set_mode(next);
                self.screen.status_mut().mode = next;
            }
            KeyCode::Char('o') if ctrl => {
                self.screen.toggle_full_output();
                self.full_output = !self.full_output;
                if self.full_output {
                    self.collapsed.expand(&mut self.screen);
                }
            }
            _ => {
                if let ComposerEvent::Submit(submission) = self.screen.composer.handle_key(key) {
                    self.screen.set_hint(None);
                    self.screen.composer_warnings();
                    self.submit(submission);
                }
            }
        }
    }

    fn picker_key(&mut self, key: KeyEvent) {
        let Some(picker) = &mut self.screen.picker else {
            return;
        };
        let count = picker.items.len();
        match key.code {
            KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
            KeyCode::Down => picker.selected = (picker.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Enter => {
                let value = picker.items.get(picker.selected).map(|(v, _)| v.clone());
                match (picker.kind, value) {
                    (PickerKind::Trust, value) => {
                        self.queue.push_back(crate::trust::work(value.as_deref()));
                    }
                    (PickerKind::Resume, Some(id)) => {
                        self.queue.push_back(Work::Open(SessionChoice::Resume(id)));
                    }
                    (PickerKind::Resume, None) => {}
                    (PickerKind::Rewind, Some(args)) if !args.is_empty() => {
                        let name = "rewind".to_string();
                        self.queue.push_back(Work::Command { name, args });
                    }
                    (PickerKind::Rewind, _) => {}
                }
                self.screen.picker = None;
            }
            KeyCode::Esc => {
                if picker.kind == PickerKind::Trust {
                    self.queue.push_back(crate::trust::work(None));
                }
                self.screen.picker = None;
            }
            _ => {}
        }
    }

    /// Submits `text` as if typed and sent.
    pub(crate) fn submit_text(&mut self, text: &str) {
        self.screen.composer.set_text(text);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        if let ComposerEvent::Submit(submission) = self.screen.composer.handle_key(enter) {
            self.submit(submission);
        }
    }

    fn submit(&mut self, submission: Submission) {
        let work = match submission {
            Submission::Prompt { text, mentions } => Work::Prompt(text, mentions),
            Submission::Shell(command) => Work::Shell(command),
            Submission::Note(note) => {
                match append_note(&self.cwd, &note) {
                    Ok(file) => self
                        .screen
                        .note(&format!("# Noted in {file}: {note}"), Tone::Dim),
                    Err(err) => self
                        .screen
                        .note(&format!("Could not save the note: {err}"), Tone::Error),
                }
                return;
            }
            Submission::Command { name, .. } if name == "exit" || name == "quit" => {
                self.exit = true;
                return;
            }
            Submission::Command { name, args } => Work::Command { name, args },
        };
        self.queue.push_back(work);
        if self.screen.is_busy() {
            self.screen.set_queued(self.queue.len());
        }
    }
}
