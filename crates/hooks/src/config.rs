//! Hook configuration in Claude Code's settings format, parsed with errors
//! that name the file and the place in it:
//!
//! ```json
//! {"hooks": {"PreToolUse": [
//!   {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh", "timeout": 30}]}
//! ]}}
//! ```
//!
//! Matchers: empty or `*` match everything; names joined by `|` match
//! exactly; anything else is a regular expression over the whole subject
//! (`mcp__.*`). `timeout` is in seconds ([`HOOK_DEFAULT_TIMEOUT_MS`] when
//! absent). Every event of Claude Code 2.1.332 is accepted (those orbit
//! never fires too, see [`HookEvent::fires`]); unknown events and hook
//! types orbit does not run are skipped with a warning (a newer Claude
//! Code's settings still load). Type
//! `callback` (`{"type": "callback", "callback_id": "hook_0"}`) is how the
//! Claude Agent SDK's hooks arrive: run by the program that registered them.
//! Type `http` (`url`, `headers`, `allowedEnvVars`) and type `prompt`
//! (`prompt`, `$ARGUMENTS` for the input) run in [`crate::remote`]; types
//! `agent` and `mcp_tool` are skipped with a warning.
//! [`HookSet`] keeps every entry with its file; `matching` gives the
//! commands for one event and subject, each command once.

use regex::Regex;
use serde_json::Value;
use thiserror::Error;

use crate::event::HookEvent;

/// How long a hook may run when its entry sets no `timeout`, in ms.
pub const HOOK_DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// A hook entry that cannot be used. Names the file and the JSON path.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("invalid hooks in {origin}: {path}: {message}")]
pub struct HookConfigError {
    /// The settings file (or `--settings`).
    pub origin: String,
    /// Where in the document (`hooks.PreToolUse[0].matcher`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// What a matcher accepts.
#[derive(Debug, Clone)]
enum MatcherKind {
    Any,
    Names(Vec<String>),
    Regex(Regex),
}

/// A parsed `matcher`.
#[derive(Debug, Clone)]
pub struct Matcher {
    text: String,
    kind: MatcherKind,
}

impl Matcher {
    /// Parses a matcher (see the module docs). Err: the regex error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim();
        let kind = if trimmed.is_empty() || trimmed == "*" {
            MatcherKind::Any
        } else if trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || c == '-')
        {
            MatcherKind::Names(trimmed.split('|').map(str::to_string).collect())
        } else {
            let regex = Regex::new(&format!("^(?:{trimmed})$")).map_err(|e| e.to_string())?;
            MatcherKind::Regex(regex)
        };
        Ok(Self {
            text: text.to_string(),
            kind,
        })
    }

    /// The matcher as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it accepts `subject` (None: the event has no matcher, and
    /// every group runs).
    pub fn matches(&self, subject: Option<&str>) -> bool {
        let Some(subject) = subject else {
            return true;
        };
        match &self.kind {
            MatcherKind::Any => true,
            MatcherKind::Names(names) => names.iter().any(|n| n == subject),
            MatcherKind::Regex(regex) => regex.is_match(subject),
        }
    }
}

/// One `{"type": "command", …}` hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// Run with `sh -c`.
    pub command: String,
    /// The run is killed after this many ms.
    pub timeout_ms: u64,
    /// The settings file it comes from.
    pub origin: String,
    /// The file's scope (`user`, `project`, …).
    pub scope: String,
    /// Type `callback`: the id the registering program knows it by; the
    /// hook runs through [`crate::HookCallbacks`], not `sh` (`command` is
    /// then `callback:ID`, for labels).
    pub callback: Option<String>,
    /// Type `http`: the input is POSTed to this hook (`command` is then
    /// the URL, for labels).
    pub http: Option<HttpHook>,
    /// Type `prompt`: the small fast model decides (`command` is then
    /// `prompt:` and the prompt, for labels).
    pub prompt: Option<String>,
}

/// One `{"type": "http", "url": …, "headers"?: {…}, "allowedEnvVars"?: […]}`
/// hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHook {
    /// Where the input is POSTed (`http://` or `https://`).
    pub url: String,
    /// Extra request headers, as written (`$VAR` expanded when sent).
    pub headers: Vec<(String, String)>,
    /// The variables a header value may expand; every other `$VAR` is
    /// sent as an empty string.
    pub allowed_env_vars: Vec<String>,
}

/// How long a `prompt` hook may take when its entry sets no `timeout`, in ms
/// (Claude Code's 30 s).
pub const HOOK_PROMPT_DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// One hook with its event and matcher.
#[derive(Debug, Clone)]
pub struct HookEntry {
    /// When it runs.
    pub event: HookEvent,
    /// On which subjects.
    pub matcher: Matcher,
    /// What runs.
    pub hook: HookCommand,
}

/// Every configured hook, in settings precedence order.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    entries: Vec<HookEntry>,
}

