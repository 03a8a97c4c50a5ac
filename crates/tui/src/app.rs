//! The event loop. Idle, it blocks on terminal events and asks; busy (a
//! turn, a compaction, a `!command`: `job`), it also polls the job's stream
//! and a 1 s tick for the elapsed-time counter. Keys are handled in [`Front`];
//! submissions become [`Work`] queued and run in order when nothing runs,
//! with the engine at hand. Slash commands and the trust answer return an
//! [`Action`] that [`App::apply`] carries out.

use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::StreamExt;
use orbit_composer::ComposerConfig;
use orbit_engine::QueryEngine;

use crate::action::{Action, Job, Work};
use crate::dialog::ApprovalInbox;
use crate::front::Front;
use crate::screen::{Screen, Tone};
use crate::session::{McpStatus, OpenedSession, SessionChoice, SessionFactory};
use crate::status::status_of;
use crate::status_line::{StatusLine, next_output, start_for};
use crate::submit::{attachable, with_attachments};
use crate::term::Term;
use crate::theme::Theme;
use crate::trust::TrustAsk;
use orbit_commands::PromptExpander;
use orbit_composer::custom::CustomCommand;

mod command_turn;
mod job;
use command_turn::popup_description;

/// How the UI is set up.
pub struct TuiOptions {
    /// A first prompt to submit at once (`orbit "PROMPT"`).
    pub initial_prompt: Option<String>,
    /// Where the engine's asks arrive (the other half of [`crate::approver`]).
    pub inbox: ApprovalInbox,
    /// Builds the sessions `/clear` and `/resume` switch to.
    pub sessions: Box<dyn SessionFactory>,
    /// Where submitted prompts are remembered (the composer's history).
    pub history_file: Option<PathBuf>,
    /// The home directory (user custom commands); None: project ones only.
    pub home: Option<PathBuf>,
    /// False when `NO_COLOR` is set.
    pub color: bool,
    /// "Trust this folder?", asked once at start; None: nothing to ask.
    pub trust: Option<TrustAsk>,
    /// Lines written to stderr while the UI runs (shown in the scrollback).
    pub notices: Option<crate::NoticeSink>,
}

/// How the UI ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// The session that was open at the end (`orbit --resume <id>`).
    pub session_id: String,
}

/// What can stop the UI.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, read or written.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// The whole app.
struct App {
    front: Front,
    engine: QueryEngine,
    mcp: Option<McpStatus>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
    factory: Box<dyn SessionFactory>,
    custom: Vec<CustomCommand>,
    /// Expands custom commands (`orbit-commands`).
    expander: PromptExpander,
    /// `!command` outputs the next prompt carries.
    context: Vec<String>,
    inbox: ApprovalInbox,
    events: EventStream,
    term: Term,
    /// The folder trust question, until answered.
    trust: Option<TrustAsk>,
    /// The first prompt, waiting for the trust answer.
    pending_prompt: Option<String>,
    /// Woken when the `@` file index is ready (the next draw shows it).
    index_ready: tokio::sync::mpsc::UnboundedReceiver<()>,
    /// The `statusLine` command of the session, if one is set.
    status_line: Option<StatusLine>,
    /// Stderr lines to show (`crate::notices`).
    notices: Option<crate::NoticeSink>,
    theme: Theme,
}

