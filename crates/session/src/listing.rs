//! The sessions of a project (or of every project): what `orbit sessions`
//! prints and how `--continue` finds the latest one.
//!
//! Data flow: the `.jsonl` files of `<data dir>/projects/<slug>/` → per
//! file, its head is read up to the first user prompt (header, first
//! prompt) and its tail for the last `usage` record (turns and cost; the
//! whole file only when the tail has none) → [`SessionSummary`], newest
//! first by the file's modification time (the last append).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use orbit_protocol::{ContentBlock, Role};

use crate::SessionError;
use crate::paths::{TRANSCRIPT_EXTENSION, project_dir, projects_dir};
use crate::record::{Record, decode};

/// How much of a transcript's end is read for its totals.
const TAIL_BYTES: u64 = 256 * 1024;
/// How much of a transcript's start is read for its header and first prompt.
const HEAD_BYTES: u64 = 1024 * 1024;
/// The `type` of a usage record as encoded, and where to look for it.
const USAGE_TAG: &[u8] = b"\"type\":\"usage\"";
const USAGE_TAG_WINDOW_BYTES: usize = 32;
/// Longest first prompt kept in a summary, in chars.
pub const FIRST_PROMPT_MAX_CHARS: usize = 200;

/// One session as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// The session id.
    pub session_id: String,
    /// Its transcript.
    pub path: PathBuf,
    /// The session's working directory (from its header).
    pub cwd: String,
    /// The first prompt, on one line, cut to [`FIRST_PROMPT_MAX_CHARS`].
    pub first_prompt: String,
    /// The last append to the transcript.
    pub last_activity: SystemTime,
    /// Model calls of the session.
    pub turns: u32,
    /// Cost of the session, in US dollars.
    pub total_cost_usd: f64,
    /// The session it was forked from.
    pub forked_from: Option<String>,
}

/// The sessions of the project at `cwd`, newest first. A project without
/// sessions gives an empty list.
pub fn list_project(data_dir: &Path, cwd: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let mut out = summaries_in(&project_dir(data_dir, cwd))?;
    sort_newest_first(&mut out);
    Ok(out)
}

/// The sessions of every project, newest first.
pub fn list_all(data_dir: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let root = projects_dir(data_dir);
    let mut out = Vec::new();
    for dir in read_dir_sorted(&root)? {
        if dir.is_dir() {
            out.extend(summaries_in(&dir)?);
        }
    }
    sort_newest_first(&mut out);
    Ok(out)
}

/// The id of the project's most recently active session.
pub fn latest(data_dir: &Path, cwd: &Path) -> Result<Option<String>, SessionError> {
    let dir = project_dir(data_dir, cwd);
    let mut newest: Option<(SystemTime, String)> = None;
    for path in transcripts_in(&dir)? {
        let Ok(modified) = path.metadata().and_then(|m| m.modified()) else {
            continue;
        };
        let Some(id) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
            newest = Some((modified, id));
        }
    }
    Ok(newest.map(|(_, id)| id))
}

/// Where a session id has a transcript, in any project (for a clear error
/// when `--resume` is run from the wrong directory).
pub fn find_anywhere(data_dir: &Path, session_id: &str) -> Result<Option<PathBuf>, SessionError> {
    let file = format!(
        "{}.{TRANSCRIPT_EXTENSION}",
        crate::file_component(session_id)
    );
    for dir in read_dir_sorted(&projects_dir(data_dir))? {
        let candidate = dir.join(&file);
        if candidate.is_file() {
            return Ok(Some(candidate));
        }
    }
    Ok(None)
}

fn sort_newest_first(list: &mut [SessionSummary]) {
    list.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, SessionError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SessionError::Read {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    Ok(paths)
}

fn transcripts_in(dir: &Path) -> Result<Vec<PathBuf>, SessionError> {
    Ok(read_dir_sorted(dir)?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == TRANSCRIPT_EXTENSION) && p.is_file())
        .collect())
}

fn summaries_in(dir: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let mut out = Vec::new();
    for path in transcripts_in(dir)? {
        match summarize(&path) {
            Ok(Some(summary)) => out.push(summary),
            Ok(None) => {}
            Err(err) => {
                tracing::warn!(path = %path.display(), error = %err, "skipping a transcript")
            }
        }
    }
    Ok(out)
}

/// A transcript's summary; None when it has no header (not a session).
fn summarize(path: &Path) -> std::io::Result<Option<SessionSummary>> {
    let mut file = File::open(path)?;
    let metadata = file.metadata()?;
    let mut header = None;
    let mut first_prompt = None;
    let mut head = BufReader::new((&mut file).take(HEAD_BYTES));
    let mut line = Vec::new();
    while first_prompt.is_none() {
        line.clear();
        if head.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        match decode(trim_newline(&line)) {
            Ok(Record::Header(h)) if header.is_none() => header = Some(h),
            Ok(Record::Message(m)) if m.message.role == Role::User => {
                first_prompt = prompt_text(&m.message.content);
            }
            Ok(Record::Snapshot(s)) => {
                first_prompt = s
                    .messages
                    .iter()
                    .filter(|m| m.role == Role::User)
                    .find_map(|m| prompt_text(&m.content));
            }
            _ => {}
        }
    }
    let Some(header) = header else {
        return Ok(None);
    };
    let totals = match last_usage_in_tail(&mut file, metadata.len())? {
        Some(totals) => Some(totals),
        None => last_usage_anywhere(path)?,
    };
    let (turns, total_cost_usd) = totals.unwrap_or((0, 0.0));
    Ok(Some(SessionSummary {
        session_id: header.session_id,
        path: path.to_path_buf(),
        cwd: header.cwd,
        first_prompt: first_prompt.unwrap_or_default(),
        last_activity: metadata.modified()?,
        turns,
        total_cost_usd,
        forked_from: header.forked_from,
    }))
}

/// The text of a user message's text blocks (tool results skipped), on one
/// line and cut; None when it has none.
fn prompt_text(content: &[ContentBlock]) -> Option<String> {
    let text: Vec<&str> = content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if text.is_empty() {
        return None;
    }
    let one_line = text
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Some(cut(&one_line, FIRST_PROMPT_MAX_CHARS))
}

fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

fn usage_totals(line: &[u8]) -> Option<(u32, f64)> {
    // Records begin `{"v":N,"type":"…"`: skip the others without parsing.
    let start = &line[..line.len().min(USAGE_TAG_WINDOW_BYTES)];
    if !start.windows(USAGE_TAG.len()).any(|w| w == USAGE_TAG) {
        return None;
    }
    match decode(line) {
        Ok(Record::Usage(u)) => Some((u.turns, u.total_cost_usd)),
        _ => None,
    }
}

fn last_usage_in_tail(file: &mut File, len: u64) -> std::io::Result<Option<(u32, f64)>> {
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut tail)?;
    // The first piece may be the end of a line cut by the window.
    let lines: Vec<&[u8]> = tail
        .split(|&b| b == b'\n')
        .skip(usize::from(start > 0))
        .collect();
    Ok(lines.into_iter().rev().find_map(usage_totals))
}

fn last_usage_anywhere(path: &Path) -> std::io::Result<Option<(u32, f64)>> {
    let mut last = None;
    let reader = BufReader::new(File::open(path)?);
    for line in reader.split(b'\n') {
        let line = line?;
        if let Some(totals) = usage_totals(&line) {
            last = Some(totals);
        }
    }
    Ok(last)
}

/// Days since 1970-01-01 → (year, month, day); Howard Hinnant's algorithm
/// (session dates in listings, today's date in the system prompt).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
