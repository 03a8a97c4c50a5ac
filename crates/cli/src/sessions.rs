//! Sessions in the CLI: which session a run continues (`--continue`,
//! `--resume`, `--session-id`, `--fork-session`, `--no-session-persistence`)
//! and the `orbit sessions` subcommand.
//!
//! Data flow: [`plan`] checks the flags together (clear errors for bad
//! UUIDs, unknown or taken ids, flags that need each other), finds the
//! transcript (`orbit_session` paths and listing), loads it through
//! `orbit_engine::load_transcript` (warning once per repair) and returns the
//! id the run uses with the state to resume. `main` builds the engine from
//! it. `orbit sessions` is dispatched before the normal flags are parsed
//! ([`maybe_run_subcommand`]).
//!
//! Named sessions (`-n/--name NAME`, Claude Code's): the name is kept in
//! `<session id>.name` beside the transcript (one line, written when the
//! run starts); `--resume NAME` takes the newest session of this directory
//! with that name, and `orbit sessions` shows it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use clap::Parser;
use orbit_config::Env;
use orbit_session::{
    LoadedSession, SessionSummary, find_anywhere, is_valid_session_id, latest, list_all,
    list_project, transcript_path,
};

use crate::args::Args;

/// The session a run uses.
pub struct SessionPlan {
    /// The run's session id (the resumed one, or a new one).
    pub session_id: String,
    /// The state to go on from (`--resume` / `--continue`).
    pub resume: Option<LoadedSession>,
    /// Whether the run writes its transcript.
    pub persist: bool,
}

/// Decides the run's session from the flags; see the module docs.
pub fn plan(args: &Args, data_dir: &Path, cwd: &Path) -> anyhow::Result<SessionPlan> {
    let resuming = args.resume.is_some() || args.continue_session;
    if args.fork_session && !resuming {
        bail!("--fork-session needs --resume ID or --continue (it forks an existing session)");
    }
    if let Some(id) = &args.session_id {
        check_uuid("--session-id", id)?;
        if resuming && !args.fork_session {
            bail!(
                "--session-id names a new session; with --resume or --continue add --fork-session (a resumed session keeps its id)"
            );
        }
        if let Some(path) = find_anywhere(data_dir, &id.to_ascii_lowercase())? {
            bail!(
                "session {id} already exists ({}); resume it with --resume {id}, or choose another id",
                path.display()
            );
        }
    }
    let resume = match (&args.resume, args.continue_session) {
        (Some(id), _) => {
            let path = find_session(data_dir, cwd, id)?;
            Some(load(&path, id)?)
        }
        (None, true) => {
            let Some(id) = latest(data_dir, cwd)? else {
                bail!(
                    "no session to continue in {} (sessions are kept in {}); start one with `orbit -p PROMPT`",
                    cwd.display(),
                    orbit_session::project_dir(data_dir, cwd).display()
                );
            };
            Some(load(&transcript_path(data_dir, cwd, &id), &id)?)
        }
        (None, false) => None,
    };
    let session_id = match (&resume, &args.session_id) {
        (Some(loaded), None) if !args.fork_session => loaded.header.session_id.clone(),
        (_, Some(id)) => id.to_ascii_lowercase(),
        _ => uuid::Uuid::new_v4().to_string(),
    };
    if let Some(name) = args.name.as_ref().filter(|_| !args.no_session_persistence) {
        save_name(data_dir, cwd, &session_id, name)?;
    }
    Ok(SessionPlan {
        session_id,
        resume,
        persist: !args.no_session_persistence,
    })
}

fn check_uuid(flag: &str, id: &str) -> anyhow::Result<()> {
    if !is_valid_session_id(id) {
        bail!(
            "{flag}: `{id}` is not a session id (a UUID such as 123e4567-e89b-12d3-a456-426614174000; `orbit sessions` lists them)"
        );
    }
    Ok(())
}

/// The file holding a session's name (`-n/--name`), beside its transcript.
fn name_path(data_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    transcript_path(data_dir, cwd, session_id).with_extension(NAME_EXTENSION)
}

/// The extension of a session's name file.
const NAME_EXTENSION: &str = "name";
/// The longest session name kept.
const NAME_MAX_CHARS: usize = 200;

/// Names the session (`-n NAME`): one line beside its transcript.
fn save_name(data_dir: &Path, cwd: &Path, session_id: &str, name: &str) -> anyhow::Result<()> {
    let name = name.trim();
    if name.is_empty() || name.contains(['\n', '\r']) || name.chars().count() > NAME_MAX_CHARS {
        bail!("--name: a session name is one line of 1 to {NAME_MAX_CHARS} characters");
    }
    let path = name_path(data_dir, cwd, session_id);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    }
    std::fs::write(&path, format!("{name}\n")).with_context(|| format!("{}", path.display()))
}

/// A name file is one short line; more is not read.
const NAME_FILE_MAX_BYTES: usize = 4096;

