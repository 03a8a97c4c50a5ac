//! Slash commands. Each runs when nothing else runs, with the engine at
//! hand ([`Ctx`]); what it reports goes to the scrollback, and what needs
//! the app (a job, a turn, another session) comes back as an [`Action`]
//! the app applies. `/compact`,
//! `/init` and custom commands run as jobs (Esc interrupts them);
//! `/clear`, `/resume` and `/continue` swap the session through the CLI's
//! factory; `/memory` lists the session's memory files
//! (`orbit_memory::LoadedMemory` among the tool context's extensions) and
//! `/memory N` hands one to the editor ([`Action::Edit`]). An unknown name
//! gets one line.

use orbit_composer::custom::CustomCommand;
use orbit_engine::QueryEngine;

use crate::action::{Action, Job};
use crate::screen::{Picker, PickerKind, Screen, Tone};
use crate::session::{McpStatus, SessionChoice};
use crate::wrap::truncate;

/// What a command works with: the engine, the screen, the custom commands
/// and the MCP status.
pub(crate) struct Ctx<'a> {
    pub(crate) engine: &'a mut QueryEngine,
    pub(crate) screen: &'a mut Screen,
    pub(crate) custom: &'a [CustomCommand],
    pub(crate) mcp: Option<&'a McpStatus>,
}

/// Built-in commands and their one-line descriptions.
pub(crate) const BUILTIN: &[(&str, &str)] = &[
    ("help", "Show commands and keys"),
    ("clear", "Start a new session (this one stays resumable)"),
    (
        "compact",
        "Summarize the conversation to free context: /compact [instructions]",
    ),
    (
        "resume",
        "Pick one of this project's sessions to continue: /resume [id]",
    ),
    (
        "continue",
        "Continue this project's most recent other session",
    ),
    ("cost", "Show the session's cost and token use"),
    (
        "model",
        "Show the models the provider runs, or switch: /model [name]",
    ),
    (
        "output-style",
        "List output styles or switch to one: /output-style [style]",
    ),
    (
        "permissions",
        "Show the mode and rules; /permissions allow RULE adds a rule",
    ),
    ("mcp", "Show the MCP servers and their status"),
    (
        "memory",
        "List the memory files loaded; /memory N opens one in $EDITOR",
    ),
    (
        "init",
        "Ask the model to write a CLAUDE.md for this project",
    ),
    (
        "status",
        "Show the session id, model, cwd and permission mode",
    ),
    (
        "rewind",
        "Restore the files to before a prompt (also /checkpoint, /undo, Esc Esc)",
    ),
    ("exit", "Exit (the session is saved)"),
];

const KEYS_HELP: &str = "Keys: Enter send · Shift-Enter or \\+Enter new line · Esc interrupt · Ctrl-C clear (twice: exit) · Ctrl-D exit · Shift-Tab permission mode · Ctrl-O full tool output · !cmd shell · #note memory · @path attach";

/// Sessions the `/resume` picker lists.
const PICKER_MAX_SESSIONS: usize = 30;

