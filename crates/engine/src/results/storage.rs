//! Where persisted tool results live on disk (R1/R2), and how they get there.
//!
//! Layout: `<data dir>/projects/<cwd slug>/<session id>/tool-results/<tool_use id>.txt`,
//! beside the session's transcript `<session id>.jsonl`: the directory and
//! the slug rule are `orbit_session::paths`, the one place that computes
//! them (`/home/me/my.proj` becomes `-home-me-my-proj`). A write goes to a temporary file in the same directory
//! and is renamed into place, so a reader (the model's Read tool, a resumed
//! session) never sees a half-written file. Files are created `0o600` (the
//! directory `0o700`): tool output may hold secrets.
//!
//! The session directory is a writable root of the Bash sandbox, so a
//! sandboxed command may have replaced `tool-results` (or a name in it) with
//! a link: every step goes through [`super::beneath`], which opens the
//! directories without following links and works relative to their
//! descriptors; a write that cannot be made safely fails, and the pipeline
//! keeps the result inline.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use orbit_session::file_component;
use orbit_session::paths::{TOOL_RESULTS_DIR_NAME, session_dir};

use super::beneath::{BeneathError, write_beneath};

pub use orbit_session::project_slug;

/// Why a result could not be persisted. The pipeline then keeps the original
/// result (R1: "if writing fails, the original result is kept").
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// The results directory could not be created.
    #[error("cannot create tool-results directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The result file could not be written.
    #[error("cannot write tool result to {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The results directory was replaced while the result was written
    /// (see `super::beneath`); the file was removed.
    #[error("{path} changed while the tool result was written; not used")]
    Moved {
        /// The result's path.
        path: PathBuf,
    },
}

impl From<BeneathError> for PersistError {
    fn from(e: BeneathError) -> Self {
        match e {
            BeneathError::Dir { path, source } => Self::CreateDir { path, source },
            BeneathError::File { path, source } => Self::Write { path, source },
            BeneathError::Moved { path } => Self::Moved { path },
        }
    }
}

/// The per-session directory of persisted tool results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResultStorage {
    /// `<data dir>/projects/<cwd slug>/<session id>`.
    session_dir: PathBuf,
    /// `session_dir/tool-results`.
    dir: PathBuf,
}

impl ToolResultStorage {
    /// `data_dir` is `$ORBIT_HOME` (default `~/.orbit`); `cwd` is the
    /// session's project directory, made absolute if it is not.
    pub fn new(data_dir: &Path, cwd: &Path, session_id: &str) -> Self {
        let session_dir = session_dir(data_dir, cwd, session_id);
        let dir = session_dir.join(TOOL_RESULTS_DIR_NAME);
        Self { session_dir, dir }
    }

    /// `<data dir>/projects/<cwd slug>/<session id>/tool-results`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the result of `tool_use_id` is (or would be) saved.
    pub fn path_for(&self, tool_use_id: &str) -> PathBuf {
        self.dir
            .join(format!("{}.txt", file_component(tool_use_id)))
    }

    /// Writes `text` byte-exact to [`Self::path_for`]`(tool_use_id)`,
    /// atomically (temp file + rename, links refused: see the module docs);
    /// an existing file is replaced.
    pub async fn write(&self, tool_use_id: &str, text: &str) -> Result<PathBuf, PersistError> {
        let session_dir = self.session_dir.clone();
        let id = file_component(tool_use_id);
        let name = OsString::from(format!("{id}.txt"));
        let tmp = OsString::from(format!(".{id}.{}.tmp", uuid::Uuid::new_v4().simple()));
        let bytes = text.as_bytes().to_vec();
        let path = self.path_for(tool_use_id);
        let task = tokio::task::spawn_blocking(move || {
            write_beneath(
                &session_dir,
                TOOL_RESULTS_DIR_NAME.as_ref(),
                &name,
                &tmp,
                &bytes,
            )
        });
        match task.await {
            Ok(written) => Ok(written?),
            Err(join) => Err(PersistError::Write {
                path,
                source: std::io::Error::other(join.to_string()),
            }),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// A session whose `tool-results` a command replaced with a link to a
    /// directory elsewhere: the write fails, nothing lands there, and R1
    /// keeps the result inline.
    #[tokio::test]
    async fn a_linked_results_dir_gets_nothing() {
        let root = tempfile::tempdir().unwrap();
        let storage = ToolResultStorage::new(&root.path().join("data"), Path::new("/p"), "s");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(storage.dir().parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, storage.dir()).unwrap();

        let err = storage.write("toolu_1", "text").await.unwrap_err();
        assert!(matches!(err, PersistError::CreateDir { .. }), "{err}");
        let big = "x".repeat(100);
        let block = orbit_protocol::ToolResultBlock::text("toolu_1", big.clone(), false);
        let kept = super::super::maybe_persist_large_tool_result(&storage, block, 10, None).await;
        assert_eq!(kept.content.as_text(), big);
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn writes_land_in_the_results_dir() {
        let root = tempfile::tempdir().unwrap();
        let storage = ToolResultStorage::new(&root.path().join("data"), Path::new("/p"), "s");
        let path = storage.write("toolu/../1", "text").await.unwrap();
        assert_eq!(path, storage.path_for("toolu/../1"));
        assert_eq!(path.parent(), Some(storage.dir()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "text");
    }
}
