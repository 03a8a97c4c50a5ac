//! What a hook's run means: exit 0 = success (stdout is context for the
//! events that take it, or a JSON object of fields), exit 2 = block (stderr
//! is the reason), any other code, a timeout, a crash or invalid JSON = a
//! non-blocking error the user is told about in one line. [`HookVerdict`]
//! folds every run of one event together: a deny beats an ask beats an
//! allow, the first block reason wins, context and messages add up.

use orbit_protocol::{HookReport, HookRunOutcome};
use serde::Deserialize;
use serde_json::Value;

use crate::config::HookCommand;
use crate::event::HookEvent;
use crate::runner::{HOOK_OUTPUT_CAP_BYTES, HookRun, RunFailure};

/// Exit code that blocks (Claude Code's convention).
pub const HOOK_BLOCK_EXIT_CODE: i32 = 2;

/// A permission answer from PreToolUse or PermissionRequest hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PermissionVote {
    /// Run it without asking (a deny rule still wins).
    Allow,
    /// Ask the user (headless: deny).
    Ask,
    /// Do not run it.
    Deny,
}

/// Every hook of one event, folded together.
#[derive(Debug, Clone, Default)]
pub struct HookVerdict {
    /// A block: exit 2 (its stderr) or `decision: "block"` (its reason).
    pub block: Option<String>,
    /// The strongest permission answer, with its reason.
    pub permission: Option<(PermissionVote, String)>,
    /// `hookSpecificOutput.updatedInput` (the last one given).
    pub updated_input: Option<Value>,
    /// Context for the model: `additionalContext`, and the plain stdout of
    /// UserPromptSubmit and SessionStart hooks.
    pub additional_context: Vec<String>,
    /// `continue: false`: the session stops, with `stopReason`.
    pub stop: Option<String>,
    /// `systemMessage`s, for the user.
    pub system_messages: Vec<String>,
    /// One line per failed hook, for the user.
    pub errors: Vec<String>,
    /// One report per run, for `hook_response` lines.
    pub reports: Vec<HookReport>,
}

