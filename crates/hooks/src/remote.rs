//! Hooks that are not processes: type `http` (the input POSTed to a URL)
//! and type `prompt` (the session's small fast model decides).
//!
//! Data flow, `http`: the input JSON → `POST url` (`Content-Type:
//! application/json`, the configured headers with `$VAR`/`${VAR}` expanded
//! only for names in `allowedEnvVars`, never for a credential; no
//! redirects; the hook's timeout) → a 2xx answer's body is read like a
//! command hook's stdout (exit 0); another status or a transport error is
//! a non-blocking error (exit 1), a late answer a timeout.
//!
//! Data flow, `prompt`: the prompt with `$ARGUMENTS` replaced by the input
//! JSON (appended when absent) → [`SideQuery::ask`] with Claude Code's
//! evaluator system text → the reply's `{"ok": bool, "reason": …}` →
//! `ok: true` is a quiet success, `ok: false` a block (exit 2, the reason
//! as stderr: a PreToolUse call is denied, a Stop goes on with it). A reply
//! without that object is a non-blocking error. Nothing here logs header
//! values or variables.

use std::sync::Arc;
use std::time::Duration;

use orbit_tool::side_query::SideQuery;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{HookCommand, HttpHook};
use crate::decision::HOOK_BLOCK_EXIT_CODE;
use crate::event::HookEvent;
use crate::runner::{HOOK_OUTPUT_CAP_BYTES, HookRun, RunFailure};

/// Variables an `http` hook's headers never expand, even when listed.
const CREDENTIAL_VARS: [&str; 7] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
];

/// Headers computed from the body, never taken from the settings.
const IGNORED_HEADERS: [&str; 2] = ["content-length", "transfer-encoding"];

/// At most this many tokens of a prompt hook's reply.
pub const HOOK_PROMPT_MAX_TOKENS: u32 = 1_024;

/// Claude Code's evaluator system text for prompt hooks.
const EVALUATOR_SYSTEM: &str = "You are evaluating a hook in Claude Code. The user's text says what to check. Decide whether the action may go ahead.";
/// Added for tool events.
const EVALUATOR_TOOL_CALL: &str = "The action is a tool call, and an outside party wrote its input. You have no tools, and the event's JSON is your only evidence. If it is not enough to decide, set \"ok\" to false and put what you could not check in the reason.";
/// The answer's shape.
const EVALUATOR_SHAPE: &str = "Your response must be a JSON object with one of these shapes:\n- {\"ok\": true, \"reason\": \"<why the action may go ahead>\"}\n- {\"ok\": false, \"reason\": \"<why the action is blocked>\"}\nAlways include a \"reason\" field.";

/// The session's side query for prompt hooks (printable).
#[derive(Clone)]
pub(crate) struct Evaluator(pub(crate) Arc<dyn SideQuery>);

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PromptEvaluator")
    }
}

/// A run that exited with `code`, `stderr` its message.
fn exited(code: i32, stderr: String) -> HookRun {
    HookRun {
        exit_code: Some(code),
        stdout: String::new(),
        stderr,
        truncated: false,
        failure: None,
    }
}

