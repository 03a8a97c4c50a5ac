//! The `statusLine` setting: a user command whose output replaces the
//! built-in status line (`{"type": "command", "command": …, "padding"?: N}`).
//!
//! Data flow: the app calls [`StatusLine::update`] with Claude Code's JSON
//! (session, model, workspace, cost, context window: [`status_input`]) as
//! often as it likes; an unchanged input is dropped at once. A background
//! task waits for a changed input, at most one run per
//! [`STATUS_LINE_MIN_INTERVAL_MS`], and runs the command through
//! `orbit_hooks::runner::run_command` (`sh -c` in its own process group,
//! the JSON on stdin, killed by its group id after
//! [`STATUS_LINE_TIMEOUT_MS`], output capped). The first line of a
//! successful run's stdout reaches the app through [`StatusLine::recv`]
//! and is shown terminal-safe. A run that fails, hangs or prints nothing
//! changes nothing on screen: the UI never waits for the command.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use orbit_hooks::HookCommand;
use orbit_memory::output_style::{OUTPUT_STYLE_KEY, StyleState};
use orbit_permissions::PermissionMode;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use crate::sanitize::{Mode, sanitize};
use crate::status::StatusInfo;
use crate::theme::Theme;
use crate::wrap::truncate;

/// At most one run of the command per this many ms (Claude Code's 300 ms
/// debounce).
pub const STATUS_LINE_MIN_INTERVAL_MS: u64 = 300;
/// A run is killed after this many ms.
pub const STATUS_LINE_TIMEOUT_MS: u64 = 5_000;

/// The `statusLine` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLineConfig {
    /// Run with `sh -c`.
    pub command: String,
    /// Spaces before the output.
    pub padding: u16,
}

impl StatusLineConfig {
    /// The setting's value; None when it is not a usable `command` entry
    /// (warned).
    pub fn from_value(value: &Value) -> Option<Self> {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("command");
        let command = value.get("command").and_then(Value::as_str).map(str::trim);
        match (kind, command) {
            ("command", Some(command)) if !command.is_empty() => Some(Self {
                command: command.to_string(),
                padding: value
                    .get("padding")
                    .and_then(Value::as_u64)
                    .map_or(0, |p| u16::try_from(p.min(40)).unwrap_or(0)),
            }),
            _ => {
                eprintln!(
                    "orbit: warning: statusLine needs {{\"type\": \"command\", \"command\": \"…\"}}; ignored"
                );
                None
            }
        }
    }
}

/// Which session a status line describes (the input's fixed fields).
pub(crate) struct SessionFacts {
    /// The session id.
    pub(crate) session_id: String,
    /// Its transcript file.
    pub(crate) transcript: String,
    /// The output style's name.
    pub(crate) output_style: String,
}

/// The running status line command of a session.
pub(crate) struct StatusLine {
    input: watch::Sender<Value>,
    output: mpsc::UnboundedReceiver<String>,
    task: tokio::task::JoinHandle<()>,
    padding: u16,
    facts: SessionFacts,
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        // A run in progress is dropped with the task; its group is killed
        // (kill_on_drop) or times out on its own.
        self.task.abort();
    }
}

impl StatusLine {
    /// Starts the background task for `config`, run in `cwd`.
    pub(crate) fn start(config: &StatusLineConfig, cwd: PathBuf, facts: SessionFacts) -> Self {
        let (input, mut inputs) = watch::channel(Value::Null);
        let (tx, output) = mpsc::unbounded_channel();
        let hook = HookCommand {
            command: config.command.clone(),
            timeout_ms: STATUS_LINE_TIMEOUT_MS,
            origin: "statusLine".into(),
            scope: "statusLine".into(),
            callback: None,
            http: None,
            prompt: None,
        };
        let task = tokio::spawn(async move {
            let gap = Duration::from_millis(STATUS_LINE_MIN_INTERVAL_MS);
            let mut last: Option<Instant> = None;
            while inputs.changed().await.is_ok() {
                if let Some(last) = last {
                    tokio::time::sleep_until((last + gap).into()).await;
                }
                let bytes = serde_json::to_vec(&*inputs.borrow_and_update()).unwrap_or_default();
                last = Some(Instant::now());
                let run = orbit_hooks::runner::run_command(&hook, &bytes, &cwd, &[]).await;
                if run.exit_code != Some(0) {
                    continue;
                }
                let Some(line) = run.stdout.lines().find(|l| !l.trim().is_empty()) else {
                    continue;
                };
                if tx.send(line.to_string()).is_err() {
                    break;
                }
            }
        });
        Self {
            input,
            output,
            task,
            padding: config.padding,
            facts,
        }
    }

    /// The session as `info` shows it now; the command runs again only
    /// when its input changed.
    pub(crate) fn refresh(&self, info: &StatusInfo) {
        let facts = &self.facts;
        self.update(status_input(
            info,
            &facts.session_id,
            &facts.transcript,
            &facts.output_style,
        ));
    }

    /// A new input; the command runs again only when it changed.
    pub(crate) fn update(&self, input: Value) {
        self.input.send_if_modified(|current| {
            if *current == input {
                return false;
            }
            *current = input;
            true
        });
    }

