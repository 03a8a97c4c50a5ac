//! One submitted text to the prompt the model sees: [`prepare_prompt`], the
//! one function `-p`, the SDK and the interactive UI call.
//!
//! Data flow: [`split_invocation`] reads `/name args`; a name that is no
//! custom command leaves the text as it is (Claude Code 2.1.332 sends an
//! unknown `/name` on as a plain prompt too). For a command: its
//! `allowed-tools` open a grant on the session ([`PromptSession::grant`]:
//! the engine's `QueryEngine::grant_scope`, the policy orchestrator's one
//! scoped-grant mechanism),
//! the arguments are filled (`expand`), `!`cmd`` and `@file` are inlined
//! (`inline`, through the permission gate with the grant already in
//! force), and the prompt is built as Claude Code builds it: the file
//! attachments, the `<command-message>`/`<command-name>`/`<command-args>`
//! lines, the body. The [`PromptPlan`] carries the grant and the model;
//! the caller switches the model ([`PromptPlan::apply_model`]), runs the
//! turn, then [`PromptPlan::finish`] restores the model and ends the grant.
//!
//! A project command in an untrusted folder gets neither `allowed-tools`
//! nor `model` (one note line); a refused `!`/`@` refuses the prompt
//! ([`Refusal`], one line, nothing sent).

use std::path::{Path, PathBuf};

use orbit_protocol::{ResultSubtype, TerminalResult};

use crate::discover::{CommandSet, CommandSources, Scope};
use crate::inline::inline;
use crate::session::{Grant, PromptSession};
use crate::skills::{SkillSet, skill_plan};

/// What a submitted text becomes.
#[derive(Debug)]
pub struct PromptPlan {
    /// The prompt to submit.
    pub prompt: String,
    /// The custom command it came from (None: the text as typed).
    pub command: Option<String>,
    /// The model for this prompt (the command's `model`, as written; the
    /// session resolves an alias).
    pub model: Option<String>,
    /// Lines for the user (stderr headless): what was ignored and why.
    pub notes: Vec<String>,
    /// The command's `allowed-tools`, in force while this plan lives.
    grant: Option<Grant>,
}

/// A command whose `!`cmd`` or `@file` was refused: nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("/{command}: {reason} (the prompt was not sent)")]
pub struct Refusal {
    /// The command's name.
    pub command: String,
    /// Which pattern was refused and why.
    pub reason: String,
    /// The plan's notes so far (print them before the refusal).
    pub notes: Vec<String>,
}

impl Refusal {
    /// The run's result for a refused prompt: an error result whose one
    /// error line is this refusal (`orbit: error: …` in text output).
    pub fn to_result(&self) -> TerminalResult {
        TerminalResult {
            subtype: ResultSubtype::ErrorDuringExecution,
            num_turns: 0,
            duration_ms: 0,
            duration_api_ms: 0,
            total_cost_usd: 0.0,
            usage: Default::default(),
            result: String::new(),
            stop_reason: None,
            permission_denials: Vec::new(),
            errors: vec![self.to_string()],
            interrupted: false,
            structured_output: None,
        }
    }
}

impl PromptPlan {
    /// The text submitted as it is.
    pub fn plain(text: String) -> Self {
        Self {
            prompt: text,
            command: None,
            model: None,
            notes: Vec::new(),
            grant: None,
        }
    }

    /// A skill's plan (`crate::skills`): its prompt and grant, no model.
    pub(crate) fn with_grant(
        prompt: String,
        command: String,
        notes: Vec<String>,
        grant: Option<Grant>,
    ) -> Self {
        Self {
            prompt,
            command: Some(command),
            model: None,
            notes,
            grant,
        }
    }

    /// Switches the engine to the plan's model; returns the model to
    /// restore with [`Self::finish`] (None when the plan has no model).
    pub fn apply_model<S: PromptSession + ?Sized>(&self, engine: &mut S) -> Option<String> {
        let model = self.model.as_deref()?;
        let previous = engine.model();
        engine.set_model(model);
        if engine.model() == previous {
            return None;
        }
        Some(previous)
    }

    /// After the prompt's turn: the model `previous` back, the grant ended.
    pub fn finish<S: PromptSession + ?Sized>(self, engine: &mut S, previous: Option<String>) {
        if let Some(previous) = previous {
            engine.set_model(&previous);
        }
        drop(self.grant);
    }
}

/// A session's commands with what expanding them needs: the one value a
/// front end (`-p`, the SDK, the interactive UI) keeps.
#[derive(Debug, Clone, Default)]
pub struct PromptExpander {
    /// The commands found at start.
    pub commands: CommandSet,
    /// The skills found at start (`/name` invokes one no command names).
    pub skills: SkillSet,
    /// Whether the project folder is trusted.
    pub trusted: bool,
    /// The home directory (`@~/…`).
    pub home: Option<PathBuf>,
    /// Why a command's `model` cannot apply in this session (a provider
    /// other than Anthropic's: Claude Code's commands name Claude models);
    /// None: it applies.
    pub model_ignored: Option<String>,
}

impl PromptExpander {
    /// Loads the commands and skills of `sources`; `trusted` as the
    /// folder is (an untrusted project's skills are not loaded).
    pub fn load(sources: &CommandSources, trusted: bool) -> Self {
        Self {
            commands: CommandSet::load(sources),
            skills: SkillSet::load(sources, trusted),
            trusted,
            home: sources.home.clone(),
            model_ignored: None,
        }
    }

    /// With commands' `model` ignored for `why` (one note when a command
    /// sets one).
    pub fn ignoring_models(self, why: impl Into<String>) -> Self {
        Self {
            model_ignored: Some(why.into()),
            ..self
        }
    }

