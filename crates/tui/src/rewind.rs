//! `/rewind` (aliases `/checkpoint`, `/undo`; Esc Esc on an empty input):
//! restore the files to before one of the session's prompts.
//!
//! Data flow: `/rewind` with no argument lists the session's prompts
//! (`orbit_session::fork::prompts` over its transcript) in a picker, each
//! with the files it changed and each one's diff size (`a.txt +3 -1`: the
//! difference between its `before` and `after` checkpoints in
//! `orbit_checkpoint::Store`); choosing one queues
//! `/rewind N`, which restores the code only
//! (`orbit_checkpoint::rewind_code`) and notes what changed. A file changed
//! outside orbit since the checkpoint is not overwritten: a second picker
//! names the files and asks; yes queues `/rewind N --force`. The
//! conversation is left as it is (`orbit rewind ID --conversation` cuts
//! it); `orbit rewind ID --undo` undoes a rewind.

use orbit_checkpoint::{CheckpointError, Kind, Store, changed_paths, line_counts};
use orbit_engine::QueryEngine;

use crate::screen::{Picker, PickerKind, Screen, Tone};
use crate::wrap::truncate;

/// Files named per picker row, at most.
const ROW_FILES_MAX: usize = 4;
/// Width of a picker row's prompt text, in chars.
const ROW_PROMPT_CHARS: usize = 40;

/// The session's store and transcript.
fn open(engine: &QueryEngine) -> (Store, std::path::PathBuf) {
    let config = engine.config();
    let root = config
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| config.cwd.clone());
    let transcript = orbit_session::transcript_path(&config.data_dir, &root, &config.session_id);
    (
        Store::open(&config.data_dir, &root, &config.session_id),
        transcript,
    )
}

/// Runs `/rewind ARGS`.
pub(crate) fn run(engine: &QueryEngine, screen: &mut Screen, args: &str) {
    let mut words = args.split_whitespace();
    match words.next().map(str::parse::<u32>) {
        None => picker(engine, screen),
        Some(Ok(to)) if to > 0 => restore(engine, screen, to, words.any(|w| w == "--force")),
        Some(_) => screen.note(
            "Usage: /rewind [N] — N counts this session's prompts from 1",
            Tone::Error,
        ),
    }
}

/// The files prompt `n`'s writing changed (its before → after
/// checkpoints), each with its diff's size: `path +added -removed`.
fn changed_by(store: &Store, n: u32) -> Option<Vec<String>> {
    let live = store
        .manifest
        .checkpoints
        .iter()
        .filter(|c| c.retired.is_none());
    let mut before = None;
    let mut after = None;
    for c in live.filter(|c| c.prompt == n) {
        match c.kind {
            Kind::Before => before = Some(c.snapshot.clone()),
            Kind::After => after = Some(c.snapshot.clone()),
            Kind::Rewind => {}
        }
    }
    let (before, after) = (store.state(&before?).ok()?, store.state(&after?).ok()?);
    let rows = changed_paths(&before, &after)
        .into_iter()
        .enumerate()
        .map(|(i, path)| {
            if i >= ROW_FILES_MAX {
                return path;
            }
            let one = std::iter::once(path.clone()).collect();
            let (added, removed) = line_counts(store, &before, &after, &one);
            format!("{path} +{added} -{removed}")
        })
        .collect();
    Some(rows)
}

fn picker(engine: &QueryEngine, screen: &mut Screen) {
    let (store, transcript) = open(engine);
    let prompts = orbit_session::fork::prompts(&transcript).unwrap_or_default();
    if prompts.is_empty() {
        screen.note("No prompt to rewind to yet.", Tone::Dim);
        return;
    }
    let items = prompts
        .iter()
        .rev()
        .map(|mark| {
            let files = match changed_by(&store, mark.number) {
                Some(files) if files.is_empty() => "no file changed".to_string(),
                Some(files) => {
                    let more = files.len().saturating_sub(ROW_FILES_MAX);
                    let mut shown = files
                        .into_iter()
                        .take(ROW_FILES_MAX)
                        .collect::<Vec<_>>()
                        .join(", ");
                    if more > 0 {
                        shown.push_str(&format!(" +{more}"));
                    }
                    format!("changed {shown}")
                }
                None => "no checkpoint".to_string(),
            };
            let label = format!(
                "{:>3}. {} — {files}",
                mark.number,
                truncate(&mark.text, ROW_PROMPT_CHARS)
            );
            (mark.number.to_string(), label)
        })
        .collect();
    screen.picker = Some(Picker {
        title: "Rewind the files to before which prompt? (code only)".to_string(),
        items,
        selected: 0,
        kind: PickerKind::Rewind,
    });
}

fn restore(engine: &QueryEngine, screen: &mut Screen, to: u32, force: bool) {
    let (mut store, _) = open(engine);
    match orbit_checkpoint::rewind_code(&mut store, to, force) {
        Ok(report) if report.undo_checkpoint.is_none() => screen.note(
            &format!("Nothing to restore: no file differs from before prompt {to}."),
            Tone::Dim,
        ),
        Ok(report) => {
            let mut line = format!("Rewound the files to before prompt {to}:");
            for path in &report.restored {
                line.push_str(&format!(" restored {path};"));
            }
            for path in &report.removed {
                line.push_str(&format!(" removed {path};"));
            }
            screen.note(&line, Tone::Plain);
            for item in &report.not_restorable {
                screen.note(
                    &format!("Not restorable: {} ({})", item.path, item.reason),
                    Tone::Dim,
                );
            }
            let id = &engine.config().session_id;
            screen.note(&format!("Undo with `orbit rewind {id} --undo`."), Tone::Dim);
        }
        Err(CheckpointError::Conflict(files)) => {
            screen.picker = Some(Picker {
                title: format!(
                    "Changed outside orbit since the checkpoint: {}. Overwrite?",
                    files.join(", ")
                ),
                items: vec![
                    (format!("{to} --force"), "Yes, overwrite them".to_string()),
                    (String::new(), "No, keep them".to_string()),
                ],
                selected: 1,
                kind: PickerKind::Rewind,
            });
        }
        Err(err) => screen.note(&format!("Cannot rewind: {err}"), Tone::Error),
    }
}