    /// The next output line, with the padding (waits; cancel-safe).
    pub(crate) async fn recv(&mut self) -> Option<String> {
        let line = self.output.recv().await?;
        Some(format!("{}{line}", " ".repeat(usize::from(self.padding))))
    }
}

/// The status line of `engine`'s session, when `config` sets a command.
pub(crate) fn start_for(
    config: Option<StatusLineConfig>,
    engine: &orbit_engine::QueryEngine,
) -> Option<StatusLine> {
    let config = config?;
    let session = engine.config();
    let root = session
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| session.cwd.clone());
    let transcript = orbit_session::transcript_path(&session.data_dir, &root, engine.session_id());
    let style = engine
        .tool_context()
        .extension(OUTPUT_STYLE_KEY, StyleState::default);
    let facts = SessionFacts {
        session_id: engine.session_id().to_string(),
        transcript: transcript.display().to_string(),
        output_style: style.current_name(),
    };
    Some(StatusLine::start(&config, session.cwd.clone(), facts))
}

/// The next output of `line`, or never when there is none (for `select!`).
pub(crate) async fn next_output(line: &mut Option<StatusLine>) -> String {
    match line {
        Some(line) => match line.recv().await {
            Some(text) => text,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

/// `text` without its SGR colour sequences (`ESC [ digits ; : m`): the
/// status row has one style; anything else a terminal would act on is
/// shown by [`sanitize`].
fn strip_sgr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'));
        match end {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            _ => {
                out.push_str("\x1b[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The status row with the command's output `text` on the left (colour
/// removed, terminal-safe, cut to fit) and the permission mode on the
/// right when it is not the default.
pub(crate) fn custom_line(text: &str, info: &StatusInfo, t: Theme, width: u16) -> Line<'static> {
    let mode = match info.mode {
        PermissionMode::Default => String::new(),
        other => format!(" · ⏵⏵ {} (⇧⇥)", other.as_str()),
    };
    let room = usize::from(width).saturating_sub(mode.chars().count());
    let text = truncate(&sanitize(&strip_sgr(text), Mode::Cells), room);
    Line::from(vec![
        Span::styled(text, t.dim()),
        Span::styled(mode, t.warn()),
    ])
}

/// Claude Code's statusLine input for the session `info` describes.
pub(crate) fn status_input(
    info: &StatusInfo,
    session_id: &str,
    transcript: &str,
    output_style: &str,
) -> Value {
    let used = info
        .context_tokens
        .saturating_mul(100)
        .checked_div(info.context_window)
        .unwrap_or(0)
        .min(100);
    json!({
        "hook_event_name": "Status",
        "session_id": session_id,
        "transcript_path": transcript,
        "cwd": info.cwd,
        "model": {"id": info.model, "display_name": info.model},
        "workspace": {"current_dir": info.cwd, "project_dir": info.cwd},
        "version": env!("CARGO_PKG_VERSION"),
        "output_style": {"name": output_style},
        "cost": {"total_cost_usd": info.cost_usd},
        "context_window": {
            "total_input_tokens": info.context_tokens,
            "context_window_size": info.context_window,
            "used_percentage": used,
            "remaining_percentage": 100 - used,
        },
        "exceeds_200k_tokens": info.context_tokens > orbit_model::catalog::STATUS_LINE_LARGE_CONTEXT_TOKENS,
        "permission_mode": info.mode.as_str(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_is_removed() {
        assert_eq!(strip_sgr("\x1b[1;32mmain\x1b[0m ok"), "main ok");
        assert_eq!(strip_sgr("a\x1b[2Jb"), "a\x1b[2Jb");
    }

    #[test]
    fn settings_values() {
        let ok = json!({"type": "command", "command": "echo hi", "padding": 2});
        assert_eq!(
            StatusLineConfig::from_value(&ok),
            Some(StatusLineConfig {
                command: "echo hi".into(),
                padding: 2
            })
        );
        assert_eq!(
            StatusLineConfig::from_value(&json!({"type": "command"})),
            None
        );
        assert_eq!(StatusLineConfig::from_value(&json!("echo")), None);
    }

    /// A command that hangs is killed and never holds the caller; a later
    /// input's output still arrives.
    #[tokio::test]
    async fn a_hanging_command_never_blocks_and_outputs_arrive() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config = StatusLineConfig {
            command: "read -r line; case \"$line\" in *hang*) sleep 30;; esac; echo \"out $line\" | cut -c1-20".into(),
            padding: 1,
        };
        let facts = SessionFacts {
            session_id: "s".into(),
            transcript: "t".into(),
            output_style: "default".into(),
        };
        let mut line = StatusLine::start(&config, dir.path().to_path_buf(), facts);
        let started = Instant::now();
        line.update(json!({"k": "first"}));
        let first = tokio::time::timeout(Duration::from_secs(5), line.recv()).await;
        assert_eq!(
            first.ok().flatten().as_deref(),
            Some(" out {\"k\":\"first\"}")
        );
        line.update(json!({"k": "hang"}));
        // The hanging run starts (the 300 ms gap passes) …
        tokio::time::sleep(Duration::from_millis(600)).await;
        line.update(json!({"k": "after"}));
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "update never waits"
        );
        let next = tokio::time::timeout(Duration::from_secs(12), line.recv()).await;
        assert_eq!(
            next.ok().flatten().as_deref(),
            Some(" out {\"k\":\"after\"}")
        );
    }
}