    /// The names `/name` invokes (the `init` line's `slash_commands`): the
    /// commands, then the skills no command shadows, as Claude Code lists
    /// its skills among its slash commands.
    pub fn slash_names(&self) -> Vec<String> {
        let mut names = self.commands.names();
        for skill in self.skills.names() {
            if self.commands.find(&skill).is_none() {
                names.push(skill);
            }
        }
        names
    }

    /// [`prepare_prompt`] with this expander's commands, trust and home.
    pub async fn plan<S: PromptSession + ?Sized>(
        &self,
        engine: &S,
        text: &str,
    ) -> Result<PromptPlan, Refusal> {
        let context = self.expansion_hooks(engine, text).await?;
        let mut plan = self.expand(engine, text).await?;
        if let Some(context) = context {
            plan.prompt.push_str(&format!(
                "\n\nUserPromptExpansion hook additional context: {context}"
            ));
        }
        Ok(plan)
    }

    /// The UserPromptExpansion hooks of a command's or skill's expansion
    /// (Claude Code 2.1.332's input fields, observed): Err when one blocks
    /// (Claude Code's "UserPromptExpansion operation blocked by hook"
    /// text; nothing is sent), else their context.
    async fn expansion_hooks<S: PromptSession + ?Sized>(
        &self,
        engine: &S,
        text: &str,
    ) -> Result<Option<String>, Refusal> {
        let Some((name, args)) = split_invocation(text) else {
            return Ok(None);
        };
        let scope = match self.commands.find(name) {
            Some(command) => command.scope,
            None => match self.skills.find(name) {
                Some(skill) => skill.scope,
                None => return Ok(None),
            },
        };
        let source = match scope {
            Scope::Project => "projectSettings",
            Scope::User => "userSettings",
        };
        let fields = serde_json::json!({
            "expansion_type": "slash_command",
            "command_name": name,
            "command_args": args,
            "command_source": source,
            "prompt": text.trim(),
        });
        let verdict = engine.expansion_hooks(name, fields).await;
        if let Some(reason) = verdict.block {
            return Err(Refusal {
                command: name.to_string(),
                reason: format!("UserPromptExpansion operation blocked by hook: {reason}"),
                notes: Vec::new(),
            });
        }
        Ok(verdict.context)
    }

    /// The plan of `text` without the hooks: a skill's, a command's, or the
    /// text as it is.
    async fn expand<S: PromptSession + ?Sized>(
        &self,
        engine: &S,
        text: &str,
    ) -> Result<PromptPlan, Refusal> {
        if let Some((name, args)) = split_invocation(text)
            && self.commands.find(name).is_none()
            && let Some(skill) = self.skills.find(name)
        {
            return Ok(skill_plan(engine, skill, args));
        }
        let mut plan = prepare_prompt(
            engine,
            &self.commands,
            text,
            self.trusted,
            self.home.as_deref(),
        )
        .await?;
        if let Some(why) = &self.model_ignored
            && let Some(model) = plan.model.take()
        {
            let name = plan.command.as_deref().unwrap_or_default();
            plan.notes
                .push(format!("/{name}: model {model} ignored: {why}"));
        }
        Ok(plan)
    }
}

/// `/name args` → `(name, args)`; None when the text is no slash command
/// (no leading `/`, an empty name, or a path such as `/usr/bin/env`).
pub fn split_invocation(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..end];
    if name.is_empty() || name.contains('/') {
        return None;
    }
    Some((name, rest[end..].trim()))
}

/// The prompt for `text` (module docs). `trusted`: whether the project
/// folder is trusted; `home` resolves `@~/…`.
pub async fn prepare_prompt<S: PromptSession + ?Sized>(
    engine: &S,
    commands: &CommandSet,
    text: &str,
    trusted: bool,
    home: Option<&Path>,
) -> Result<PromptPlan, Refusal> {
    let Some((name, args)) = split_invocation(text) else {
        return Ok(PromptPlan::plain(text.to_string()));
    };
    let Some(command) = commands.find(name) else {
        return Ok(PromptPlan::plain(text.to_string()));
    };
    let mut notes = Vec::new();
    let front = &command.front;
    let honoured = trusted || command.scope == Scope::User;
    if !honoured && (!front.allowed_tools.is_empty() || front.model.is_some()) {
        notes.push(format!(
            "/{name}: this folder is not trusted, so the project command's allowed-tools and model are ignored (orbit trust to trust it)"
        ));
    }
    let grant = (honoured && !front.allowed_tools.is_empty()).then(|| {
        let grant = engine.grant(&front.allowed_tools);
        for err in &grant.errors {
            notes.push(format!("/{name}: allowed-tools rule ignored: {err}"));
        }
        grant
    });
    let model = front.model.clone().filter(|_| honoured);
    let body = command.expand(args);
    let cwd = engine.cwd();
    let inlined = inline(engine, &body, &cwd, home)
        .await
        .map_err(|reason| Refusal {
            command: name.to_string(),
            reason,
            notes: notes.clone(),
        })?;
    let mut blocks = inlined.attachments;
    blocks.push(format!(
        "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>\n"
    ));
    blocks.push(inlined.body);
    Ok(PromptPlan {
        prompt: blocks.join("\n"),
        command: Some(name.to_string()),
        model,
        notes,
        grant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_slash_invocations() {
        assert_eq!(split_invocation("/review a b"), Some(("review", "a b")));
        assert_eq!(split_invocation("  /sub:deep\n x"), Some(("sub:deep", "x")));
        assert_eq!(split_invocation("/usr/bin/env x"), None);
        assert_eq!(split_invocation("/ x"), None);
        assert_eq!(split_invocation("review"), None);
    }
}
