//! The event loop. Idle, it blocks on terminal events and asks; busy (a
//! turn, a compaction, a `!command`), it also polls the job's stream and a
//! 1 s tick for the elapsed-time counter. Keys that act at once (Esc,
//! Ctrl-C, Ctrl-D, Shift-Tab, Ctrl-O, dialog and picker keys) are handled
//! in [`Front`]; submissions become [`Work`] queued and run in order when
//! nothing runs, with the engine at hand.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::stream::LocalBoxStream;
use futures::{FutureExt, StreamExt};
use orbit_composer::{ComposerConfig, ComposerEvent, Submission};
use orbit_engine::{AbortHandle, CompactError, CompactionBoundary, QueryEngine};
use orbit_permissions::{PermissionMode, Policy};
use orbit_protocol::EngineEvent;

use crate::dialog::ApprovalInbox;
use crate::screen::{PickerKind, Screen, Tone};
use crate::status::StatusInfo;
use crate::submit::{ShellRun, append_note, attachable, run_shell, with_attachments};
use crate::term::Term;
use crate::theme::Theme;
use crate::{
    ExitInfo, McpStatus, OpenedSession, SessionChoice, SessionFactory, TuiError, TuiOptions,
};
use orbit_composer::custom::{CustomCommand, load_custom_commands};

/// Two Ctrl-C within this long (on an empty input) exit.
const DOUBLE_CTRL_C_MS: u64 = 1_000;
/// Engine events handled before the next frame is drawn (coalescing).
const EVENTS_PER_FRAME_MAX: usize = 256;
/// Shortest time between two frames of streamed output, in milliseconds
/// (keys and other events are drawn at once).
const FRAME_INTERVAL_MS: u64 = 16;

/// Something to do when nothing runs.
pub(crate) enum Work {
    /// A prompt and the `@path` mentions the composer found in it.
    Prompt(String, Vec<PathBuf>),
    Shell(String),
    Command {
        name: String,
        args: String,
    },
    Open(SessionChoice),
    /// The answer to "Trust this folder?" (yes / no).
    Trust(bool),
}

/// A running job's stream items.
enum Done {
    Event(EngineEvent),
    Compacted(Result<CompactionBoundary, CompactError>),
    Shell(ShellRun),
}

/// The part of the app keys change (everything but the engine).
pub(crate) struct Front {
    pub(crate) screen: Screen,
    pub(crate) queue: VecDeque<Work>,
    last_ctrl_c: Option<Instant>,
    pub(crate) exit: bool,
    /// Esc / Ctrl-C asked the running job to stop.
    interrupt: bool,
    pub(crate) cwd: PathBuf,
}