/// A session's name from its name file, if it was given one (read as any
/// file a command could have replaced: regular file only, capped).
fn read_name(path: &Path) -> Option<String> {
    let opts = orbit_untrusted::ReadOpts::user_file(NAME_FILE_MAX_BYTES);
    let text = orbit_untrusted::read_untrusted(path, &opts).ok()?.text();
    let name = text.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// The newest session of this directory named `name`.
fn find_named(data_dir: &Path, cwd: &Path, name: &str) -> anyhow::Result<Option<String>> {
    Ok(list_project(data_dir, cwd)?
        .into_iter()
        .find(|s| read_name(&s.path.with_extension(NAME_EXTENSION)).as_deref() == Some(name.trim()))
        .map(|s| s.session_id))
}

/// The transcript of `id` (or of the newest session named so) in this
/// directory's project; a clear error when it is elsewhere or nowhere.
fn find_session(data_dir: &Path, cwd: &Path, id: &str) -> anyhow::Result<PathBuf> {
    if !is_valid_session_id(id) {
        return match find_named(data_dir, cwd, id)? {
            Some(found) => Ok(transcript_path(data_dir, cwd, &found)),
            None => bail!(
                "--resume: `{id}` is not a session id (a UUID such as 123e4567-e89b-12d3-a456-426614174000) nor the name of a session in {} (`orbit sessions` lists this directory's sessions and their names)",
                cwd.display()
            ),
        };
    }
    let id = id.to_ascii_lowercase();
    let path = transcript_path(data_dir, cwd, &id);
    if path.is_file() {
        return Ok(path);
    }
    match find_anywhere(data_dir, &id)? {
        Some(other) => {
            let dir = orbit_session::load(&other, "")
                .map(|l| l.header.cwd)
                .unwrap_or_else(|_| other.display().to_string());
            bail!(
                "session {id} belongs to another directory, {dir}; run orbit there (or pass --cwd {dir})"
            )
        }
        None => bail!(
            "no session {id} in {} (`orbit sessions` lists this directory's sessions, `orbit sessions --all` every one)",
            cwd.display()
        ),
    }
}

fn load(path: &Path, id: &str) -> anyhow::Result<LoadedSession> {
    let loaded = orbit_engine::load_transcript(path)
        .with_context(|| format!("cannot resume session {id}"))?;
    for repair in &loaded.repairs {
        tracing::warn!("session {id}: {repair}");
    }
    Ok(loaded)
}

#[derive(Debug, Parser)]
#[command(
    name = "orbit sessions",
    about = "List this directory's sessions, newest first (resume one with `orbit -r ID -p PROMPT`)"
)]
struct SessionsArgs {
    /// Every project's sessions, with their directory.
    #[arg(long)]
    all: bool,
    /// One JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<SessionsCommand>,
}

#[derive(Debug, clap::Subcommand)]
enum SessionsCommand {
    /// One session: its prompts and checkpoints (what `orbit rewind` can restore).
    Show {
        /// The session id.
        id: String,
    },
}

/// Runs `orbit sessions …` when argv starts with `sessions`; None otherwise.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    crate::subcommand::run("sessions", |args: SessionsArgs| list(&args, env))
}

fn list(args: &SessionsArgs, env: &Env) -> anyhow::Result<()> {
    if let Some(SessionsCommand::Show { id }) = &args.command {
        return crate::rewind::show(env, id);
    }
    let data_dir = orbit_config::data_dir(env)?;
    let cwd = crate::subcommand::dir_or_current(args.cwd.clone())?;
    let sessions = if args.all {
        list_all(&data_dir)?
    } else {
        list_project(&data_dir, &cwd)?
    };
    let names: Vec<Option<String>> = sessions
        .iter()
        .map(|s| read_name(&s.path.with_extension(NAME_EXTENSION)))
        .collect();
    if args.json {
        let rows: Vec<serde_json::Value> = sessions
            .iter()
            .zip(&names)
            .map(|(s, name)| json_row(s, name.as_deref()))
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    if sessions.is_empty() {
        match args.all {
            true => println!("No sessions yet."),
            false => println!("No sessions in {}.", cwd.display()),
        }
        return Ok(());
    }
    for line in table(&sessions, &names, args.all) {
        crate::term_safe::println_safe!("{line}");
    }
    Ok(())
}

fn json_row(s: &SessionSummary, name: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "session_id": s.session_id,
        "name": name,
        "cwd": s.cwd,
        "first_prompt": s.first_prompt,
        "last_activity": utc_timestamp(s.last_activity),
        "turns": s.turns,
        "total_cost_usd": s.total_cost_usd,
        "forked_from": s.forked_from,
    })
}

/// One header line and one line per session; the prompt last (it varies),
/// after the session's name in brackets when it has one.
fn table(sessions: &[SessionSummary], names: &[Option<String>], with_cwd: bool) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<36}  {:<20}  {:>5}  {:>9}  {}",
        "SESSION",
        "LAST ACTIVITY (UTC)",
        "TURNS",
        "COST",
        if with_cwd {
            "DIRECTORY  FIRST PROMPT"
        } else {
            "FIRST PROMPT"
        }
    )];
    for (s, name) in sessions.iter().zip(names) {
        let prompt: String = s.first_prompt.chars().take(80).collect();
        let prompt = match name {
            Some(name) => format!("[{name}] {prompt}"),
            None => prompt,
        };
        let place = if with_cwd {
            format!("{}  ", s.cwd)
        } else {
            String::new()
        };
        lines.push(format!(
            "{:<36}  {:<20}  {:>5}  {:>9}  {place}{prompt}",
            s.session_id,
            utc_timestamp(s.last_activity),
            s.turns,
            format!("${:.4}", s.total_cost_usd),
        ));
    }
    lines
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC) of a file time.
fn utc_timestamp(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = orbit_session::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        for (secs, text) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_796_303_330, "2026-12-03T13:08:50Z"),
        ] {
            assert_eq!(utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs)), text);
        }
    }
}
