//! Scoped grants: allow rules that hold for one prompt only — a custom
//! command's `allowed-tools` (and, later, a skill's) — and the tool calls
//! a prompt's own expansion makes (`!`cmd`` output, `@file` contents)
//! before the prompt is sent.
//!
//! Data flow: [`QueryEngine::grant_scope`] compiles the rules into a
//! [`GrantScope`] registered in the session's `ToolRuntime`; while it lives,
//! the permission gate (`gate::decide`) turns an `Ask` of the session's
//! policy into `Allow` when the same policy with these rules added allows
//! the call. Deny rules, ask rules, plan mode, protected paths and the
//! workspace boundary are decided exactly as without the grant (the scoped
//! policy carries the same rules and mode); a grant only ever adds allow
//! rules. Dropping the scope (the prompt ended, its stream dropped, or an
//! error path) removes it: a grant never outlives the prompt.
//!
//! [`QueryEngine::run_prompt_tool`] takes one call (`Bash` for `!`cmd``,
//! `Read` for `@file`) through the orchestrator exactly as the model's calls
//! go (validation → PreToolUse hooks → permission gate with the approver,
//! denied headless unless a rule or grant allows → call → result pipeline)
//! and says whether it ran (a gate denial is recorded like any other).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use orbit_permissions::{
    PermissionConfig, PermissionDecision, PermissionRequest, Policy, RuleError,
};
use orbit_protocol::ToolUseBlock;
use orbit_tool::CallContext;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::QueryEngine;
use crate::orchestrator::{Prepared, ToolRuntime, prepare, run_tool_use};

/// The grant scopes alive in a session (usually none or one).
#[derive(Debug, Default)]
pub(crate) struct GrantScopes {
    next_id: AtomicU64,
    active: Mutex<Vec<(u64, Arc<Policy>)>>,
}

impl GrantScopes {
    /// Whether a live scope allows a call the session's policy (`main`)
    /// would ask about.
    pub(crate) fn allows(&self, main: &Policy, request: &PermissionRequest<'_>) -> bool {
        let scopes: Vec<Arc<Policy>> = match self.active.lock() {
            Ok(active) => active.iter().map(|(_, p)| Arc::clone(p)).collect(),
            Err(poisoned) => poisoned
                .into_inner()
                .iter()
                .map(|(_, p)| Arc::clone(p))
                .collect(),
        };
        scopes.iter().any(|scoped| {
            scoped.set_mode(main.mode());
            scoped.decide(request) == PermissionDecision::Allow
        })
    }

    fn insert(&self, policy: Arc<Policy>) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        match self.active.lock() {
            Ok(mut active) => active.push((id, policy)),
            Err(poisoned) => poisoned.into_inner().push((id, policy)),
        }
        id
    }

    fn remove(&self, id: u64) {
        match self.active.lock() {
            Ok(mut active) => active.retain(|(i, _)| *i != id),
            Err(poisoned) => poisoned.into_inner().retain(|(i, _)| *i != id),
        }
    }

    /// How many scopes are alive (tests, diagnostics).
    fn len(&self) -> usize {
        match self.active.lock() {
            Ok(active) => active.len(),
            Err(poisoned) => poisoned.into_inner().len(),
        }
    }
}

/// Allow rules granted while this value lives (see the module docs).
/// Dropping it ends the grant.
#[derive(Debug)]
pub struct GrantScope {
    id: u64,
    runtime: Arc<ToolRuntime>,
    errors: Vec<RuleError>,
}

impl GrantScope {
    /// Rules that did not compile (they grant nothing).
    pub fn errors(&self) -> &[RuleError] {
        &self.errors
    }
}

impl Drop for GrantScope {
    fn drop(&mut self) {
        self.runtime.grants.remove(self.id);
    }
}

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
        let runtime = Arc::clone(self.runtime_arc());
        let root = runtime.context.project_root.clone();
        let granted = PermissionConfig {
            allowed_tools: rules.to_vec(),
            ..PermissionConfig::default()
        };
        let errors = Policy::new(&granted, &root).errors().to_vec();
        let base = &self.config().permissions;
        let mut scoped = base.clone();
        scoped.allowed_tools.extend(rules.iter().cloned());
        let id = runtime.grants.insert(Arc::new(Policy::new(&scoped, &root)));
        GrantScope {
            id,
            runtime,
            errors,
        }
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
            id: id.clone(),
            name: name.to_string(),
            input: input.clone(),
        };
        let (tool, staged) = match prepare(&runtime.tools, &block, None, &runtime.context) {
            Prepared::Ready {
                tool,
                call: Some(staged),
                ..
            } => (tool, staged),
            Prepared::Ready { call: None, .. } => {
                return PromptToolOutcome::Unavailable(format!("{name} cannot run here"));
            }
            Prepared::Rejected(text) => return PromptToolOutcome::Unavailable(text),
        };
        let context = CallContext::new(id.clone(), CancellationToken::new(), None);
        let outcome = run_tool_use(runtime, tool, staged, input, context).await;
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