impl Front {
    fn on_terminal(&mut self, event: Event, policy: &Policy) {
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
            } else {
                self.screen.dialog_key(key);
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
            KeyCode::BackTab => {
                let next = match policy.mode() {
                    PermissionMode::Default => PermissionMode::AcceptEdits,
                    PermissionMode::AcceptEdits => PermissionMode::Plan,
                    PermissionMode::Plan | PermissionMode::BypassPermissions => {
                        PermissionMode::Default
                    }
                };
                policy.set_mode(next);
                self.screen.status_mut().mode = next;
            }
            KeyCode::Char('o') if ctrl => self.screen.toggle_full_output(),
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

/// The whole app.
pub(crate) struct App {
    pub(crate) front: Front,
    pub(crate) engine: QueryEngine,
    pub(crate) mcp: Option<McpStatus>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
    pub(crate) factory: Box<dyn SessionFactory>,
    pub(crate) custom: Vec<CustomCommand>,
    /// `!command` outputs the next prompt carries.
    context: Vec<String>,
    inbox: ApprovalInbox,
    events: EventStream,
    term: Term,
    /// The folder trust question, until answered.
    pub(crate) trust: Option<crate::trust::TrustAsk>,
    /// The first prompt, waiting for the trust answer.
    pub(crate) pending_prompt: Option<String>,
    /// Woken when the `@` file index is ready (the next draw shows it).
    index_ready: tokio::sync::mpsc::UnboundedReceiver<()>,
}

pub(crate) async fn run(session: OpenedSession, options: TuiOptions) -> Result<ExitInfo, TuiError> {
    let OpenedSession {
        engine,
        mcp,
        on_close,
    } = session;
    let cwd = engine.config().cwd.clone();
    let theme = Theme::new(options.color);
    let custom = load_custom_commands(&cwd, options.home.as_deref());
    let mut commands: Vec<(String, String)> = crate::commands::BUILTIN
        .iter()
        .map(|(n, d)| ((*n).to_string(), (*d).to_string()))
        .collect();
    commands.extend(
        custom
            .iter()
            .map(|c| (c.name.clone(), c.description.clone())),
    );
    let composer = ComposerConfig {
        history_file: options.history_file.clone(),
        project_root: cwd.clone(),
        commands,
    };
    let mut screen = Screen::new(status_of(&engine), theme, composer);
    screen.note(
        &format!(
            "orbit {} · {} · /help for commands, Esc interrupts, Ctrl-D exits",
            env!("CARGO_PKG_VERSION"),
            engine.config().model
        ),
        Tone::Dim,
    );
    let queue = VecDeque::new();
    // The `@` file index is built on a thread; it wakes the idle loop.
    let (index_tx, index_ready) = tokio::sync::mpsc::unbounded_channel();
    screen
        .composer
        .set_index_waker(orbit_composer::IndexWaker(std::sync::Arc::new(move || {
            let _ = index_tx.send(());
        })));
    let term = Term::start()?;
    let mut app = App {
        front: Front {
            screen,
            queue,
            last_ctrl_c: None,
            exit: false,
            interrupt: false,
            cwd,
        },
        engine,
        mcp,
        on_close,
        factory: options.sessions,
        custom,
        context: Vec::new(),
        inbox: options.inbox,
        events: EventStream::new(),
        term,
        trust: options.trust,
        pending_prompt: None,
        index_ready,
    };
    // The first prompt (`orbit "PROMPT"`) is submitted as if typed, after
    // the folder trust question when there is one.
    let prompt = options.initial_prompt.filter(|p| !p.trim().is_empty());
    if let Some(ask) = &app.trust {
        app.front.screen.picker = Some(crate::trust::picker(ask));
        app.pending_prompt = prompt;
    } else if let Some(prompt) = prompt {
        app.front.submit_text(&prompt);
    }
    let outcome = app.main_loop().await;
    let _ = app.term.draw(&mut app.front.screen);
    drop(app.events);
    app.term.restore()?;
    outcome?;
    app.engine.end_session("prompt_input_exit").await;
    if let Some(close) = app.on_close.take() {
        close();
    }
    let session_id = app.engine.session_id().to_string();
    let config = app.engine.config();
    let root = config
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| config.cwd.clone());
    let saved = orbit_session::transcript_path(&config.data_dir, &root, &session_id).is_file();
    if saved {
        println!("Session saved. Continue it with: orbit --resume {session_id}");
    } else if config.persist_session {
        println!("Nothing to save: no prompt was sent in this session.");
    } else {
        println!("Session not saved (--no-session-persistence).");
    }
    Ok(ExitInfo { session_id })
}

/// The status line's facts of `engine`'s session.
pub(crate) fn status_of(engine: &QueryEngine) -> StatusInfo {
    let config = engine.config();
    StatusInfo {
        model: config.model.clone(),
        cwd: config.cwd.display().to_string(),
        mode: engine.policy().mode(),
        context_tokens: 0,
        // The window compaction works with: the configured one, else the
        // engine's table for the model (8,192 for the local model).
        context_window: config
            .compact
            .context_window
            .unwrap_or_else(|| orbit_engine::context_window_tokens(&config.model)),
        cost_usd: engine.total_cost_usd(),
    }
}

impl App {
    async fn main_loop(&mut self) -> Result<(), TuiError> {
        loop {
            if self.front.exit {
                return Ok(());
            }
            if let Some(work) = self.front.queue.pop_front() {
                self.front.screen.set_queued(0);
                self.do_work(work).await?;
                continue;
            }
            self.term.draw(&mut self.front.screen)?;
            let policy = self.engine.policy();
            tokio::select! {
                event = self.events.next() => match event {
                    Some(Ok(event)) => self.front.on_terminal(event, &policy),
                    Some(Err(err)) => return Err(err.into()),
                    None => self.front.exit = true,
                },
                Some(ask) = self.inbox.rx.recv() => {
                    self.front.screen.ask_with_reply(ask.request, ask.reply);
                }
                Some(()) = self.index_ready.recv() => {}
            }
        }
    }

