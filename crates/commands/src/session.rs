//! What expanding a command needs from a session, as a trait so this crate
//! stays below the engine (the composer uses it too): `orbit-engine`
//! implements [`PromptSession`] for `QueryEngine` over its one scoped-grant
//! mechanism and its orchestrator.

use std::any::Any;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use serde_json::Value;

/// What a prompt's own tool call gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRun {
    /// The call did not run: the permission gate (a rule, the mode, a
    /// hook, the approver, or no approver headless) or the tool's input
    /// check refused it; the reason.
    Denied(String),
    /// No such tool in the session, or it cannot run here.
    Unavailable(String),
    /// The tool ran: its result text and whether it is an error.
    Ran {
        /// The tool_result's text.
        text: String,
        /// The tool reported an error.
        is_error: bool,
    },
}

/// A live grant: the rules hold until it is dropped.
pub struct Grant {
    /// The session's guard (dropping it ends the grant).
    pub guard: Box<dyn Any + Send>,
    /// Rules that did not compile (they grant nothing), as error lines.
    pub errors: Vec<String>,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("errors", &self.errors)
            .finish()
    }
}

/// What the UserPromptExpansion hooks said of one expansion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpansionVerdict {
    /// A hook blocked the expansion (exit 2, `decision: block`): why.
    pub block: Option<String>,
    /// Their `additionalContext`, joined.
    pub context: Option<String>,
}

/// A session a command expands in.
pub trait PromptSession {
    /// Runs the session's UserPromptExpansion hooks for `command` (the
    /// matcher's subject) with `fields` (Claude Code 2.1.332's:
    /// `expansion_type`, `command_name`, `command_args`, `command_source`,
    /// `prompt`). A session without hooks answers nothing.
    fn expansion_hooks<'a>(
        &'a self,
        command: &'a str,
        fields: Value,
    ) -> Pin<Box<dyn Future<Output = ExpansionVerdict> + 'a>> {
        let _ = (command, fields);
        Box::pin(async { ExpansionVerdict::default() })
    }
    /// Grants allow `rules` (permission-rule syntax) until the returned
    /// grant is dropped; they only turn an ask into an allow.
    fn grant(&self, rules: &[String]) -> Grant;
    /// Runs one call (`Bash` for `!`cmd``, `Read` for `@file`) as a
    /// model's call runs: hooks, the permission gate, the tool.
    fn run_tool<'a>(
        &'a self,
        name: &'a str,
        input: Value,
    ) -> Pin<Box<dyn Future<Output = ToolRun> + 'a>>;
    /// The session's working directory.
    fn cwd(&self) -> PathBuf;
    /// The model of the next request.
    fn model(&self) -> String;
    /// Uses `model` (an alias resolves as `--model`'s does) from the next
    /// request on.
    fn set_model(&mut self, model: &str);
}
