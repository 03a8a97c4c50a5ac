//! The Write tool (T4/T5): creates or overwrites a file, atomically.
//!
//! Facts: writes the resolved path; not read-only, not concurrency-safe;
//! destructive when the file exists (it is replaced whole).
//!
//! Flow: `validate` refuses (`ToolError::RespondToModel`) a content that is
//! one of orbit's own tool-result texts (`write_echo`), a directory, a
//! read-only file, or an existing file that was not read in this session or
//! changed on disk since (T5, via `ctx.file_state`); the plan is the
//! resolved path and the content. `call` checks again (a permission prompt
//! may have taken minutes), creates parent directories, writes through
//! `atomic_write` (temp file in the same directory → fsync → rename, the
//! old file's permissions kept, symlinks written through to their target)
//! and records the new state, so a following Edit needs no re-read. A cancelled call (its token fired, the
//! engine may already have reported it cancelled) writes nothing: the token
//! is checked before the directories are made and again just before the
//! rename that replaces the file.

use std::fs;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use orbit_tool::texts::tools::{self as tools_texts, write as texts};
use orbit_tool::{
    CallFacts, ChangeKind, FileChange, ToolDetail, ToolError, ToolInfo, ToolOutput, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::builtin::atomic_write::{MAX_EDIT_FILE_BYTES, WriteError, atomic_write, write_target};
use crate::builtin::blocking::write_with_file_state;
use crate::builtin::patch::structured_patch;
use crate::builtin::read::model_file::{read_capped, special_kind};
use crate::builtin::write_echo::is_tool_result_text;
use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileStateCache, state_key};

// Input of Write.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// Path of the file to write
    pub file_path: String,
    /// The full new content
    pub content: String,
}

/// The Write tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteTool;

/// A write with its path resolved against the session cwd.
#[derive(Debug)]
pub struct WritePlan {
    path: PathBuf,
    content: String,
}

#[async_trait]
impl TypedTool for WriteTool {
    type Input = WriteInput;
    type Plan = WritePlan;

    /// Writes the resolved path; destructive when that path exists (the
    /// whole file is replaced, the old content is gone). One `stat`.
    fn facts(&self, input: &WriteInput, ctx: &ToolUseContext) -> CallFacts {
        let path = ctx.resolve_path(&input.file_path);
        let destructive = path.exists();
        CallFacts {
            destructive,
            ..CallFacts::about(&input.file_path).writing(path)
        }
    }

    async fn validate(
        &self,
        input: WriteInput,
        ctx: &ToolUseContext,
    ) -> Result<WritePlan, ToolError> {
        if is_tool_result_text(&input.content) {
            return Err(ToolError::RespondToModel(
                texts::STATUS_TEXT_REFUSAL.to_string(),
            ));
        }
        let path = ctx.resolve_path(&input.file_path);
        check_writable(&path, &ctx.file_state).map_err(ToolError::RespondToModel)?;
        Ok(WritePlan {
            path,
            content: input.content,
        })
    }

    async fn call(
        &self,
        plan: WritePlan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        write_with_file_state("Write", ctx, call, move |cache, cancel| {
            write_file(&plan.path, plan.content.as_bytes(), cache, cancel)
        })
        .await
    }

    fn info(&self) -> ToolInfo<'_> {
        // The default result limit: Write answers with a short confirmation.
        ToolInfo::new("Write", texts::DESCRIPTION)
            .with_search_hint("write create save overwrite file")
    }
}

/// The business checks of Write: not a directory, not read-only, and T5 for
/// an existing file.
fn check_writable(path: &Path, cache: &FileStateCache) -> Result<(), String> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(tools_texts::is_a_directory("open", path)),
        Ok(meta) if !meta.is_file() => Err(tools_texts::not_a_regular_file(
            "write",
            path,
            special_kind(&meta),
        )),
        Ok(meta) if meta.permissions().readonly() => Err(tools_texts::permission_denied(path)),
        Ok(_) => cache.check_fresh(path).map_err(|e| e.to_string()),
        Err(_) => Ok(()),
    }
}

/// Checks again what may have changed since `validate` (a permission
/// prompt may have taken minutes), then writes.
fn write_file(
    path: &Path,
    content: &[u8],
    cache: &FileStateCache,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let existed = path.exists();
    check_writable(path, cache).map_err(ToolError::RespondToModel)?;
    // What an overwrite replaces, for the embedder's patch (`detail`): a
    // regular file of at most Edit's cap (no patch for a larger one), read
    // without blocking on a FIFO swapped in since the check.
    let original = existed
        .then(|| read_capped(path, MAX_EDIT_FILE_BYTES).ok())
        .flatten()
        .and_then(|(bytes, _)| String::from_utf8(bytes).ok());
    if cancel.is_cancelled() {
        return Ok(ToolOutput::interrupted());
    }
    let target = write_target(path);
    if let Some(parent) = target.parent()
        && let Err(e) = fs::create_dir_all(parent)
    {
        return Ok(ToolOutput::error(tools_texts::cannot_create_directory(
            parent, e,
        )));
    }
    Ok(match atomic_write(&target, content, cancel) {
        Ok(state) => {
            cache.record(&state_key(&target), state);
            let text = if existed {
                texts::updated(path)
            } else {
                texts::created(path)
            };
            ToolOutput::text(text).with_detail(change_detail(path, existed, original, content))
        }
        Err(WriteError::Cancelled) => ToolOutput::interrupted(),
        Err(WriteError::Io(e)) => ToolOutput::error(tools_texts::cannot_write(path, e)),
    })
}

/// Write's facts for the embedder: a create has no patch and no original
/// (as Claude Code); an overwrite's patch is the diff from the text it
/// replaced to the new content (none when the old content was not text or
/// the new is not).
fn change_detail(
    path: &Path,
    existed: bool,
    original: Option<String>,
    content: &[u8],
) -> ToolDetail {
    let patch = match (&original, std::str::from_utf8(content)) {
        (Some(old), Ok(new)) if existed => structured_patch(old, new),
        _ => Vec::new(),
    };
    ToolDetail::Write(FileChange {
        file: path.to_path_buf(),
        kind: if existed {
            ChangeKind::Update
        } else {
            ChangeKind::Create
        },
        structured_patch: patch,
        original,
    })
}