    async fn do_work(&mut self, work: Work) -> Result<(), TuiError> {
        match work {
            Work::Prompt(text, mentions) => {
                self.front.screen.user_prompt(&text);
                self.prompt_turn(&text, &mentions).await
            }
            Work::Shell(command) => {
                self.front.screen.user_prompt(&format!("!{command}"));
                self.run_job(Job::Shell(command)).await
            }
            Work::Command { name, args } => crate::commands::run(self, &name, &args).await,
            Work::Open(choice) => {
                self.open(choice).await;
                Ok(())
            }
            Work::Trust(yes) => crate::trust::answer(self, yes).await,
        }
    }

    /// Runs a turn for `text` with its `@path` attachments and the
    /// pending `!command` outputs.
    pub(crate) async fn prompt_turn(
        &mut self,
        text: &str,
        mentions: &[PathBuf],
    ) -> Result<(), TuiError> {
        let policy = self.engine.policy();
        let (files, refused): (Vec<_>, Vec<_>) = attachable(mentions, &self.front.cwd)
            .into_iter()
            .partition(|rel| !policy.is_read_denied(&self.front.cwd.join(rel)));
        for rel in &refused {
            let note = format!("  ⎿ Not attached @{}: a deny rule covers it", rel.display());
            self.front.screen.note(&note, Tone::Error);
        }
        let mut full = with_attachments(text, &files, &self.front.cwd);
        if !self.context.is_empty() {
            let context: Vec<String> = self.context.drain(..).collect();
            full = format!("{}\n\n{full}", context.join("\n"));
        }
        for file in &files {
            let note = format!("  ⎿ Attached @{}", file.display());
            self.front.screen.note(&note, Tone::Dim);
        }
        self.run_job(Job::Turn(full)).await
    }

    /// Replaces the session (`/clear`, `/resume`, `/continue`).
    pub(crate) async fn open(&mut self, choice: SessionChoice) {
        let resuming = matches!(choice, SessionChoice::Resume(_));
        match self.factory.open(choice) {
            Ok(opened) => {
                self.engine
                    .end_session(if resuming { "resume" } else { "clear" })
                    .await;
                self.replace_engine(opened).await;
                let id = self.engine.session_id().to_string();
                if resuming {
                    crate::commands::recap(self);
                    self.front
                        .screen
                        .note(&format!("Resumed session {id}"), Tone::Dim);
                } else {
                    self.front
                        .screen
                        .note(&format!("New session {id}"), Tone::Dim);
                }
            }
            Err(err) => self.front.screen.note(&err, Tone::Error),
        }
    }

    /// Swaps in `opened` (the old session's close runs first).
    pub(crate) async fn replace_engine(&mut self, opened: OpenedSession) {
        if let Some(close) = self.on_close.take() {
            close();
        }
        self.engine = opened.engine;
        self.mcp = opened.mcp;
        self.on_close = opened.on_close;
        self.context.clear();
        let status = status_of(&self.engine);
        *self.front.screen.status_mut() = status;
    }