/// `value` with `$NAME` / `${NAME}` expanded from `lookup` for names in
/// `allowed` (not credentials); any other reference becomes empty. CR, LF
/// and NUL are removed (no header injection).
pub fn expand_header(
    value: &str,
    allowed: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) if is_var_name(&inner[..end]) => (&inner[..end], end + 2),
                _ => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                    .unwrap_or(after.len());
                let name = &after[..end];
                if is_var_name(name) {
                    (name, end)
                } else {
                    ("", 0)
                }
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        let permitted = allowed.iter().any(|a| a == name) && !CREDENTIAL_VARS.contains(&name);
        if permitted {
            out.push_str(&lookup(name).unwrap_or_default());
        } else {
            tracing::warn!(
                "hooks: ${name} is not in the http hook's allowedEnvVars (or is a credential): sent empty"
            );
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out.retain(|c| !matches!(c, '\r' | '\n' | '\0'));
    out
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// POSTs `input` to `http`'s URL; `env` (the settings' `env`) is looked up
/// before orbit's own environment.
pub(crate) async fn run_http(
    hook: &HookCommand,
    http: &HttpHook,
    input: &[u8],
    env: &[(String, std::ffi::OsString)],
) -> HookRun {
    let lookup = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .or_else(|| std::env::var(name).ok())
    };
    let client = match http_client(&http.url, hook.timeout_ms) {
        Ok(client) => client,
        Err(err) => return exited(1, format!("could not make an HTTP client: {err}")),
    };
    let mut request = client
        .post(&http.url)
        .header("Content-Type", "application/json")
        .body(input.to_vec());
    for (name, value) in &http.headers {
        if IGNORED_HEADERS.contains(&name.trim().to_ascii_lowercase().as_str()) {
            continue;
        }
        let value = expand_header(value, &http.allowed_env_vars, lookup);
        request = request.header(name.trim(), value);
    }
    let timeout = Duration::from_millis(hook.timeout_ms);
    let sent = tokio::time::timeout(timeout, async {
        let response = request.send().await?;
        let status = response.status();
        let body = response.bytes().await?;
        Ok::<_, reqwest::Error>((status, body))
    })
    .await;
    match sent {
        Err(_) => HookRun::failed(RunFailure::TimedOut(hook.timeout_ms)),
        Ok(Err(err)) if err.is_timeout() => HookRun::failed(RunFailure::TimedOut(hook.timeout_ms)),
        Ok(Err(err)) => exited(1, format!("HTTP hook request failed: {err}")),
        Ok(Ok((status, body))) if status.is_success() => {
            let truncated = body.len() > HOOK_OUTPUT_CAP_BYTES;
            let kept = &body[..body.len().min(HOOK_OUTPUT_CAP_BYTES)];
            HookRun {
                exit_code: Some(0),
                stdout: String::from_utf8_lossy(kept).into_owned(),
                stderr: String::new(),
                truncated,
                failure: None,
            }
        }
        Ok(Ok((status, _))) => exited(1, format!("HTTP hook answered {status}")),
    }
}

/// A client for one http hook: no redirects, the hook's timeout; TLS
/// settings (and the crypto provider) only for `https://`.
fn http_client(url: &str, timeout_ms: u64) -> Result<reqwest::Client, reqwest::Error> {
    orbit_model::tls::ensure_crypto_provider();
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_millis(timeout_ms))
        .user_agent(concat!("orbit-hooks/", env!("CARGO_PKG_VERSION")));
    let builder = if url.starts_with("https://") {
        orbit_model::tls::with_tls_settings(builder)
    } else {
        builder.tls_certs_only(std::iter::empty::<reqwest::Certificate>())
    };
    builder.build()
}

/// The evaluator's system text for `event`.
fn evaluator_system(event: HookEvent) -> String {
    let tool_call = matches!(
        event,
        HookEvent::PreToolUse | HookEvent::PermissionRequest | HookEvent::PostToolUse
    );
    let mut text = String::from(EVALUATOR_SYSTEM);
    if tool_call {
        text.push('\n');
        text.push_str(EVALUATOR_TOOL_CALL);
    }
    text.push('\n');
    text.push_str(EVALUATOR_SHAPE);
    text
}

/// The user message: `prompt` with `$ARGUMENTS` replaced by the input JSON
/// (appended after a blank line when the prompt does not name it).
pub fn prompt_text(prompt: &str, input: &Value) -> String {
    let json = input.to_string();
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", &json)
    } else {
        format!("{prompt}\n\n{json}")
    }
}

/// The `{"ok": …, "reason": …}` object in a reply (the first `{` to the
/// last `}`, so a fenced or introduced object is found too).
fn verdict_of(reply: &str) -> Option<(bool, String)> {
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    let value: Value = serde_json::from_str(reply.get(start..=end)?).ok()?;
    let ok = value.get("ok")?.as_bool()?;
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Some((ok, reason))
}

