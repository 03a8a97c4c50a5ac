//! A custom command's turn in the UI: `/name args` expanded through
//! `orbit_commands` (the function `-p` and the SDK use), with the approval
//! dialog served while its `!`/`@` calls wait on the permission gate; its
//! model and grant hold for that turn only.

use futures::StreamExt;
use orbit_composer::custom::CustomCommand;

use super::{App, TuiError};
use crate::screen::Tone;

impl App {
    /// A custom command's turn: expanded (asks of its `!`/`@` calls
    /// answered meanwhile), its model and grant for this turn only; a
    /// refusal is one error note and nothing is sent.
    pub(super) async fn command_turn(&mut self, text: &str) -> Result<(), TuiError> {
        let policy = self.engine.policy();
        let planned = {
            let App {
                front,
                engine,
                expander,
                inbox,
                events,
                term,
                ..
            } = self;
            let planning = expander.plan(engine, text);
            tokio::pin!(planning);
            loop {
                term.draw(&mut front.screen)?;
                tokio::select! {
                    planned = &mut planning => break planned,
                    Some(ask) = inbox.rx.recv() => front.screen.ask_with_reply(ask),
                    event = events.next() => front.on_terminal_item(event, &policy)?,
                }
            }
        };
        let plan = match planned {
            Ok(plan) => plan,
            Err(refusal) => {
                for note in &refusal.notes {
                    self.front.screen.note(note, Tone::Error);
                }
                self.front.screen.note(&refusal.to_string(), Tone::Error);
                return Ok(());
            }
        };
        for note in &plan.notes {
            self.front.screen.note(note, Tone::Error);
        }
        let previous_model = plan.apply_model(&mut self.engine);
        let result = self.prompt_turn(&plan.prompt, &[]).await;
        plan.finish(&mut self.engine, previous_model);
        result
    }
}

/// A custom command's popup line: its `argument-hint` (when it has one),
/// then its description.
pub(super) fn popup_description(command: &CustomCommand) -> String {
    match &command.front.argument_hint {
        Some(hint) => format!("{hint} · {}", command.description),
        None => command.description.clone(),
    }
}