    pub(crate) async fn run_job(&mut self, job: Job) -> Result<(), TuiError> {
        let abort: AbortHandle = self.engine.abort_handle();
        let policy = self.engine.policy();
        let cwd = self.front.cwd.clone();
        let is_shell = matches!(job, Job::Shell(_));
        let App {
            front,
            engine,
            inbox,
            events,
            term,
            context,
            ..
        } = self;
        let mut stream: LocalBoxStream<'_, Done> = match job {
            Job::Turn(prompt) => engine.submit_message(prompt).map(Done::Event).boxed_local(),
            Job::Compact(instructions) => futures::stream::once(engine.compact(instructions))
                .map(Done::Compacted)
                .boxed_local(),
            Job::Shell(command) => futures::stream::once(run_shell(command, cwd))
                .map(Done::Shell)
                .boxed_local(),
        };
        front.interrupt = false;
        front.screen.set_busy();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut aborted = false;
        let mut last_draw = Instant::now();
        let mut streamed = false;
        loop {
            if front.interrupt && !aborted {
                aborted = true;
                front.screen.deny_all();
                if is_shell {
                    front.screen.note("  ⎿ Interrupted", Tone::Error);
                    break;
                }
                abort.abort();
            }
            // Engine output is drawn at most once per frame interval (tokens
            // that arrive meanwhile share a frame); anything else at once.
            let due = last_draw + Duration::from_millis(FRAME_INTERVAL_MS);
            if !streamed || Instant::now() >= due {
                term.draw(&mut front.screen)?;
                last_draw = Instant::now();
                streamed = false;
            }
            tokio::select! {
                () = tokio::time::sleep_until(due.into()), if streamed => {}
                item = stream.next() => {
                    let Some(item) = item else { break };
                    streamed = true;
                    finish_item(front, context, item);
                    for _ in 0..EVENTS_PER_FRAME_MAX {
                        match stream.next().now_or_never() {
                            Some(Some(item)) => finish_item(front, context, item),
                            Some(None) | None => break,
                        }
                    }
                }
                event = events.next() => match event {
                    Some(Ok(event)) => front.on_terminal(event, &policy),
                    Some(Err(err)) => return Err(err.into()),
                    None => front.exit = true,
                },
                Some(ask) = inbox.rx.recv() => front.screen.ask_with_reply(ask.request, ask.reply),
                _ = tick.tick() => {}
            }
        }
        drop(stream);
        front.screen.deny_all();
        front.screen.set_idle();
        front.screen.status_mut().cost_usd = engine.total_cost_usd();
        Ok(())
    }
}

/// A job for [`App::run_job`].
pub(crate) enum Job {
    Turn(String),
    Compact(Option<String>),
    Shell(String),
}

fn finish_item(front: &mut Front, context: &mut Vec<String>, item: Done) {
    let screen = &mut front.screen;
    match item {
        Done::Event(event) => screen.on_event(&event),
        Done::Compacted(Ok(boundary)) => {
            screen.status_mut().context_tokens = boundary.post_tokens;
            screen.note(
                &format!(
                    "✻ Conversation compacted ({} → {} tokens)",
                    boundary.pre_tokens, boundary.post_tokens
                ),
                Tone::Dim,
            );
        }
        Done::Compacted(Err(err)) => screen.note(&format!("Compaction failed: {err}"), Tone::Error),
        Done::Shell(run) => {
            let text = format!("{}{}", run.stdout, run.stderr);
            for line in text.lines().take(50) {
                screen.note(&format!("  {line}"), Tone::Dim);
            }
            if let Some(code) = run.code.filter(|c| *c != 0) {
                screen.note(&format!("  ⎿ exit {code}"), Tone::Error);
            }
            screen.note("  ⎿ (output added to the next prompt)", Tone::Dim);
            context.push(run.context());
        }
    }
}
