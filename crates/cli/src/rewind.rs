//! `orbit rewind SESSION_ID --to N [--code | --conversation] [--force]`,
//! `orbit rewind SESSION_ID --undo`, and the checkpoint lines of
//! `orbit sessions show ID`.
//!
//! Data flow: the session's transcript is found by id in any project
//! (`orbit_session::find_anywhere`), its header gives the project
//! directory, and `orbit_checkpoint::Store` opens the session's
//! checkpoints. Code rewind is `orbit_checkpoint::rewind_code` (refuses
//! files changed outside orbit unless `--force`; records the current tree
//! first, so `--undo` comes back); conversation rewind is
//! `orbit_session::fork::rewind_conversation` (the whole transcript is
//! kept as `<session dir>/forks/<time>.jsonl`), after which the
//! checkpoints of the removed prompts are marked retired. Neither flag:
//! both, code first (a refused code rewind leaves the conversation too).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Parser;
use orbit_checkpoint::{Kind, RewindReport, Store};
use orbit_config::Env;

use crate::term_safe::println_safe;

#[derive(Debug, Parser)]
#[command(
    name = "orbit rewind",
    about = "Bring a session's files and/or conversation back to before one of its prompts"
)]
struct RewindArgs {
    /// The session (`orbit sessions` lists them).
    session: String,
    /// The prompt to go back to before (the session's prompts count from 1).
    #[arg(long, value_name = "N", required_unless_present = "undo")]
    to: Option<u32>,
    /// Only the files.
    #[arg(long, conflicts_with = "conversation")]
    code: bool,
    /// Only the conversation.
    #[arg(long)]
    conversation: bool,
    /// Overwrite files changed outside orbit since the checkpoint.
    #[arg(long)]
    force: bool,
    /// Undo the last code rewind.
    #[arg(long, conflicts_with_all = ["to", "code", "conversation"])]
    undo: bool,
}

/// Runs `orbit rewind …` when argv starts with `rewind`; None otherwise.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    crate::subcommand::run("rewind", |args: RewindArgs| rewind(&args, env))
}

/// The session's transcript and project directory.
fn locate(data_dir: &Path, id: &str) -> anyhow::Result<(PathBuf, PathBuf)> {
    if !orbit_session::is_valid_session_id(id) {
        bail!("`{id}` is not a session id (`orbit sessions` lists them)");
    }
    let id = id.to_ascii_lowercase();
    let Some(path) = orbit_session::find_anywhere(data_dir, &id)? else {
        bail!("no session {id} (`orbit sessions --all` lists every one)");
    };
    let header = orbit_session::load(&path, "")
        .with_context(|| format!("session {id}"))?
        .header;
    Ok((path, PathBuf::from(header.cwd)))
}

fn rewind(args: &RewindArgs, env: &Env) -> anyhow::Result<()> {
    let data_dir = orbit_config::data_dir(env)?;
    let (transcript, root) = locate(&data_dir, &args.session)?;
    let id = args.session.to_ascii_lowercase();
    let mut store = Store::open(&data_dir, &root, &id);
    if args.undo {
        let report = orbit_checkpoint::undo(&mut store, args.force)?;
        print_report(&report, "before the last rewind", &id);
        return Ok(());
    }
    let to = args.to.unwrap_or(1).max(1);
    let both = !args.code && !args.conversation;
    if args.code || both {
        let report = orbit_checkpoint::rewind_code(&mut store, to, args.force)?;
        print_report(&report, &format!("before prompt {to}"), &id);
    }
    if args.conversation || both {
        let (mark, name) = rewind_conversation(&data_dir, &root, &id, &transcript, &mut store, to)?;
        println_safe!(
            "Conversation rewound to before prompt {to} (\"{}\"); the removed part is kept in {name}. Continue with `orbit --resume {id}`.",
            mark.text
        );
    }
    Ok(())
}

/// Cuts session `id`'s conversation to before prompt `to` (the whole
/// transcript kept under the session's `forks/`) and retires the
/// checkpoints of the prompts cut off; returns the prompt's mark and the
/// fork's path. `orbit rewind --conversation` and a fleet task's retry.
pub(crate) fn rewind_conversation(
    data_dir: &Path,
    root: &Path,
    id: &str,
    transcript: &Path,
    store: &mut Store,
    to: u32,
) -> anyhow::Result<(orbit_session::fork::PromptMark, String)> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let fork = orbit_session::paths::session_dir(data_dir, root, id)
        .join("forks")
        .join(format!("{stamp}.jsonl"));
    let mark = orbit_session::fork::rewind_conversation(transcript, to, &fork)?;
    let name = fork.display().to_string();
    for checkpoint in &mut store.manifest.checkpoints {
        if checkpoint.prompt >= to && checkpoint.kind != Kind::Rewind {
            checkpoint.retired.get_or_insert_with(|| name.clone());
        }
    }
    if !store.manifest.checkpoints.is_empty() {
        store.save()?;
    }
    Ok((mark, name))
}

fn print_report(report: &RewindReport, point: &str, id: &str) {
    if report.undo_checkpoint.is_none() {
        println_safe!("Files: nothing to restore (no file differs from {point}).");
    } else {
        println_safe!(
            "Files restored to {point}: {} written, {} removed (+{} -{} lines).",
            report.restored.len(),
            report.removed.len(),
            report.insertions,
            report.deletions
        );
        for path in &report.restored {
            println_safe!("  restored {path}");
        }
        for path in &report.removed {
            println_safe!("  removed {path}");
        }
        println_safe!("Undo with `orbit rewind {id} --undo`.");
    }
    for path in &report.forced {
        println_safe!("  overwrote {path} (changed outside orbit; --force)");
    }
    for item in &report.not_restorable {
        println_safe!("  not restorable: {} ({})", item.path, item.reason);
    }
}

/// The checkpoint lines of `orbit sessions show ID`.
pub fn show(env: &Env, id: &str) -> anyhow::Result<()> {
    let data_dir = orbit_config::data_dir(env)?;
    let (transcript, root) = locate(&data_dir, id)?;
    let id = id.to_ascii_lowercase();
    let prompts = orbit_session::fork::prompts(&transcript)?;
    let store = Store::open(&data_dir, &root, &id);
    println_safe!("Session {id} in {}", root.display());
    println_safe!("Prompts: {}", prompts.len());
    for mark in &prompts {
        println_safe!("  {}. {}", mark.number, mark.text);
    }
    let manifest = &store.manifest;
    if manifest.checkpoints.is_empty() {
        println_safe!("Checkpoints: none (no prompt wrote a file)");
    } else {
        println_safe!(
            "Checkpoints ({}, {} KiB stored in {}):",
            if store.is_git() {
                "git"
            } else {
                "plain folder"
            },
            manifest.stored_bytes / 1024,
            store.dir().display()
        );
    }
    for c in &manifest.checkpoints {
        let what = match c.kind {
            Kind::Before => format!("before prompt {}", c.prompt),
            Kind::After => format!("after prompt {}", c.prompt),
            Kind::Rewind => "before a rewind (--undo)".to_string(),
        };
        let retired = c.retired.as_ref().map_or(String::new(), |f| {
            format!(" [conversation rewound; kept in {f}]")
        });
        println_safe!("  #{} {what} ({} ms){retired}", c.id, c.elapsed_ms);
        if !c.changed.is_empty() {
            println_safe!("     changed: {}", c.changed.join(", "));
        }
        for item in &c.not_restorable {
            println_safe!("     not restorable: {} ({})", item.path, item.reason);
        }
    }
    if let Some(off) = &manifest.off {
        println_safe!("{off}");
    }
    Ok(())
}
