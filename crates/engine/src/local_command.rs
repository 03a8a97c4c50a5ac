//! The built-in commands a headless session runs itself
//! ([`orbit_commands::LocalCommand`]: `/compact`, `/context`, `/cost`,
//! `/model`, `/clear`), as Claude Code 2.1.332 runs them in `-p` and for an
//! SDK's user message: no model request (but `/compact`'s summary), the
//! command's output as an `assistant` message of model [`SYNTHETIC_MODEL`]
//! and a `success` result of zero turns whose `result` is that output.
//!
//! Data flow: the front end (`-p`, the SDK session loop) asks
//! `orbit_commands::local_command` first and hands a match to
//! [`QueryEngine::run_local_command`]; the events come back in the order
//! the writer prints them (`compact_boundary` first for `/compact`).

use orbit_commands::LocalCommand;
use orbit_protocol::{
    ContentBlock, EngineEvent, Message, ResultSubtype, Role, TerminalResult, Usage,
};

use crate::context_usage::ContextUsage;
use crate::engine::QueryEngine;
use orbit_model::catalog::{ModelRefused, Provider};

/// The `model` of a locally answered command's `assistant` message (Claude
/// Code's name for it).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

impl QueryEngine {
    /// `/model NAME`: the model id to switch to, or why this session's
    /// provider cannot run it (the catalog's `runs_on`; a client the
    /// catalog does not know takes any name).
    pub fn check_model(&self, name: &str) -> Result<String, ModelRefused> {
        let current = &self.config().model;
        match Provider::of_client(self.provider()) {
            Some(provider) => orbit_model::catalog::check_model(provider, current, name),
            None => Ok(orbit_model::catalog::resolve_alias(name).to_string()),
        }
    }

    /// What `/model` lists: the aliases and ids this session's provider
    /// runs (an OpenAI-compatible server may run others too).
    pub fn model_choices(&self) -> Vec<String> {
        let provider = Provider::of_client(self.provider());
        let all = provider
            .map(orbit_model::catalog::choices)
            .unwrap_or_default();
        // Claude's rows by alias (its dated ids are many); rows without
        // aliases (OpenAI's, the local model) by id.
        let aliased: Vec<_> = all.iter().filter(|f| !f.aliases.is_empty()).collect();
        let shown = if aliased.is_empty() {
            all.iter().collect()
        } else {
            aliased
        };
        let mut out: Vec<String> = shown
            .iter()
            .map(|facts| match facts.aliases.first() {
                Some(alias) => format!("{alias} ({})", facts.id),
                None => facts.id.to_string(),
            })
            .collect();
        if provider != Some(Provider::Local) {
            out.push("or a full model ID".to_string());
        }
        out
    }