/// Runs `/name args`; what is left for the app to do.
pub(crate) fn run(app: Ctx<'_>, name: &str, args: &str) -> Option<Action> {
    let shown = if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    };
    let Ctx {
        engine,
        screen,
        custom,
        mcp,
    } = app;
    screen.user_prompt(&shown);
    match name {
        "help" => {
            for (n, d) in BUILTIN {
                screen.note(&format!("  /{n:<12} {d}"), Tone::Plain);
            }
            for c in custom {
                let d = truncate(&c.description, 60);
                screen.note(&format!("  /{:<12} {d} (custom)", c.name), Tone::Plain);
            }
            screen.note(KEYS_HELP, Tone::Dim);
        }
        "clear" => return Some(Action::Open(SessionChoice::New)),
        "compact" => {
            let instructions = (!args.is_empty()).then(|| args.to_string());
            screen.compacting();
            return Some(Action::Job(Job::Compact(instructions)));
        }
        "resume" if !args.is_empty() => {
            return Some(Action::Open(SessionChoice::Resume(args.to_string())));
        }
        "resume" | "continue" => {
            let sessions = other_sessions(engine);
            match (name, sessions.first()) {
                (_, None) => screen.note("No other session in this project.", Tone::Dim),
                ("continue", Some((id, _))) => {
                    return Some(Action::Open(SessionChoice::Resume(id.clone())));
                }
                _ => {
                    screen.picker = Some(Picker {
                        title: "Resume a session (↑/↓, Enter; Esc cancels)".to_string(),
                        items: sessions,
                        selected: 0,
                        kind: PickerKind::Resume,
                    });
                }
            }
        }
        "cost" => {
            let usage = engine.session().usage();
            screen.note(
                &format!(
                    "Session cost: ${:.4} · {} model calls · tokens: {} in, {} out, {} cache read, {} cache write",
                    engine.total_cost_usd(),
                    engine.session().turns(),
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cache_read_input_tokens,
                    usage.cache_creation_input_tokens
                ),
                Tone::Plain,
            );
        }
        "model" if args.is_empty() => {
            screen.note(
                &format!(
                    "Model: {} on {} (/model NAME switches)",
                    engine.config().model,
                    engine.provider()
                ),
                Tone::Plain,
            );
            let choices = engine.model_choices().join(", ");
            screen.note(&format!("  Available: {choices}"), Tone::Dim);
        }
        // Only what the session's provider runs (the catalog says which).
        "model" => match engine.check_model(args) {
            Ok(id) => return Some(Action::Model(id)),
            Err(why) => screen.note(&format!("Model not switched: {why}"), Tone::Error),
        },
        "permissions" => permissions(engine, screen, args),
        "output-style" => crate::style_command::run(engine, screen, args),
        "mcp" => {
            let lines = mcp.map(|status| status()).unwrap_or_default();
            if lines.is_empty() {
                screen.note(
                    "No MCP servers configured (.mcp.json, --mcp-config).",
                    Tone::Dim,
                );
            }
            for line in lines {
                screen.note(&format!("  {line}"), Tone::Plain);
            }
        }
        "init" => {
            screen.note("  ⎿ init is analyzing your codebase…", Tone::Dim);
            let prompt = crate::submit::init_prompt(&engine.config().cwd);
            screen.expect_write(engine.config().cwd.join("CLAUDE.md"));
            return Some(Action::Prompt(prompt));
        }
        "memory" => return memory(engine, screen, args),
        "rewind" | "checkpoint" | "undo" => crate::rewind::run(engine, screen, args),
        "status" => {
            for line in crate::status::status_report(engine) {
                screen.note(&line, Tone::Plain);
            }
        }
        other => match custom.iter().find(|c| c.name == other) {
            Some(command) => {
                return Some(Action::Command(format!("/{} {args}", command.name)));
            }
            None => screen.note(
                &format!("Unknown command /{other} (see /help)"),
                Tone::Error,
            ),
        },
    }
    None
}

/// `/memory`: the memory files the session loaded (numbered); `/memory N`
/// opens the Nth in the editor.
fn memory(engine: &QueryEngine, screen: &mut Screen, args: &str) -> Option<Action> {
    let files = engine
        .tool_context()
        .extension(
            orbit_memory::LOADED_MEMORY_KEY,
            orbit_memory::LoadedMemory::default,
        )
        .files();
    if args.is_empty() {
        if files.is_empty() {
            screen.note(
                "No memory file loaded (CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md, CLAUDE.local.md, ~/.claude/CLAUDE.md, AGENTS.md).",
                Tone::Dim,
            );
        }
        for (n, (path, label)) in files.iter().enumerate() {
            screen.note(
                &format!("  {}. {label}  ({})", n + 1, path.display()),
                Tone::Plain,
            );
        }
        if !files.is_empty() {
            screen.note("/memory N opens one in $EDITOR.", Tone::Dim);
        }
        return None;
    }
    let chosen = args
        .trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| files.get(i));
    match chosen {
        Some((path, _)) => Some(Action::Edit(path.clone())),
        None => {
            screen.note(&format!("No memory file {args} (see /memory)"), Tone::Error);
            None
        }
    }
}

/// Runs `$VISUAL`, else `$EDITOR`, else `vi` on `path` (through `sh`, so
/// an editor with arguments such as `code -w` works) and waits for it;
/// `stderr`: the terminal's, when the UI's stderr is redirected.
pub(crate) fn open_in_editor(
    path: &std::path::Path,
    stderr: Option<std::process::Stdio>,
) -> Result<(), String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path);
    if let Some(stderr) = stderr {
        command.stderr(stderr);
    }
    let status = command
        .status()
        .map_err(|err| format!("Could not start {editor}: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{editor} ended with {status}"))
    }
}

