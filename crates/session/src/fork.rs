//! A transcript's prompts and conversation rewind.
//!
//! A session's prompts are counted from 1 in transcript order: prompt `n`
//! begins at the first `message` record after the `(n-1)`th `result`
//! record (each submitted prompt ends with one). [`prompts`] lists them
//! with their byte offsets; [`count_results`] counts result records from
//! an offset on (the checkpoint hook's prompt number, read incrementally).
//!
//! [`rewind_conversation`] cuts a transcript right before prompt `n`: the
//! whole file is first copied to a fork file (the removed tail is never
//! deleted), then the kept head is written to a temporary file, synced and
//! renamed over the transcript. Resuming it continues from before prompt
//! `n` with the records that were there then, so the next request repeats
//! the bytes of the one made at that point.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

use orbit_protocol::{ContentBlock, Role};

use crate::SessionError;
use crate::record::{Record, decode};

/// Records begin `{"v":N,"type":"…"`: the tag is within this many bytes.
const TAG_WINDOW_BYTES: usize = 32;
const RESULT_TAG: &[u8] = br#""type":"result""#;
const MESSAGE_TAG: &[u8] = br#""type":"message""#;
/// The longest prompt text kept in a [`PromptMark`], in chars.
const PROMPT_TEXT_MAX_CHARS: usize = 200;

/// Where one prompt begins in a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMark {
    /// The prompt's number, from 1.
    pub number: u32,
    /// Byte offset of its first message record.
    pub offset: u64,
    /// The start of its text (first text block, one line).
    pub text: String,
}

fn has_tag(line: &[u8], tag: &[u8]) -> bool {
    line[..line.len().min(TAG_WINDOW_BYTES)]
        .windows(tag.len())
        .any(|w| w == tag)
}

fn read_error(path: &Path) -> impl Fn(std::io::Error) -> SessionError + '_ {
    move |source| SessionError::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// Every prompt of the transcript at `path`, in order.
pub fn prompts(path: &Path) -> Result<Vec<PromptMark>, SessionError> {
    let file = File::open(path).map_err(read_error(path))?;
    let mut reader = BufReader::new(file);
    let mut marks = Vec::new();
    let mut results = 0u32;
    let mut offset = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(read_error(path))?;
        if n == 0 || !line.ends_with(b"\n") {
            break;
        }
        if has_tag(&line, RESULT_TAG) {
            results += 1;
        } else if has_tag(&line, MESSAGE_TAG)
            && marks.len() as u32 == results
            && let Ok(Record::Message(record)) = decode(&line[..n - 1])
            && record.message.role == Role::User
        {
            marks.push(PromptMark {
                number: results + 1,
                offset,
                text: first_text(&record.message.content),
            });
        }
        offset += n as u64;
    }
    Ok(marks)
}

fn first_text(content: &[ContentBlock]) -> String {
    let text = content
        .iter()
        .find_map(|block| match block {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or_default();
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(PROMPT_TEXT_MAX_CHARS).collect()
}

/// The `result` records of complete lines from byte `from` on, and the
/// offset after the last complete line (a missing file counts none).
pub fn count_results(path: &Path, from: u64) -> (u32, u64) {
    let Ok(mut file) = File::open(path) else {
        return (0, from);
    };
    if file.seek(SeekFrom::Start(from)).is_err() {
        return (0, from);
    }
    let mut reader = BufReader::new(file);
    let (mut count, mut offset) = (0u32, from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(n) if n > 0 && line.ends_with(b"\n") => {
                count += u32::from(has_tag(&line, RESULT_TAG));
                offset += n as u64;
            }
            _ => return (count, offset),
        }
    }
}

/// Cuts the transcript at `path` right before prompt `number`, keeping the
/// whole file as `fork` first. Returns the prompt cut at.
pub fn rewind_conversation(
    path: &Path,
    number: u32,
    fork: &Path,
) -> Result<PromptMark, SessionError> {
    let marks = prompts(path)?;
    let Some(mark) = marks.iter().find(|m| m.number == number).cloned() else {
        return Err(SessionError::Write {
            path: path.to_path_buf(),
            reason: format!(
                "the session has no prompt {number} (it has {})",
                marks.len()
            ),
        });
    };
    let write_error = |reason: std::io::Error| SessionError::Write {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    if let Some(dir) = fork.parent() {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    std::fs::copy(path, fork).map_err(write_error)?;
    File::open(fork)
        .and_then(|f| f.sync_all())
        .map_err(write_error)?;
    let bytes = std::fs::read(path).map_err(read_error(path))?;
    let keep = usize::try_from(mark.offset)
        .unwrap_or(bytes.len())
        .min(bytes.len());
    let tmp = path.with_extension("rewind-tmp");
    let mut out = File::create(&tmp).map_err(write_error)?;
    out.write_all(&bytes[..keep]).map_err(write_error)?;
    out.sync_all().map_err(write_error)?;
    std::fs::rename(&tmp, path).map_err(write_error)?;
    Ok(mark)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LINES: &str = concat!(
        r#"{"v":1,"type":"header","session_id":"s","cwd":"/p","created_at_ms":1,"orbit_version":"0"}"#,
        "\n",
        r#"{"v":1,"type":"message","message":{"role":"user","content":"first"}}"#,
        "\n",
        r#"{"v":1,"type":"message","message":{"role":"assistant","content":"ok"}}"#,
        "\n",
        r#"{"v":1,"type":"result","subtype":"success","num_turns":1,"duration_ms":1,"interrupted":false}"#,
        "\n",
        r#"{"v":1,"type":"message","message":{"role":"user","content":"second  prompt"}}"#,
        "\n",
        r#"{"v":1,"type":"result","subtype":"success","num_turns":1,"duration_ms":1,"interrupted":false}"#,
        "\n",
    );

    #[test]
    fn prompts_are_counted_by_results_and_a_rewind_keeps_the_whole_file_as_a_fork() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, LINES).unwrap();
        let marks = prompts(&path).unwrap();
        assert_eq!(marks.len(), 2);
        assert_eq!(marks[1].text, "second prompt");
        assert_eq!(count_results(&path, 0).0, 2);
        let fork = dir.path().join("forks/1.jsonl");
        rewind_conversation(&path, 2, &fork).unwrap();
        assert_eq!(std::fs::read_to_string(&fork).unwrap(), LINES);
        let kept = std::fs::read_to_string(&path).unwrap();
        assert_eq!(kept.lines().count(), 4);
        assert!(rewind_conversation(&path, 5, &fork).is_err());
    }
}
