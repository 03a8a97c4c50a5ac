//! Hooks that are callbacks in the program driving orbit (the Claude Agent
//! SDK registers them in its `initialize` request): a [`HookCommand`] with
//! a `callback` id runs by asking [`HookCallbacks`] instead of `sh`. The
//! answer is the JSON a command hook would print on stdout, so it becomes
//! an exit-0 [`HookRun`] with that JSON as its stdout and goes through the
//! same [`crate::HookVerdict`] parsing; a failed call is a non-blocking
//! error (exit 1, the error as stderr), a late one a timeout.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use crate::config::HookCommand;
use crate::runner::{HookRun, RunFailure};

/// Runs hook callbacks by id (the SDK's `hook_callback` request).
#[async_trait]
pub trait HookCallbacks: Send + Sync {
    /// Calls callback `id` with the hook's input; the answer is the hook's
    /// JSON output (`{}` for "nothing to say"), Err when the call failed.
    async fn call(&self, id: &str, input: &Value) -> Result<Value, String>;
}

/// The callbacks of a [`crate::Hooks`] (shared, printable).
#[derive(Clone)]
pub(crate) struct Callbacks(pub(crate) Arc<dyn HookCallbacks>);

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HookCallbacks")
    }
}

/// Runs callback hook `hook` (its `callback` id) with `input`.
pub(crate) async fn run_callback(
    callbacks: Option<&Callbacks>,
    hook: &HookCommand,
    id: &str,
    input: &Value,
) -> HookRun {
    let Some(callbacks) = callbacks else {
        return failed(format!("no program answers hook callback {id}"));
    };
    let timeout = Duration::from_millis(hook.timeout_ms);
    match tokio::time::timeout(timeout, callbacks.0.call(id, input)).await {
        Err(_) => HookRun::failed(RunFailure::TimedOut(hook.timeout_ms)),
        Ok(Err(error)) => failed(error),
        Ok(Ok(answer)) => HookRun {
            exit_code: Some(0),
            stdout: match answer {
                Value::Null => String::new(),
                answer => answer.to_string(),
            },
            stderr: String::new(),
            truncated: false,
            failure: None,
        },
    }
}

fn failed(error: String) -> HookRun {
    HookRun {
        exit_code: Some(1),
        stdout: String::new(),
        stderr: error,
        truncated: false,
        failure: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{HookEvent, HookSet, Hooks, PermissionVote};

    /// Answers by id: `deny` denies, `fail` fails, `slow` never answers in
    /// time, anything else says nothing.
    struct Fake;

    #[async_trait]
    impl HookCallbacks for Fake {
        async fn call(&self, id: &str, input: &Value) -> Result<Value, String> {
            match id {
                "deny" => Ok(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": format!("no {}", input["tool_name"].as_str().unwrap_or_default())}})),
                "fail" => Err("the callback raised".into()),
                "slow" => {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(json!({}))
                }
                _ => Ok(json!({})),
            }
        }
    }

    /// A callback's answer is applied like a command hook's JSON output;
    /// a failure or a timeout is a non-blocking error.
    #[tokio::test]
    async fn callback_answers_become_verdicts() {
        let cases = [
            (
                "deny",
                Some((PermissionVote::Deny, "no Bash".to_string())),
                0,
            ),
            ("quiet", None, 0),
            ("fail", None, 1),
            ("slow", None, 1),
        ];
        for (id, permission, errors) in cases {
            let config = json!({"PreToolUse": [{"matcher": "Bash",
                "hooks": [{"type": "callback", "callback_id": id, "timeout": 0.2}]}]});
            let set = HookSet::parse(&config, "test", "sdk").unwrap_or_else(|e| panic!("{e}"));
            let hooks = Hooks::new(set, ".").with_callbacks(Arc::new(Fake));
            let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
            let verdict = hooks.run(HookEvent::PreToolUse, Some("Bash"), input).await;
            assert_eq!(verdict.permission, permission, "{id}");
            assert_eq!(verdict.errors.len(), errors, "{id}: {:?}", verdict.errors);
            assert_eq!(verdict.reports[0].command, format!("callback:{id}"));
        }
    }
}
