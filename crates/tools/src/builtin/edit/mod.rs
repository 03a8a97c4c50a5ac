//! The Edit tool (T4/T5, §8): exact-string replacement in a file.
//!
//! Flow: [`plan_edit`] runs Claude Code's checks in its order — no-op
//! strings, missing file (created when `old_string` is empty), an empty
//! `old_string` on a non-blank file, read-before-edit and modified-since-read
//! (T5), then the match count ([`replace`]) — and yields the new content.
//! `validate_input` runs it for the model-facing refusal texts (the engine
//! wraps them in `<tool_use_error>`); `call` runs it again just before
//! writing (the file may have changed during a permission prompt), writes
//! atomically through Write's [`atomic_write`] and records the new state.
//! A call whose cancel token fired writes nothing (checked before the
//! directories are made and again just before the rename).

mod replace;

use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::builtin::write::{WriteError, atomic_write, write_target};
use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileStateCache, state_key};
use crate::tool::{Tool, ToolOutput, input_schema_for};
use crate::validation::wrap_tool_use_error;

/// Edit answers with a short confirmation; the limit only guards odd cases.
pub const EDIT_MAX_RESULT_SIZE_CHARS: usize = 100_000;

pub use replace::{Replacement, find_all, replace};

/// §8 no-op text.
pub const NO_CHANGES_MESSAGE: &str =
    "No changes to make: old_string and new_string are exactly the same.";
/// Empty `old_string` on an existing, non-blank file.
pub const FILE_EXISTS_MESSAGE: &str = "Cannot create new file - file already exists.";

const DESCRIPTION: &str = "Performs an exact string replacement in a file. old_string must match the file exactly, \
including indentation, without the line-number prefix Read shows, and must be unique in the file unless \
replace_all is true (which replaces every occurrence, e.g. to rename). The file must have been read with Read \
in this session. An empty old_string on a missing file creates it with new_string. \
CRLF line endings are kept.";

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

pub struct EditTool {
    schema: Value,
}

impl EditTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<EditInput>(),
        }
    }
}

impl Default for EditTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for EditTool {
    fn name(&self) -> &str {
        "Edit"
    }

    fn search_hint(&self) -> Option<&str> {
        Some("edit modify replace string in file")
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn max_result_size_chars(&self) -> usize {
        EDIT_MAX_RESULT_SIZE_CHARS
    }

    async fn validate_input(&self, input: &Value, ctx: &ToolUseContext) -> Result<(), String> {
        let input: EditInput =
            serde_json::from_value(input.clone()).map_err(|e| format!("Invalid input: {e}"))?;
        let request = EditRequest::new(input, ctx);
        let cache = Arc::clone(&ctx.file_state);
        match tokio::task::spawn_blocking(move || plan_edit(&request, &cache).map(|_| ())).await {
            Ok(r) => r,
            Err(e) => Err(format!("Edit failed: {e}")),
        }
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input: EditInput = match serde_json::from_value(input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(format!("Invalid input: {e}")),
        };
        let request = EditRequest::new(input, ctx);
        let cache = Arc::clone(&ctx.file_state);
        let cancel = call.cancel.clone();
        match tokio::task::spawn_blocking(move || apply_edit(&request, &cache, &cancel)).await {
            Ok(out) => out,
            Err(e) => ToolOutput::error(format!("Edit failed: {e}")),
        }
    }
}

/// An edit with its path resolved against the session cwd.
pub struct EditRequest {
    pub path: PathBuf,
    pub cwd: PathBuf,
    pub input: EditInput,
}

impl EditRequest {
    pub fn new(input: EditInput, ctx: &ToolUseContext) -> Self {
        Self {
            path: ctx.resolve_path(&input.file_path),
            cwd: ctx.cwd(),
            input,
        }
    }
}

/// What [`plan_edit`] decided.
#[derive(Debug)]
pub struct EditPlan {
    /// The file's full new content.
    pub content: Vec<u8>,
    /// The file does not exist yet (created, with parent directories).
    pub creates: bool,
}

/// Claude Code's Edit checks, in order; `Err` is the unwrapped refusal text.
pub fn plan_edit(req: &EditRequest, cache: &FileStateCache) -> Result<EditPlan, String> {
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
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if old.is_empty() {
                return Ok(EditPlan {
                    content: new.as_bytes().to_vec(),
                    creates: true,
                });
            }
            return Err(format!(
                "File does not exist. Note: your current working directory is {}.",
                req.cwd.display()
            ));
        }
        Err(e) => return Err(format!("Cannot read {}: {e}", path.display())),
    };
    if meta.is_dir() {
        return Err(format!(
            "EISDIR: illegal operation on a directory, read '{}'",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "Cannot edit {}: not a regular file",
            path.display()
        ));
    }
    let content = fs::read(path).map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
    if old.is_empty() && !String::from_utf8_lossy(&content).trim().is_empty() {
        return Err(FILE_EXISTS_MESSAGE.to_string());
    }
    cache.check_fresh(path).map_err(|e| e.to_string())?;
    if meta.permissions().readonly() {
        return Err(format!(
            "EACCES: permission denied, open '{}'",
            path.display()
        ));
    }
    if old.is_empty() {
        // A blank existing file: its content becomes new_string.
        return Ok(EditPlan {
            content: new.as_bytes().to_vec(),
            creates: false,
        });
    }
    match replace(&content, old, new, *replace_all) {
        Replacement::Done(content) => Ok(EditPlan {
            content,
            creates: false,
        }),
        Replacement::NotFound => Err(format!(
            "String to replace not found in file.\nString: {old}"
        )),
        Replacement::Ambiguous(n) => Err(format!(
            "Found {n} matches of the string to replace, but replace_all is false. To replace all \
occurrences, set replace_all to true. To replace only one occurrence, please provide more context to \
uniquely identify the instance.\nString: {old}"
        )),
    }
}

/// Plans again, writes, records the new state, and answers with §8's text.
fn apply_edit(req: &EditRequest, cache: &FileStateCache, cancel: &CancellationToken) -> ToolOutput {
    let plan = match plan_edit(req, cache) {
        Ok(p) => p,
        Err(msg) => return ToolOutput::error(wrap_tool_use_error(&msg)),
    };
    if cancel.is_cancelled() {
        return ToolOutput::interrupted();
    }
    let shown = req.path.display();
    let target = write_target(&req.path);
    if plan.creates
        && let Some(parent) = target.parent()
        && let Err(e) = fs::create_dir_all(parent)
    {
        return ToolOutput::error(format!("Cannot create directory {}: {e}", parent.display()));
    }
    match atomic_write(&target, &plan.content, cancel) {
        Ok(state) => cache.record(&state_key(&target), state),
        Err(WriteError::Cancelled) => return ToolOutput::interrupted(),
        Err(WriteError::Io(e)) => return ToolOutput::error(format!("Cannot write {shown}: {e}")),
    }
    ToolOutput::text(success_text(&shown.to_string(), req.input.replace_all))
}

/// Claude Code's success texts: one replacement, or all of them.
pub fn success_text(shown_path: &str, replace_all: bool) -> String {
    if replace_all {
        format!(
            "The file {shown_path} has been updated. All occurrences were successfully replaced."
        )
    } else {
        format!("The file {shown_path} has been updated successfully.")
    }
}