/// `/permissions [allow|deny|ask RULE]`.
fn permissions(engine: &QueryEngine, screen: &mut Screen, args: &str) {
    let policy = engine.policy();
    if let Some(rule) = args.strip_prefix("allow ").map(str::trim) {
        match policy.add_session_rule(rule) {
            // Saved where the dialog's "don't ask again" rules go: the
            // user's store for this project (`orbit_config::saved_rules`).
            Ok(()) => match &engine.config().rules_file {
                Some(file) => match orbit_permissions::persist_allow_rule(file, rule) {
                    Ok(()) => screen.note(
                        &format!("Allowed {rule} (saved to {})", file.display()),
                        Tone::Plain,
                    ),
                    Err(err) => screen.note(
                        &format!("Allowed {rule} for this session; not saved: {err}"),
                        Tone::Error,
                    ),
                },
                None => screen.note(&format!("Allowed {rule} for this session"), Tone::Plain),
            },
            Err(err) => screen.note(&format!("Not a rule: {err}"), Tone::Error),
        }
        return;
    }
    if !args.is_empty() {
        screen.note("Usage: /permissions [allow RULE]", Tone::Error);
        return;
    }
    let config = &engine.config().permissions;
    screen.note(
        &format!("Mode: {} (Shift-Tab cycles)", policy.mode().as_str()),
        Tone::Plain,
    );
    for (label, rules) in [
        ("Allow", &config.allowed_tools),
        ("Ask", &config.ask_tools),
        ("Deny", &config.disallowed_tools),
    ] {
        let list = if rules.is_empty() {
            "(none)".to_string()
        } else {
            rules.join(", ")
        };
        screen.note(&format!("  {label}: {list}"), Tone::Plain);
    }
    screen.note(
        "  Rules you allow (2 in a dialog, /permissions allow) are saved for this project in your orbit data directory.",
        Tone::Dim,
    );
}

/// This project's sessions other than the open one: (id, label), newest first.
fn other_sessions(engine: &QueryEngine) -> Vec<(String, String)> {
    let config = engine.config();
    let cwd = config
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| config.cwd.clone());
    let current = engine.session_id();
    let list = orbit_session::list_project(&config.data_dir, &cwd).unwrap_or_default();
    let now = std::time::SystemTime::now();
    list.into_iter()
        .filter(|s| s.session_id != current)
        .take(PICKER_MAX_SESSIONS)
        .map(|s| {
            let label = format!(
                "{} · {} · {} calls · {}",
                last_used(s.last_activity, now),
                &s.session_id[..s.session_id.len().min(8)],
                s.turns,
                truncate(&s.first_prompt, 50)
            );
            (s.session_id, label)
        })
        .collect()
}

/// When a session was last used, for the picker: `3h ago · 2026-12-06
/// 18:40` (UTC; a time in the future, a clock change, reads "just now").
fn last_used(at: std::time::SystemTime, now: std::time::SystemTime) -> String {
    let ago = now.duration_since(at).map_or(0, |d| d.as_secs());
    let relative = match ago {
        0..60 => "just now".to_string(),
        60..3_600 => format!("{}m ago", ago / 60),
        3_600..86_400 => format!("{}h ago", ago / 3_600),
        _ => format!("{}d ago", ago / 86_400),
    };
    let secs = at
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (y, m, d) = orbit_session::civil_from_days(days);
    let rem = secs % 86_400;
    format!(
        "{relative} · {y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3_600,
        rem % 3_600 / 60
    )
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::last_used;

    /// The picker's time: relative, then the UTC date and minute.
    #[test]
    fn last_used_is_relative_then_the_date() {
        let at = UNIX_EPOCH + Duration::from_secs(1_796_582_400);
        let cases = [
            (10, "just now"),
            (5 * 60, "5m ago"),
            (3 * 3_600, "3h ago"),
            (2 * 86_400, "2d ago"),
        ];
        for (later, relative) in cases {
            let now = at + Duration::from_secs(later);
            assert_eq!(last_used(at, now), format!("{relative} · 2026-12-06 18:40"));
        }
        assert!(last_used(at + Duration::from_secs(60), at).starts_with("just now"));
    }
}
