//! The Edit tool (T4/T5, §8): exact-string replacement in a file.
//!
//! Facts: writes the resolved path; not read-only, not concurrency-safe, not
//! destructive (a targeted replacement whose old text is in the
//! conversation; a created file replaces nothing).
//!
//! Flow: `validate` reads the file once (a regular file of at most
//! [`MAX_EDIT_FILE_BYTES`], through `read::model_file`: a FIFO or device is
//! refused without blocking) and runs `plan_edit`, Claude
//! Code's checks in its order — no-op strings, missing file (created when
//! `old_string` is empty), an empty `old_string` on a non-blank file,
//! modified-since-read (T5 as Claude Code 2.1.332: a file never read may
//! be edited, the exact match proves the model knows it), then the match count
//! (`replace`; a string not found is answered with the file's closest
//! lines, `nearest`) — yielding the new content and the file's state as read
//! (`EditPlan`); a refusal is `ToolError::RespondToModel` (the engine
//! wraps it in `<tool_use_error>`). `call` re-checks only what can change
//! meanwhile (a permission prompt may take minutes): the file's size and
//! content hash against the plan. A changed file is planned again against
//! what is on disk now, so the model gets the text a fresh check gives
//! (mostly T5's "modified since read"). It then writes atomically through
//! the shared `atomic_write` and records the new state. A call whose cancel
//! token fired writes nothing (checked before the directories are made and
//! again just before the rename). The result's detail
//! ([`ToolDetail::Edit`]) carries the patch from the content the plan read
//! to the content written.

mod nearest;
mod replace;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use orbit_tool::texts::tools::{self as tools_texts, edit as texts};
use orbit_tool::{
    CallFacts, ChangeKind, FileChange, ToolDetail, ToolError, ToolInfo, ToolOutput, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::builtin::atomic_write::{WriteError, atomic_write, write_target};
use crate::builtin::blocking::{with_file_state, write_with_file_state};
use crate::builtin::patch::structured_patch;
use crate::builtin::read::model_file::{Refused, read_capped};
use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileState, FileStateCache, state_key};

use replace::{Replacement, replace};

/// Largest file Edit reads, in bytes (defined beside the atomic write both
/// file-changing tools share).
pub use crate::builtin::atomic_write::MAX_EDIT_FILE_BYTES;

/// Claude Code's success texts: one replacement, or all of them.
pub use orbit_tool::texts::tools::edit::success as success_text;
/// §8 no-op text; empty `old_string` on an existing, non-blank file.
pub use orbit_tool::texts::tools::edit::{FILE_EXISTS_MESSAGE, NO_CHANGES_MESSAGE};

// Input of Edit.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// Path of the file to modify
    pub file_path: String,
    /// The exact text to replace
    pub old_string: String,
    /// The text to replace it with (must differ from old_string)
    pub new_string: String,
    /// Replace every occurrence of old_string (default false)
    #[serde(default)]
    pub replace_all: bool,
}

/// The Edit tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct EditTool;

/// What `validate` hands to `call`: the request and its plan.
#[derive(Debug)]
pub struct PlannedEdit {
    request: EditRequest,
    plan: EditPlan,
}

/// An edit with its path resolved against the session cwd.
#[derive(Debug)]
pub(crate) struct EditRequest {
    pub path: PathBuf,
    pub cwd: PathBuf,
    pub input: EditInput,
}

impl EditRequest {
    pub(crate) fn new(input: EditInput, ctx: &ToolUseContext) -> Self {
        Self {
            path: ctx.resolve_path(&input.file_path),
            cwd: ctx.cwd(),
            input,
        }
    }
}

#[async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;
    type Plan = PlannedEdit;

    fn facts(&self, input: &EditInput, ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(&input.file_path).writing(ctx.resolve_path(&input.file_path))
    }

    async fn validate(
        &self,
        input: EditInput,
        ctx: &ToolUseContext,
    ) -> Result<PlannedEdit, ToolError> {
        let request = EditRequest::new(input, ctx);
        let job = move |cache: &FileStateCache| -> Result<PlannedEdit, String> {
            let plan = plan_edit(&request, cache)?;
            Ok(PlannedEdit { request, plan })
        };
        with_file_state("Edit", ctx, job)
            .await?
            .map_err(ToolError::RespondToModel)
    }

    async fn call(
        &self,
        planned: PlannedEdit,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        write_with_file_state("Edit", ctx, call, |cache, cancel| {
            apply_edit(planned, cache, cancel)
        })
        .await
    }

    fn info(&self) -> ToolInfo<'_> {
        // The default result limit: Edit answers with a short confirmation.
        ToolInfo::new("Edit", texts::DESCRIPTION)
            .with_search_hint("edit modify replace string in file")
    }
}

/// What [`plan_edit`] decided.
#[derive(Debug)]
pub(crate) struct EditPlan {
    /// The file's full new content.
    pub content: Vec<u8>,
    /// The file's content as read for this plan (empty when it is created).
    pub original: Vec<u8>,
    /// The file does not exist yet (created, with parent directories).
    pub creates: bool,
    /// The file as it was read for this plan; `None` when it is created.
    pub seen: Option<FileState>,
}

