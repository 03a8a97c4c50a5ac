//! How a prompt's own expansion reaches the session: the
//! [`orbit_commands::PromptSession`] a custom slash command (`orbit-commands`)
//! is expanded against — [`QueryEngine::grant_scope`] (its `allowed-tools`
//! as a one-prompt grant, `crate::grants`, opened by
//! `crate::turn_permissions`) and
//! [`QueryEngine::run_prompt_tool`], which takes one call (`Bash` for
//! `!`cmd``, `Read` for `@file`) through the orchestrator exactly as the
//! model's calls go (validation → PreToolUse hooks → permission gate with
//! the approver, denied headless unless a rule or grant allows → call →
//! result pipeline) and says whether it ran (a gate denial is recorded like
//! any other).

use std::sync::atomic::{AtomicU64, Ordering};

use orbit_protocol::ToolUseBlock;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::engine::QueryEngine;
use crate::grants::GrantScope;
use crate::orchestrator::run_single;
use crate::turn_permissions::scope_for;

/// What a prompt's own tool call gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptToolOutcome {
    /// The call did not run: the permission gate (a rule, the mode, a
    /// hook, the approver, or no approver headless) refused it, or its
    /// input was refused; the reason.
    Denied(String),
    /// The call never ran: no such tool in the session, or invalid input.
    Unavailable(String),
    /// The tool ran: its result text, and whether it is an error.
    Ran {
        /// The tool_result's text.
        text: String,
        /// The tool reported an error (a failing command, a missing file).
        is_error: bool,
    },
}

impl QueryEngine {
    /// Grants `rules` (allow rules in the permission-rule syntax) until the
    /// returned scope is dropped. Rules that do not compile grant nothing
    /// and are listed by [`GrantScope::errors`].
    pub fn grant_scope(&self, rules: &[String]) -> GrantScope {
        scope_for(self.runtime_arc(), &self.config().permissions, rules)
    }

    /// How many grant scopes are alive (0 once every prompt's grant ended).
    pub fn active_grant_scopes(&self) -> usize {
        self.runtime_arc().grants.len()
    }

    /// Runs one call of a prompt's expansion (`!`cmd`` → `Bash`, `@file`
    /// → `Read`) through the orchestrator, as a model's call would run.
    pub async fn run_prompt_tool(&self, name: &str, input: Value) -> PromptToolOutcome {
        static NEXT_CALL: AtomicU64 = AtomicU64::new(0);
        let runtime = self.runtime_arc();
        let id = format!("orbit_prompt_{}", NEXT_CALL.fetch_add(1, Ordering::Relaxed));
        let block = ToolUseBlock {
            id,
            name: name.to_string(),
            input,
        };
        let outcome = match run_single(runtime, block, CancellationToken::new()).await {
            Ok(outcome) => outcome,
            Err(text) => {
                let text = text.unwrap_or_else(|| format!("{name} cannot run here"));
                return PromptToolOutcome::Unavailable(text);
            }
        };
        let text = outcome.result.content.as_text();
        let is_error = outcome.result.is_error();
        // An error that is not the tool's own: validation, a hook or the
        // permission gate refused the call (a denial is recorded as for
        // any call); the tool never ran.
        if is_error && !outcome.tool_failed {
            return PromptToolOutcome::Denied(text);
        }
        PromptToolOutcome::Ran { text, is_error }
    }
}

/// How custom slash commands (`orbit-commands`) reach this session: its
/// grants, its orchestrator, its cwd and model.
impl orbit_commands::PromptSession for QueryEngine {
    fn expansion_hooks<'a>(
        &'a self,
        command: &'a str,
        fields: Value,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = orbit_commands::ExpansionVerdict> + 'a>>
    {
        Box::pin(async move {
            let hooks = &self.runtime_arc().hooks;
            if !hooks.active(orbit_hooks::HookEvent::UserPromptExpansion) {
                return orbit_commands::ExpansionVerdict::default();
            }
            let verdict = hooks
                .run(
                    orbit_hooks::HookEvent::UserPromptExpansion,
                    Some(command),
                    fields,
                )
                .await;
            orbit_commands::ExpansionVerdict {
                context: verdict.context(),
                block: verdict.block,
            }
        })
    }

    fn grant(&self, rules: &[String]) -> orbit_commands::Grant {
        let scope = self.grant_scope(rules);
        let errors = scope.errors().iter().map(ToString::to_string).collect();
        orbit_commands::Grant {
            guard: Box::new(scope),
            errors,
        }
    }

    fn run_tool<'a>(
        &'a self,
        name: &'a str,
        input: Value,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = orbit_commands::ToolRun> + 'a>> {
        Box::pin(async move {
            match self.run_prompt_tool(name, input).await {
                PromptToolOutcome::Denied(why) => orbit_commands::ToolRun::Denied(why),
                PromptToolOutcome::Unavailable(why) => orbit_commands::ToolRun::Unavailable(why),
                PromptToolOutcome::Ran { text, is_error } => {
                    orbit_commands::ToolRun::Ran { text, is_error }
                }
            }
        })
    }

    fn cwd(&self) -> std::path::PathBuf {
        self.tool_context().cwd()
    }

    fn model(&self) -> String {
        self.config().model.clone()
    }

    fn set_model(&mut self, model: &str) {
        let model = orbit_model::catalog::resolve_alias(model).to_string();
        if model != self.config().model {
            QueryEngine::set_model(self, model);
        }
    }
}
