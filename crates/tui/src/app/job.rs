//! A running job — a turn, a compaction or a `!command` — and the busy
//! loop around it: the job's stream is polled beside terminal events,
//! approval asks, notices, the status line's command and a 1 s tick for
//! the elapsed-time counter. Engine output is drawn at most once per
//! frame interval (events that arrive meanwhile share a frame, up to
//! [`EVENTS_PER_FRAME_MAX`] at once); anything else at once. An interrupt
//! aborts the turn (a `!command` is dropped); every item the job yields is
//! shown on the screen ([`finish_item`]).

use std::time::{Duration, Instant};

use futures::stream::LocalBoxStream;
use futures::{FutureExt, StreamExt};
use orbit_engine::{AbortHandle, CompactError, CompactionBoundary};
use orbit_protocol::EngineEvent;

use super::{App, TuiError};
use crate::action::Job;
use crate::front::Front;
use crate::screen::Tone;
use crate::status_line::next_output;
use crate::submit::{ShellRun, run_shell};

/// Engine events handled before the next frame is drawn (coalescing).
const EVENTS_PER_FRAME_MAX: usize = 256;
/// Shortest time between two frames of streamed output, in milliseconds
/// (keys and other events are drawn at once).
const FRAME_INTERVAL_MS: u64 = 16;

/// A running job's stream items.
enum Done {
    Event(EngineEvent),
    Compacted(Result<CompactionBoundary, CompactError>),
    Shell(ShellRun),
}

impl App {
    /// Runs `job` to its end: see the module docs.
    pub(super) async fn run_job(&mut self, job: Job) -> Result<(), TuiError> {
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
            status_line,
            notices,
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
                if let Some(line) = status_line.as_ref() {
                    line.refresh(front.screen.status());
                }
                term.draw(&mut front.screen)?;
                last_draw = Instant::now();
                streamed = false;
            }
            tokio::select! {
                () = tokio::time::sleep_until(due.into()), if streamed => {}
                text = next_output(status_line) => front.screen.set_custom_status(text),
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
                event = events.next() => front.on_terminal_item(event, &policy)?,
                Some(ask) = inbox.rx.recv() => front.screen.ask_with_reply(ask),
                lines = crate::notices::next(notices.as_ref()) => {
                    crate::notices::show(&mut front.screen, lines);
                }
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

/// Shows one item of the running job.
fn finish_item(front: &mut Front, context: &mut Vec<String>, item: Done) {
    let screen = &mut front.screen;
    match item {
        Done::Event(event) => {
            // The status line follows the model actually answering.
            if let EngineEvent::ModelFallback { fallback_model, .. } = &event {
                let status = screen.status_mut();
                status.model.clone_from(fallback_model);
                status.context_window = orbit_engine::context_window_tokens(fallback_model);
            }
            screen.on_event(&event);
        }
        Done::Compacted(Ok(boundary)) => screen.compacted(&boundary),
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