impl HookSet {
    /// The hooks of one settings document's `hooks` value (`origin` names
    /// the file in errors, `scope` its source).
    pub fn parse(value: &Value, origin: &str, scope: &str) -> Result<HookSet, HookConfigError> {
        let err = |path: String, message: String| HookConfigError {
            origin: origin.to_string(),
            path,
            message,
        };
        let Some(events) = value.as_object() else {
            return Err(err("hooks".into(), "expected an object of events".into()));
        };
        let mut entries = Vec::new();
        for (name, groups) in events {
            let Some(event) = HookEvent::from_name(name) else {
                tracing::warn!("ignoring hooks.{name} in {origin}: not an event orbit knows");
                continue;
            };
            if !event.fires() {
                // Claude Code's event of a feature orbit lacks: accepted,
                // never run (the README's event table says so).
                tracing::debug!("hooks.{name} in {origin}: orbit never fires {name}");
            }
            let Some(groups) = groups.as_array() else {
                return Err(err(format!("hooks.{name}"), "expected an array".into()));
            };
            for (i, group) in groups.iter().enumerate() {
                let at = format!("hooks.{name}[{i}]");
                let matcher_text = match group.get("matcher") {
                    None | Some(Value::Null) => "",
                    Some(Value::String(s)) => s.as_str(),
                    Some(_) => {
                        return Err(err(format!("{at}.matcher"), "expected a string".into()));
                    }
                };
                let matcher = Matcher::parse(matcher_text)
                    .map_err(|m| err(format!("{at}.matcher"), format!("invalid regex: {m}")))?;
                let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
                    return Err(err(
                        format!("{at}.hooks"),
                        "expected an array of hooks".into(),
                    ));
                };
                for (j, hook) in hooks.iter().enumerate() {
                    let at = format!("{at}.hooks[{j}]");
                    if let Some(hook) =
                        parse_command(hook, &at, origin, scope).map_err(|m| err(at.clone(), m))?
                    {
                        entries.push(HookEntry {
                            event,
                            matcher: matcher.clone(),
                            hook,
                        });
                    }
                }
            }
        }
        Ok(HookSet { entries })
    }

    /// Appends the hooks of another (lower-precedence) file.
    pub fn extend(&mut self, other: HookSet) {
        self.entries.extend(other.entries);
    }

    /// The same hooks without those of `events` (a subagent's session:
    /// no `Stop`, `UserPromptSubmit` or session hooks of its own).
    pub fn without(&self, events: &[HookEvent]) -> HookSet {
        HookSet {
            entries: self
                .entries
                .iter()
                .filter(|e| !events.contains(&e.event))
                .cloned()
                .collect(),
        }
    }

    /// Every hook, in order.
    pub fn entries(&self) -> &[HookEntry] {
        &self.entries
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether any hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.entries.iter().any(|e| e.event == event)
    }

    /// The hooks of `event` whose matcher accepts `subject`; a command
    /// configured more than once is returned once (the first entry).
    pub fn matching(&self, event: HookEvent, subject: Option<&str>) -> Vec<&HookCommand> {
        let subject = if event.has_matcher() { subject } else { None };
        let mut out: Vec<&HookCommand> = Vec::new();
        for entry in &self.entries {
            if entry.event == event
                && entry.matcher.matches(subject)
                && !out.iter().any(|h| h.command == entry.hook.command)
            {
                out.push(&entry.hook);
            }
        }
        out
    }
}

/// One hook object; None for a type orbit does not run (warned).
fn parse_command(
    hook: &Value,
    at: &str,
    origin: &str,
    scope: &str,
) -> Result<Option<HookCommand>, String> {
    let kind = hook
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    let (mut callback, mut http, mut prompt) = (None, None, None);
    let command = match kind {
        "command" => match hook.get("command") {
            Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
            _ => return Err("`command` must be a non-empty string".into()),
        },
        "callback" => match hook.get("callback_id") {
            Some(Value::String(id)) if !id.is_empty() => {
                callback = Some(id.clone());
                format!("callback:{id}")
            }
            _ => return Err("`callback_id` must be a non-empty string".into()),
        },
        "http" => {
            let parsed = parse_http(hook)?;
            let label = parsed.url.clone();
            http = Some(parsed);
            label
        }
        "prompt" => match hook.get("prompt") {
            Some(Value::String(p)) if !p.trim().is_empty() => {
                prompt = Some(p.clone());
                format!("prompt:{p}")
            }
            _ => return Err("`prompt` must be a non-empty string".into()),
        },
        _ => {
            tracing::warn!("ignoring {at} in {origin}: hooks of type `{kind}` are not supported");
            return Ok(None);
        }
    };
    let default_ms = if prompt.is_some() {
        HOOK_PROMPT_DEFAULT_TIMEOUT_MS
    } else {
        HOOK_DEFAULT_TIMEOUT_MS
    };
    let timeout_ms = match hook.get("timeout") {
        None | Some(Value::Null) => default_ms,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() => (secs * 1000.0).round() as u64,
            _ => return Err("`timeout` must be a positive number of seconds".into()),
        },
        Some(_) => return Err("`timeout` must be a positive number of seconds".into()),
    };
    Ok(Some(HookCommand {
        command,
        timeout_ms,
        origin: origin.to_string(),
        scope: scope.to_string(),
        callback,
        http,
        prompt,
    }))
}

/// An `http` hook's `url`, `headers` and `allowedEnvVars`.
fn parse_http(hook: &Value) -> Result<HttpHook, String> {
    let url = match hook.get("url") {
        Some(Value::String(u)) if u.starts_with("http://") || u.starts_with("https://") => {
            u.clone()
        }
        _ => return Err("`url` must be an http:// or https:// URL".into()),
    };
    let headers = match hook.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value {
                Value::String(v) => Ok((name.clone(), v.clone())),
                _ => Err(format!("`headers.{name}` must be a string")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`headers` must be an object of strings".into()),
    };
    let allowed_env_vars = match hook.get("allowedEnvVars") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or("`allowedEnvVars` must be an array of strings")?,
        Some(_) => return Err("`allowedEnvVars` must be an array of strings".into()),
    };
    Ok(HttpHook {
        url,
        headers,
        allowed_env_vars,
    })
}