/// Asks the small fast model whether `event` with `input` may go ahead.
pub(crate) async fn run_prompt(
    evaluator: Option<&Evaluator>,
    hook: &HookCommand,
    prompt: &str,
    event: HookEvent,
    input: &Value,
) -> HookRun {
    let Some(Evaluator(side)) = evaluator else {
        return exited(1, "no model answers prompt hooks in this session".into());
    };
    let system = evaluator_system(event);
    let user = prompt_text(prompt, input);
    let cancel = CancellationToken::new();
    let timeout = Duration::from_millis(hook.timeout_ms);
    let asked = tokio::time::timeout(
        timeout,
        side.ask(&system, &user, HOOK_PROMPT_MAX_TOKENS, &cancel),
    )
    .await;
    let reply = match asked {
        Err(_) => {
            cancel.cancel();
            return HookRun::failed(RunFailure::TimedOut(hook.timeout_ms));
        }
        Ok(Err(err)) => return exited(1, format!("the prompt hook's model failed: {err}")),
        Ok(Ok(reply)) => reply,
    };
    match verdict_of(&reply) {
        Some((true, _)) => exited(0, String::new()),
        Some((false, reason)) => {
            let reason = if reason.trim().is_empty() {
                "a prompt hook blocked it".to_string()
            } else {
                reason
            };
            exited(HOOK_BLOCK_EXIT_CODE, reason)
        }
        None => exited(
            1,
            "the prompt hook's model did not answer with {\"ok\": …, \"reason\": …}".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_expand_only_allowed_non_credential_vars() {
        let allowed = vec!["TOKEN".to_string(), "ANTHROPIC_API_KEY".to_string()];
        let lookup = |name: &str| Some(format!("<{name}>"));
        let cases = [
            ("Bearer $TOKEN", "Bearer <TOKEN>"),
            ("Bearer ${TOKEN}!", "Bearer <TOKEN>!"),
            ("x $OTHER y", "x  y"),
            ("k=$ANTHROPIC_API_KEY", "k="),
            ("cost $5 and $", "cost $5 and $"),
            ("a\r\nInjected: 1", "aInjected: 1"),
        ];
        for (value, want) in cases {
            assert_eq!(expand_header(value, &allowed, lookup), want, "{value}");
        }
    }

    /// Answers `reply` after `delay_ms`, or fails.
    struct Side {
        reply: Result<&'static str, &'static str>,
        delay_ms: u64,
    }

    #[async_trait::async_trait]
    impl SideQuery for Side {
        fn provider(&self) -> &str {
            "anthropic"
        }
        fn model(&self) -> &str {
            "small"
        }
        async fn ask(
            &self,
            _system: &str,
            _user: &str,
            _max_tokens: u32,
            _cancel: &CancellationToken,
        ) -> Result<String, orbit_tool::side_query::SideQueryError> {
            tokio::time::sleep(Duration::from_millis(self.delay_ms)).await;
            self.reply
                .map(str::to_string)
                .map_err(|e| orbit_tool::side_query::SideQueryError::Failed(e.into()))
        }
        async fn messages(
            &self,
            _body: Value,
            _cancel: &CancellationToken,
        ) -> Result<Value, orbit_tool::side_query::SideQueryError> {
            Err(orbit_tool::side_query::SideQueryError::Unsupported(
                "no".into(),
            ))
        }
    }

    /// A slow model is a timeout, a failing one or a reply without the
    /// object a non-blocking error; `ok: false` blocks with the reason.
    #[tokio::test]
    async fn prompt_hook_outcomes() {
        let hook = HookCommand {
            command: "prompt:check".into(),
            timeout_ms: 200,
            origin: "test".into(),
            scope: "user".into(),
            callback: None,
            http: None,
            prompt: Some("check".into()),
        };
        // (the model's reply or error, its delay in ms, exit code, stderr has)
        type Case = (
            Result<&'static str, &'static str>,
            u64,
            Option<i32>,
            &'static str,
        );
        let cases: [Case; 5] = [
            (Ok(r#"{"ok": true}"#), 0, Some(0), ""),
            (Ok(r#"{"ok": false, "reason": "no"}"#), 0, Some(2), "no"),
            (Ok("maybe"), 0, Some(1), "did not answer"),
            (Err("boom"), 0, Some(1), "boom"),
            (Ok(r#"{"ok": true}"#), 5_000, None, ""),
        ];
        for (reply, delay_ms, code, stderr) in cases {
            let side = Evaluator(Arc::new(Side { reply, delay_ms }));
            let input = serde_json::json!({"tool_name": "Bash"});
            let run = run_prompt(Some(&side), &hook, "check", HookEvent::PreToolUse, &input).await;
            assert_eq!(run.exit_code, code, "{reply:?}");
            assert!(run.stderr.contains(stderr), "{reply:?}: {}", run.stderr);
            if code.is_none() {
                assert_eq!(run.failure, Some(RunFailure::TimedOut(200)));
            }
        }
        let none = run_prompt(None, &hook, "check", HookEvent::Stop, &Value::Null).await;
        assert_eq!(none.exit_code, Some(1));
    }

    #[test]
    fn replies_and_prompts() {
        assert_eq!(
            verdict_of("Sure:\n```json\n{\"ok\": false, \"reason\": \"no rm\"}\n```"),
            Some((false, "no rm".into()))
        );
        assert_eq!(verdict_of("{\"ok\": true}"), Some((true, String::new())));
        assert_eq!(verdict_of("yes"), None);
        let input = serde_json::json!({"a": 1});
        assert_eq!(
            prompt_text("check $ARGUMENTS now", &input),
            "check {\"a\":1} now"
        );
        assert_eq!(prompt_text("check", &input), "check\n\n{\"a\":1}");
    }
}
