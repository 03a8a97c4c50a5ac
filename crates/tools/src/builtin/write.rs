//! The Write tool (T4/T5): creates or overwrites a file, atomically.
//!
//! Flow: `validate_input` refuses an existing file that was not read in
//! this session or changed on disk since (T5, via `ctx.file_state`); `call`
//! checks again (a permission prompt may have taken minutes), creates parent
//! directories, writes through [`atomic_write`] (temp file in the same
//! directory → fsync → rename, the old file's permissions kept, symlinks
//! written through to their target) and records the new state, so a
//! following Edit needs no re-read. A cancelled call (its token fired, the
//! engine may already have reported it cancelled) writes nothing: the token
//! is checked before the directories are made and again just before the
//! rename that replaces the file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileState, FileStateCache, state_key};
use crate::tool::{Tool, ToolOutput, input_schema_for};

/// Write answers with a short confirmation; the limit only guards odd cases.
pub const WRITE_MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// How many temp-file names are tried before giving up.
const TEMP_NAME_ATTEMPTS: u32 = 16;

const DESCRIPTION: &str = "Writes a file to the local filesystem, replacing it if it exists and creating parent \
directories. An existing file must have been read with Read in this session, and the write is refused if the \
file changed on disk since. Prefer Edit for changing existing files; create new files only when needed.";

// Input of Write.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// Path of the file to write
    pub file_path: String,
    /// The full new content
    pub content: String,
}

pub struct WriteTool {
    schema: Value,
}

impl WriteTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<WriteInput>(),
        }
    }
}

impl Default for WriteTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for WriteTool {
    fn name(&self) -> &str {
        "Write"
    }

    fn search_hint(&self) -> Option<&str> {
        Some("write create save overwrite file")
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

    /// Destructive when it overwrites. Without the session cwd a relative
    /// path cannot be checked, so it counts as destructive.
    fn is_destructive(&self, input: &Value) -> bool {
        match input.get("file_path").and_then(Value::as_str) {
            Some(p) if Path::new(p).is_absolute() => Path::new(p).exists(),
            _ => true,
        }
    }

    fn max_result_size_chars(&self) -> usize {
        WRITE_MAX_RESULT_SIZE_CHARS
    }

    async fn validate_input(&self, input: &Value, ctx: &ToolUseContext) -> Result<(), String> {
        let input: WriteInput =
            serde_json::from_value(input.clone()).map_err(|e| format!("Invalid input: {e}"))?;
        let path = ctx.resolve_path(&input.file_path);
        check_writable(&path, &ctx.file_state)
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input: WriteInput = match serde_json::from_value(input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(format!("Invalid input: {e}")),
        };
        let path = ctx.resolve_path(&input.file_path);
        let cache = Arc::clone(&ctx.file_state);
        let cancel = call.cancel.clone();
        let job = move || write_file(&path, input.content.as_bytes(), &cache, &cancel);
        match tokio::task::spawn_blocking(job).await {
            Ok(out) => out,
            Err(e) => ToolOutput::error(format!("Write failed: {e}")),
        }
    }
}

/// The business checks of Write: not a directory, not read-only, and T5 for
/// an existing file.
fn check_writable(path: &Path, cache: &FileStateCache) -> Result<(), String> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(format!(
            "EISDIR: illegal operation on a directory, open '{}'",
            path.display()
        )),
        Ok(meta) if !meta.is_file() => Err(format!(
            "Cannot write {}: not a regular file",
            path.display()
        )),
        Ok(meta) if meta.permissions().readonly() => Err(format!(
            "EACCES: permission denied, open '{}'",
            path.display()
        )),
        Ok(_) => cache.check_fresh(path).map_err(|e| e.to_string()),
        Err(_) => Ok(()),
    }
}

fn write_file(
    path: &Path,
    content: &[u8],
    cache: &FileStateCache,
    cancel: &CancellationToken,
) -> ToolOutput {
    let existed = path.exists();
    if let Err(msg) = check_writable(path, cache) {
        return ToolOutput::error(crate::validation::wrap_tool_use_error(&msg));
    }
    if cancel.is_cancelled() {
        return ToolOutput::interrupted();
    }
    let target = write_target(path);
    if let Some(parent) = target.parent()
        && let Err(e) = fs::create_dir_all(parent)
    {
        return ToolOutput::error(format!("Cannot create directory {}: {e}", parent.display()));
    }
    match atomic_write(&target, content, cancel) {
        Ok(state) => {
            cache.record(&state_key(&target), state);
            if existed {
                ToolOutput::text(format!(
                    "The file {} has been updated successfully.",
                    path.display()
                ))
            } else {
                ToolOutput::text(format!("File created successfully at: {}", path.display()))
            }
        }
        Err(WriteError::Cancelled) => ToolOutput::interrupted(),
        Err(WriteError::Io(e)) => {
            ToolOutput::error(format!("Cannot write {}: {e}", path.display()))
        }
    }
}

/// Why [`atomic_write`] left the target as it was.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The call's cancel token fired before the file was replaced.
    Cancelled,
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// Where bytes for `path` go: through a symlink to its target (so the link
/// survives the rename), else the path itself.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `content` to `target` so that readers see the old file or the new
/// one, never a mix: a temp file in the same directory (same filesystem, so
/// rename is atomic), fsynced, given the old file's permissions, renamed
/// over `target`. Returns the state of the written file. When `cancel` has
/// fired before the rename, the temp file is removed and the target is left
/// untouched.
pub(crate) fn atomic_write(
    target: &Path,
    content: &[u8],
    cancel: &CancellationToken,
) -> Result<FileState, WriteError> {
    static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);
    if cancel.is_cancelled() {
        return Err(WriteError::Cancelled);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let old_permissions = fs::metadata(target).ok().map(|m| m.permissions());

    let mut opened = None;
    for _ in 0..TEMP_NAME_ATTEMPTS {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.orbit-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => {
                opened = Some((f, tmp));
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    let Some((mut file, tmp)) = opened else {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temp file name").into());
    };
    let written = (|| {
        // Permissions first: a 0o600 file's new content is never readable
        // through a temp file with the default (umask) mode.
        if let Some(p) = old_permissions {
            file.set_permissions(p)?;
        }
        file.write_all(content)?;
        file.sync_all()?;
        drop(file);
        // The last moment the write can still be called off.
        if cancel.is_cancelled() {
            return Err(WriteError::Cancelled);
        }
        fs::rename(&tmp, target)?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // Persist the rename itself; best effort (not every filesystem allows
    // opening a directory for sync).
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    let meta = fs::metadata(target)?;
    Ok(FileState::from_content(&meta, content))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn atomic_write_keeps_mode_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o750)).unwrap();
        let state = atomic_write(&p, b"new content", &CancellationToken::new()).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new content");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o750
        );
        assert_eq!(state, FileState::observe(&p).unwrap());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run.sh")]);
    }

    #[test]
    fn cancelled_atomic_write_leaves_target_and_directory_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("keep.txt");
        fs::write(&p, "old").unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let out = atomic_write(&p, b"new", &cancel);
        assert!(matches!(out, Err(WriteError::Cancelled)), "{out:?}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn write_target_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(write_target(&link), fs::canonicalize(&real).unwrap());
    }
}