/// Claude Code's Edit checks, in order; `Err` is the unwrapped refusal text.
pub(crate) fn plan_edit(req: &EditRequest, cache: &FileStateCache) -> Result<EditPlan, String> {
    let EditInput {
        old_string: old,
        new_string: new,
        replace_all,
        ..
    } = &req.input;
    if old == new {
        return Err(NO_CHANGES_MESSAGE.to_string());
    }
    let path = &req.path;
    // A FIFO or device is refused without blocking; at most the cap is read.
    let (content, meta) = match read_capped(path, MAX_EDIT_FILE_BYTES) {
        Ok(read) => read,
        Err(Refused::Missing) => {
            if old.is_empty() {
                return Ok(EditPlan {
                    content: new.as_bytes().to_vec(),
                    original: Vec::new(),
                    creates: true,
                    seen: None,
                });
            }
            return Err(tools_texts::file_not_found(&req.cwd));
        }
        Err(Refused::Directory) => return Err(tools_texts::is_a_directory("read", path)),
        Err(Refused::Special(kind)) => {
            return Err(tools_texts::not_a_regular_file("edit", path, kind));
        }
        Err(Refused::TooLarge(size)) => {
            return Err(texts::file_too_large(size, MAX_EDIT_FILE_BYTES));
        }
        Err(Refused::Io(e)) => return Err(tools_texts::cannot_read(path, e)),
    };
    let seen = Some(FileState::from_content(&meta, &content));
    if old.is_empty() && !String::from_utf8_lossy(&content).trim().is_empty() {
        return Err(FILE_EXISTS_MESSAGE.to_string());
    }
    cache.check_not_modified(path).map_err(|e| e.to_string())?;
    if meta.permissions().readonly() {
        return Err(tools_texts::permission_denied(path));
    }
    if old.is_empty() {
        // A blank existing file: its content becomes new_string.
        return Ok(EditPlan {
            content: new.as_bytes().to_vec(),
            original: content,
            creates: false,
            seen,
        });
    }
    match replace(&content, old, new, *replace_all) {
        Replacement::Done(new_content) => Ok(EditPlan {
            content: new_content,
            original: content,
            creates: false,
            seen,
        }),
        Replacement::NotFound => Err(match nearest::nearest_hint(&content, old) {
            Some(hint) => format!("{}\n{hint}", texts::string_not_found(old)),
            None => texts::string_not_found(old),
        }),
        Replacement::Ambiguous(n) => Err(texts::ambiguous_match(n, old)),
    }
}

/// Whether the file at `path` is still as the plan saw it: absent for a
/// creation; else the same size and the same bytes. The hash decides even
/// when the mtime is unchanged: a same-size rewrite within the
/// filesystem's timestamp granularity (or one that restores the mtime)
/// would otherwise be overwritten by a plan made from the old bytes.
fn still_as_planned(path: &Path, seen: Option<&FileState>) -> bool {
    match (fs::metadata(path), seen) {
        (Err(e), None) => e.kind() == io::ErrorKind::NotFound,
        // Only a regular file is hashed (a FIFO swapped in would block).
        (Ok(meta), Some(seen)) if meta.is_file() && meta.len() == seen.size => {
            FileState::observe(path).is_ok_and(|now| now.hash == seen.hash)
        }
        _ => false,
    }
}

/// Writes the plan (planned again if the file changed since), records the
/// new state, and answers with §8's text.
fn apply_edit(
    planned: PlannedEdit,
    cache: &FileStateCache,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let PlannedEdit { request: req, plan } = planned;
    let plan = if still_as_planned(&req.path, plan.seen.as_ref()) {
        plan
    } else {
        plan_edit(&req, cache).map_err(ToolError::RespondToModel)?
    };
    if cancel.is_cancelled() {
        return Ok(ToolOutput::interrupted());
    }
    let shown = req.path.display();
    let target = write_target(&req.path);
    if plan.creates
        && let Some(parent) = target.parent()
        && let Err(e) = fs::create_dir_all(parent)
    {
        return Ok(ToolOutput::error(tools_texts::cannot_create_directory(
            parent, e,
        )));
    }
    match atomic_write(&target, &plan.content, cancel) {
        Ok(state) => cache.record(&state_key(&target), state),
        Err(WriteError::Cancelled) => return Ok(ToolOutput::interrupted()),
        Err(WriteError::Io(e)) => {
            return Ok(ToolOutput::error(tools_texts::cannot_write(&req.path, e)));
        }
    }
    let text = success_text(&shown.to_string(), req.input.replace_all);
    Ok(ToolOutput::text(text).with_detail(change_detail(&req.path, &plan)))
}

/// Edit's facts for the embedder: the hunks from the content the plan read
/// to the content written (computed here, never re-read from disk).
fn change_detail(path: &Path, plan: &EditPlan) -> ToolDetail {
    let old = String::from_utf8_lossy(&plan.original);
    let new = String::from_utf8_lossy(&plan.content);
    ToolDetail::Edit(FileChange {
        file: path.to_path_buf(),
        kind: if plan.creates {
            ChangeKind::Create
        } else {
            ChangeKind::Update
        },
        structured_patch: structured_patch(&old, &new),
        original: None,
    })
}