impl HookVerdict {
    /// The context joined for the model, if any.
    pub fn context(&self) -> Option<String> {
        (!self.additional_context.is_empty()).then(|| self.additional_context.join("\n"))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct JsonOutput {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    suppress_output: bool,
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hook_specific_output: Option<SpecificOutput>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct SpecificOutput {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
    /// PermissionRequest: `{"behavior": "allow"|"deny", "message": …}`.
    decision: Option<RequestDecision>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RequestDecision {
    behavior: Option<String>,
    message: Option<String>,
    #[serde(rename = "updatedInput")]
    updated_input: Option<Value>,
}

fn vote(text: &str) -> Option<PermissionVote> {
    match text {
        "allow" | "approve" => Some(PermissionVote::Allow),
        "ask" => Some(PermissionVote::Ask),
        "deny" | "block" => Some(PermissionVote::Deny),
        _ => None,
    }
}

impl HookVerdict {
    /// Adds one run of `hook` for `event` (its report gets a new id).
    pub fn add(&mut self, event: HookEvent, hook_name: String, hook: &HookCommand, run: HookRun) {
        let hook_id = uuid::Uuid::new_v4().to_string();
        self.add_run(event, hook_id, hook_name, hook, run);
    }

    /// [`Self::add`] with the run's id (the one a `hook_started` line gave).
    pub fn add_run(
        &mut self,
        event: HookEvent,
        hook_id: String,
        hook_name: String,
        hook: &HookCommand,
        run: HookRun,
    ) {
        let label = format!("{hook_name} hook `{}`", hook.command);
        let mut outcome = HookRunOutcome::Success;
        let mut output = String::new();
        let mut stdout = run.stdout.clone();
        match (&run.failure, run.exit_code) {
            (Some(failure), _) => {
                outcome = HookRunOutcome::Error;
                output = match failure {
                    RunFailure::TimedOut(ms) => {
                        format!("timed out after {} s and was killed", ms / 1000)
                    }
                    RunFailure::Signal(sig) => format!("crashed (signal {sig})"),
                    RunFailure::Spawn(err) => format!("could not start: {err}"),
                };
                self.errors.push(format!("{label} {output}"));
            }
            (None, Some(HOOK_BLOCK_EXIT_CODE)) => {
                outcome = HookRunOutcome::Error;
                let reason = run.stderr.trim();
                let reason = if reason.is_empty() {
                    format!("{label} exited with 2")
                } else {
                    reason.to_string()
                };
                output = format!("blocked: {reason}");
                self.block.get_or_insert(reason);
            }
            (None, Some(0)) => {
                if !self.success(event, &label, &run, &mut output, &mut stdout) {
                    outcome = HookRunOutcome::Error;
                }
            }
            (None, code) => {
                outcome = HookRunOutcome::Error;
                let first = run
                    .stderr
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                let detail = if first.is_empty() {
                    String::new()
                } else {
                    format!(": {first}")
                };
                output = format!("failed with exit code {}{detail}", code.unwrap_or(-1));
                self.errors.push(format!("{label} {output}"));
            }
        }
        if run.truncated {
            // What it printed was not read whole: a non-blocking error.
            outcome = HookRunOutcome::Error;
            let cut = format!("printed too much (output cut at {HOOK_OUTPUT_CAP_BYTES} bytes)");
            output = if output.is_empty() {
                cut
            } else {
                format!("{output}; {cut}")
            };
            self.errors.push(format!("{label} {output}"));
        }
        self.reports.push(HookReport {
            hook_id,
            hook_name,
            hook_event: event.name().to_string(),
            command: hook.command.clone(),
            output,
            stdout,
            stderr: run.stderr,
            exit_code: run.exit_code,
            outcome,
        });
    }

    /// Exit 0: plain text or a JSON object. False when the JSON is invalid.
    fn success(
        &mut self,
        event: HookEvent,
        label: &str,
        run: &HookRun,
        output: &mut String,
        stdout: &mut String,
    ) -> bool {
        let text = run.stdout.trim();
        if !text.starts_with('{') {
            if !text.is_empty()
                && matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            {
                self.additional_context.push(text.to_string());
            }
            return true;
        }
        let json: JsonOutput = match serde_json::from_str(text) {
            Ok(json) => json,
            Err(err) => {
                *output = format!("printed invalid JSON ({err}); its output was ignored");
                self.errors.push(format!("{label} {output}"));
                return false;
            }
        };
        if json.suppress_output {
            stdout.clear();
        }
        if json.keep_going == Some(false) {
            self.stop
                .get_or_insert(json.stop_reason.clone().unwrap_or_default());
        }
        if let Some(message) = json.system_message {
            self.system_messages.push(message);
        }
        let reason = json.reason.clone().unwrap_or_default();
        match json.decision.as_deref() {
            Some("block") => {
                let reason = if reason.is_empty() {
                    format!("blocked by {label}")
                } else {
                    reason.clone()
                };
                self.block.get_or_insert(reason);
            }
            Some("approve") => self.vote(PermissionVote::Allow, reason.clone()),
            _ => {}
        }
        let Some(specific) = json.hook_specific_output else {
            return true;
        };
        if let Some(decision) = specific.permission_decision.as_deref().and_then(vote) {
            let why = specific
                .permission_decision_reason
                .clone()
                .unwrap_or_default();
            self.vote(decision, why);
        }
        if let Some(request) = specific.decision {
            if let Some(decision) = request.behavior.as_deref().and_then(vote) {
                self.vote(decision, request.message.unwrap_or_default());
            }
            if request.updated_input.is_some() {
                self.updated_input = request.updated_input;
            }
        }
        if specific.updated_input.is_some() {
            self.updated_input = specific.updated_input;
        }
        if let Some(context) = specific.additional_context.filter(|c| !c.trim().is_empty()) {
            self.additional_context.push(context);
        }
        true
    }

    fn vote(&mut self, vote: PermissionVote, reason: String) {
        match &self.permission {
            Some((current, _)) if *current >= vote => {}
            _ => self.permission = Some((vote, reason)),
        }
    }
}
