//! Hooks with Claude Code's protocol: commands from settings files that run
//! at points of a session and can steer it.
//!
//! Data flow: settings `hooks` values → [`HookSet::parse`] (typed, errors
//! name the file) → [`Hooks`] (the set and the project directory) →
//! [`Hooks::run`] at each hook point the engine reaches: the hooks whose
//! matcher accepts the subject (each command once) run in parallel
//! ([`runner`]: own process group, stdin JSON, timeout, capped output) →
//! [`HookVerdict`] (`decision`: exit codes and JSON fields, folded over
//! every run). Hooks of type `callback` (registered by the Claude Agent
//! SDK) run through [`HookCallbacks`] instead of a process, their answer
//! parsed the same way (module `callback`). Types `http` and `prompt` run
//! in [`remote`] (a POST; the session's small fast model through
//! [`Hooks::with_side_query`]), their answers read the same way too. The engine decides what a verdict does at its hook point;
//! nothing here knows tools or permissions.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod callback;
mod config;
mod decision;
mod event;
mod pending;
pub mod remote;
pub mod runner;

use std::path::{Path, PathBuf};

pub use callback::HookCallbacks;

/// Told when each command hook starts (the CLI's `--include-hook-events`
/// writes Claude Code's `hook_started` line from it). `hook_id` is the
/// one the run's report carries ([`HookVerdict`]'s `hook_response`);
/// `hook_name` is `Event` or `Event:subject` (`PreToolUse:Bash`), as Claude
/// Code names it.
pub trait HookObserver: Send + Sync {
    /// A command hook is starting.
    fn started(&self, hook_id: &str, hook_name: &str, event: HookEvent);
}

/// A shared [`HookObserver`] (Debug for [`Hooks`]).
#[derive(Clone)]
struct Observer(std::sync::Arc<dyn HookObserver>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookObserver")
    }
}
pub use config::{
    HOOK_DEFAULT_TIMEOUT_MS, HOOK_PROMPT_DEFAULT_TIMEOUT_MS, HookCommand, HookConfigError,
    HookEntry, HookSet, HttpHook, Matcher,
};
pub use decision::{HOOK_BLOCK_EXIT_CODE, HookVerdict, PermissionVote};
pub use event::{HOOK_EVENT_COUNT, HookEvent};
pub use pending::{PENDING_HOOKS_KEY, PendingHooks, PendingRun};
use serde_json::Value;

use crate::callback::Callbacks;

/// The hooks of a session and where they run.
#[derive(Debug, Clone)]
pub struct Hooks {
    set: HookSet,
    project_dir: PathBuf,
    callbacks: Option<Callbacks>,
    env: std::sync::Arc<Vec<(String, std::ffi::OsString)>>,
    observer: Option<Observer>,
    evaluator: Option<remote::Evaluator>,
}

impl Hooks {
    /// `set`, run in `project_dir` (also `CLAUDE_PROJECT_DIR`).
    pub fn new(set: HookSet, project_dir: impl Into<PathBuf>) -> Self {
        Self {
            set,
            project_dir: project_dir.into(),
            callbacks: None,
            env: std::sync::Arc::default(),
            observer: None,
            evaluator: None,
        }
    }

    /// `prompt` hooks ask `side` (the session's small fast model).
    pub fn with_side_query(
        mut self,
        side: std::sync::Arc<dyn orbit_tool::side_query::SideQuery>,
    ) -> Self {
        self.evaluator = Some(remote::Evaluator(side));
        self
    }

    /// Whether any hook of type `prompt` is configured (a session gives
    /// them its model only then).
    pub fn has_prompt_hooks(&self) -> bool {
        self.set.entries().iter().any(|e| e.hook.prompt.is_some())
    }

    /// `observer` is told when each command hook starts and ends.
    pub fn with_observer(mut self, observer: std::sync::Arc<dyn HookObserver>) -> Self {
        self.observer = Some(Observer(observer));
        self
    }

    /// Command hooks run with these variables added to their environment
    /// (the settings files' `env`, as Claude Code gives it to hooks).
    pub fn with_env(mut self, vars: Vec<(String, std::ffi::OsString)>) -> Self {
        self.env = std::sync::Arc::new(vars);
        self
    }

    /// Callback hooks (type `callback`) run through `callbacks`.
    pub fn with_callbacks(mut self, callbacks: std::sync::Arc<dyn HookCallbacks>) -> Self {
        self.callbacks = Some(Callbacks(callbacks));
        self
    }

    /// The configured hooks.
    pub fn set(&self) -> &HookSet {
        &self.set
    }

    /// The project directory.
    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// Whether any hook is configured for `event` (callers skip building
    /// the input otherwise).
    pub fn has(&self, event: HookEvent) -> bool {
        self.set.has(event)
    }

    /// Runs the hooks of `event` matching `subject` in parallel, each with
    /// `input` plus `hook_event_name` on stdin, and folds their answers.
    /// With no matching hook the verdict is empty and nothing is spawned.
    pub async fn run(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        mut input: Value,
    ) -> HookVerdict {
        let mut verdict = HookVerdict::default();
        let hooks: Vec<HookCommand> = self
            .set
            .matching(event, subject)
            .into_iter()
            .cloned()
            .collect();
        if hooks.is_empty() {
            return verdict;
        }
        if let Value::Object(map) = &mut input {
            map.insert("hook_event_name".into(), Value::String(event.name().into()));
        }
        let bytes = serde_json::to_vec(&input).unwrap_or_default();
        let input = std::sync::Arc::new(input);
        let name = match subject {
            Some(subject) if event.has_matcher() => format!("{event}:{subject}"),
            _ => event.name().to_string(),
        };
        let mut set = tokio::task::JoinSet::new();
        for (i, hook) in hooks.iter().enumerate() {
            let hook = hook.clone();
            let bytes = bytes.clone();
            let dir = self.project_dir.clone();
            let callbacks = self.callbacks.clone();
            let env = std::sync::Arc::clone(&self.env);
            let observer = self.observer.clone();
            let hook_name = name.clone();
            let input = std::sync::Arc::clone(&input);
            let hook_id = uuid::Uuid::new_v4().to_string();
            let evaluator = self.evaluator.clone();
            set.spawn(async move {
                if let Some(id) = &hook.callback {
                    let run = callback::run_callback(callbacks.as_ref(), &hook, id, &input).await;
                    return (i, hook_id, run);
                }
                if let Some(Observer(o)) = &observer {
                    o.started(&hook_id, &hook_name, event);
                }
                let run = match (&hook.http, &hook.prompt) {
                    (Some(http), _) => remote::run_http(&hook, http, &bytes, &env).await,
                    (None, Some(prompt)) => {
                        remote::run_prompt(evaluator.as_ref(), &hook, prompt, event, &input).await
                    }
                    (None, None) => runner::run_command(&hook, &bytes, &dir, &env).await,
                };
                (i, hook_id, run)
            });
        }
        let mut runs = Vec::with_capacity(hooks.len());
        while let Some(joined) = set.join_next().await {
            match joined {
                Ok(run) => runs.push(run),
                Err(err) => tracing::error!(%err, "a hook task failed"),
            }
        }
        runs.sort_by_key(|(i, _, _)| *i);
        for (i, hook_id, run) in runs {
            verdict.add_run(event, hook_id, name.clone(), &hooks[i], run);
        }
        verdict
    }
}