    /// Runs a built-in command (module docs); the events to print, the
    /// result last. `/init` ([`LocalCommand::Prompt`]) is a prompt for
    /// the model, not run here: the front end submits it.
    pub async fn run_local_command(&mut self, command: &LocalCommand) -> Vec<EngineEvent> {
        let started = std::time::Instant::now();
        let mut events = Vec::new();
        let outcome = match command {
            LocalCommand::Compact(instructions) => self.local_compact(instructions, &mut events).await,
            LocalCommand::Context => Ok(context_text(&self.context_usage())),
            LocalCommand::Cost => Ok(self.cost_text()),
            LocalCommand::Model(None) => Ok(format!(
                "Current model: `{}`\nUsage: /model <name>. Available: {}.",
                self.config().model,
                self.model_choices().join(", ")
            )),
            LocalCommand::Model(Some(name)) => match self.check_model(name) {
                Ok(id) => {
                    self.set_model(id.clone());
                    Ok(format!("Set model to `{id}` for this session only"))
                }
                Err(why) => Err(format!("Model not switched: {why}")),
            },
            LocalCommand::Clear if self.messages().is_empty() => Ok(String::new()),
            LocalCommand::Clear => Err(
                "/clear: a headless session keeps its history; start a new session (without -c/--resume) for a clean one"
                    .to_string(),
            ),
            LocalCommand::Prompt(_) => Err(
                "this command is a prompt for the model: submit it instead".to_string(),
            ),
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let result = match outcome {
            Ok(text) => {
                if !text.is_empty() {
                    events.push(synthetic_assistant(&text));
                }
                local_result(ResultSubtype::Success, text, Vec::new(), duration_ms)
            }
            Err(error) => local_result(
                ResultSubtype::ErrorDuringExecution,
                String::new(),
                vec![error],
                duration_ms,
            ),
        };
        events.push(EngineEvent::Result(result));
        events
    }

    /// `/compact`: nothing to do on an empty history (Claude Code answers
    /// with an empty result); else the summary, its boundary event pushed.
    async fn local_compact(
        &mut self,
        instructions: &Option<String>,
        events: &mut Vec<EngineEvent>,
    ) -> Result<String, String> {
        if self.messages().is_empty() {
            return Ok(String::new());
        }
        let boundary = self
            .compact(instructions.clone())
            .await
            .map_err(|err| format!("/compact: {err}"))?;
        events.push(EngineEvent::CompactBoundary {
            trigger: boundary.trigger,
            pre_tokens: boundary.pre_tokens,
            post_tokens: boundary.post_tokens,
        });
        Ok(String::new())
    }

    /// `/cost`'s lines, in Claude Code's layout.
    fn cost_text(&self) -> String {
        let usage = self.session().usage();
        format!(
            "Total cost:            ${:.4}\nModel calls:           {}\nUsage:                 {} input, {} output, {} cache read, {} cache write",
            self.total_cost_usd(),
            self.session().turns(),
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens
        )
    }
}

/// `/context`'s Markdown: the model, the total against the window, a table
/// by category.
fn context_text(usage: &ContextUsage) -> String {
    let percent = |tokens: u64| {
        if usage.raw_max_tokens == 0 {
            0.0
        } else {
            tokens as f64 * 100.0 / usage.raw_max_tokens as f64
        }
    };
    let free = usage.raw_max_tokens.saturating_sub(usage.total_tokens);
    let mut out = format!(
        "## Context Usage\n\n**Model:** {}  \n**Tokens:** {} / {} ({:.0}%)\n\n### Estimated usage by category\n\n| Category | Tokens | Percentage |\n|----------|--------|------------|\n",
        usage.model,
        usage.total_tokens,
        usage.raw_max_tokens,
        percent(usage.total_tokens)
    );
    let rows = [
        ("System prompt", usage.system_prompt_tokens),
        ("System tools", usage.system_tools_tokens),
        ("MCP tools", usage.mcp_tools_tokens),
        ("Messages", usage.messages_tokens),
        ("Free space", free),
    ];
    for (name, tokens) in rows {
        out.push_str(&format!(
            "| {name} | {tokens} | {:.1}% |\n",
            percent(tokens)
        ));
    }
    if usage.auto_compact_enabled {
        out.push_str(&format!(
            "\nAutomatic compaction at {} tokens.\n",
            usage.auto_compact_threshold
        ));
    }
    out
}

/// The `assistant` message carrying a local command's output.
fn synthetic_assistant(text: &str) -> EngineEvent {
    EngineEvent::AssistantMessage {
        uuid: uuid::Uuid::new_v4().to_string(),
        message: Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text(text)],
        },
        message_id: Some(uuid::Uuid::new_v4().to_string()),
        model: SYNTHETIC_MODEL.to_string(),
        stop_reason: Some("end_turn".to_string()),
        usage: Usage::default(),
    }
}

/// A result of zero turns and no cost.
fn local_result(
    subtype: ResultSubtype,
    result: String,
    errors: Vec<String>,
    duration_ms: u64,
) -> TerminalResult {
    TerminalResult {
        subtype,
        num_turns: 0,
        duration_ms,
        duration_api_ms: 0,
        total_cost_usd: 0.0,
        usage: Usage::default(),
        result,
        stop_reason: None,
        permission_denials: Vec::new(),
        errors,
        interrupted: false,
        structured_output: None,
    }
}