pub(crate) async fn run(session: OpenedSession, options: TuiOptions) -> Result<ExitInfo, TuiError> {
    let OpenedSession {
        engine,
        mcp,
        on_close,
        commands: expander,
        status_line,
    } = session;
    let status_line = start_for(status_line, &engine);
    let cwd = engine.config().cwd.clone();
    let theme = Theme::new(options.color);
    let mut custom = expander.commands.commands().to_vec();
    // Skills answer to `/name` too (a command of the same name wins).
    custom.extend(
        expander
            .skills
            .skills()
            .iter()
            .filter(|s| expander.commands.find(&s.name).is_none())
            .map(orbit_commands::Skill::as_command),
    );
    let mut commands: Vec<(String, String)> = crate::commands::BUILTIN
        .iter()
        .map(|(n, d)| ((*n).to_string(), (*d).to_string()))
        .collect();
    commands.extend(
        custom
            .iter()
            .map(|c| (c.name.clone(), popup_description(c))),
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
    // The `@` file index is built on a thread; it wakes the idle loop.
    let (index_tx, index_ready) = tokio::sync::mpsc::unbounded_channel();
    screen
        .composer
        .set_index_waker(orbit_composer::IndexWaker(std::sync::Arc::new(move || {
            let _ = index_tx.send(());
        })));
    // `--continue` / `--resume`: the history shown again.
    let mut collapsed = crate::replay::Collapsed::default();
    if !engine.messages().is_empty() {
        crate::replay::replay(&engine, &mut screen, &mut collapsed, theme);
    }
    let term = Term::start()?;
    let mut app = App {
        front: Front::new(screen, cwd),
        engine,
        mcp,
        on_close,
        factory: options.sessions,
        custom,
        expander,
        context: Vec::new(),
        inbox: options.inbox,
        events: EventStream::new(),
        term,
        trust: options.trust,
        pending_prompt: None,
        index_ready,
        status_line,
        notices: options.notices,
        theme,
    };
    app.front.collapsed = collapsed;
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
    if crate::session::transcript_saved(&app.engine) {
        println!("Session saved. Continue it with: orbit --resume {session_id}");
    } else if config.persist_session {
        println!("Nothing to save: no prompt was sent in this session.");
    } else {
        println!("Session not saved (--no-session-persistence).");
    }
    Ok(ExitInfo { session_id })
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
            if let Some(line) = &self.status_line {
                line.refresh(self.front.screen.status());
            }
            self.term.draw(&mut self.front.screen)?;
            let policy = self.engine.policy();
            // A background agent's result, when it comes while the UI is
            // idle, is the next turn's message (as in `-p`; Claude Code's
            // task notification). None at once when nothing runs.
            let tasks = orbit_tool::subagent::BackgroundTasks::of(self.engine.tool_context());
            tokio::select! {
                text = next_output(&mut self.status_line) => {
                    self.front.screen.set_custom_status(text);
                }
                Some(notice) = tasks.next_notice() => {
                    self.front
                        .screen
                        .note("A background agent finished: its result goes to the model.", Tone::Dim);
                    self.prompt_turn(&notice, &[]).await?;
                }
                event = self.events.next() => self.front.on_terminal_item(event, &policy)?,
                Some(ask) = self.inbox.rx.recv() => {
                    self.front.screen.ask_with_reply(ask);
                }
                Some(()) = self.index_ready.recv() => {}
                lines = crate::notices::next(self.notices.as_ref()) => {
                    crate::notices::show(&mut self.front.screen, lines);
                }
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
            Work::Command { name, args } => {
                let ctx = crate::commands::Ctx {
                    engine: &mut self.engine,
                    screen: &mut self.front.screen,
                    custom: &self.custom,
                    mcp: self.mcp.as_ref(),
                };
                match crate::commands::run(ctx, &name, &args) {
                    Some(action) => self.apply(action).await,
                    None => Ok(()),
                }
            }
            Work::Open(choice) => {
                self.open(choice).await;
                Ok(())
            }
            Work::Trust(yes) => {
                if let Some(ask) = self.trust.take() {
                    let action =
                        crate::trust::answer(ask, yes, &self.engine, &mut self.front.screen);
                    if let Some(action) = action {
                        self.apply(action).await?;
                    }
                }
                if let Some(prompt) = self.pending_prompt.take() {
                    self.front.submit_text(&prompt);
                }
                Ok(())
            }
        }
    }

    /// Carries out what a command or the trust answer asked for.
    async fn apply(&mut self, action: Action) -> Result<(), TuiError> {
        match action {
            Action::Open(choice) => {
                self.open(choice).await;
                Ok(())
            }
            Action::Reopen { choice, note } => {
                match self.factory.open(choice) {
                    Ok(opened) => {
                        self.replace_engine(opened).await;
                        self.front.screen.note(&note, Tone::Dim);
                    }
                    Err(err) => self.front.screen.note(&err, Tone::Error),
                }
                Ok(())
            }
            Action::Job(job) => self.run_job(job).await,
            Action::Prompt(text) => self.prompt_turn(&text, &[]).await,
            Action::Command(text) => self.command_turn(&text).await,
            Action::Edit(path) => self.edit(&path),
            Action::Model(model) => {
                let source = "slash_command";
                let switched = self.engine.switch_model(model.clone(), source).await;
                let screen = &mut self.front.screen;
                match switched {
                    Ok(()) => {
                        // The new model's window; the context used stays.
                        let used = screen.status_mut().context_tokens;
                        *screen.status_mut() = status_of(&self.engine);
                        screen.status_mut().context_tokens = used;
                        let note = format!("Model set to {model} for the next requests");
                        screen.note(&note, Tone::Plain);
                    }
                    Err(why) => {
                        let note = format!("Model not switched: a PreModelSwitch hook said {why}");
                        screen.note(&note, Tone::Error);
                    }
                }
                Ok(())
            }
        }
    }

    /// `/memory N`: the terminal given to the editor on `path` (the event
    /// reader stopped, so no key goes astray), then the UI started again.
    fn edit(&mut self, path: &std::path::Path) -> Result<(), TuiError> {
        drop(std::mem::replace(&mut self.events, EventStream::new()));
        // Dropping the reader wakes crossterm's poll; a wake nobody took
        // would end the next poll at once (the cursor query of
        // `Term::start`): take it here.
        let _ = crossterm::event::poll(Duration::ZERO);
        self.term.restore()?;
        let stderr = self.notices.as_ref().and_then(|n| n.terminal_stderr());
        let edited = crate::commands::open_in_editor(path, stderr);
        self.term = Term::start()?;
        match edited {
            Ok(()) => self.front.screen.note(
                &format!(
                    "Edited {} (sessions started from now on read it; /clear starts one)",
                    path.display()
                ),
                Tone::Dim,
            ),
            Err(err) => self.front.screen.note(&err, Tone::Error),
        }
        Ok(())
    }

    /// Runs a turn for `text` with its `@path` attachments and the
    /// pending `!command` outputs.
    async fn prompt_turn(&mut self, text: &str, mentions: &[PathBuf]) -> Result<(), TuiError> {
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
    async fn open(&mut self, choice: SessionChoice) {
        let resuming = matches!(choice, SessionChoice::Resume(_));
        match self.factory.open(choice) {
            Ok(opened) => {
                self.engine
                    .end_session(if resuming { "resume" } else { "clear" })
                    .await;
                self.replace_engine(opened).await;
                let id = self.engine.session_id().to_string();
                self.front.collapsed.clear();
                if resuming {
                    let front = &mut self.front;
                    crate::replay::replay(
                        &self.engine,
                        &mut front.screen,
                        &mut front.collapsed,
                        self.theme,
                    );
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
    async fn replace_engine(&mut self, opened: OpenedSession) {
        if let Some(close) = self.on_close.take() {
            close();
        }
        self.engine = opened.engine;
        self.mcp = opened.mcp;
        self.on_close = opened.on_close;
        self.expander = opened.commands;
        self.status_line = start_for(opened.status_line, &self.engine);
        self.context.clear();
        let status = status_of(&self.engine);
        *self.front.screen.status_mut() = status;
    }
}
